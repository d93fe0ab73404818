/**
 * Merging kanon's tables (Codex `mcp_servers.<name>`) into a config.toml the user also edits.
 *
 * An entry that changes is edited key by key, in whatever form it has (`[mcp_servers.x]` and its
 * sub-tables, `x = { … }`, dotted keys like `x.command = …`, or a mix): a key whose value is the same
 * keeps its bytes however kanon would write it; a changed value is replaced where it is; a removed
 * key goes with its line (a sub-table with its block); a new key goes after the table's last key
 * (a new sub-table after its last sub-table, a new dotted key beside the others). Values kanon writes
 * into an entry quote their strings as the entry's strings already are. A new entry is written as
 * go-toml writes it, after the last table of its parent, else at the end of the file. Lines of other
 * tables, comments between them and blank lines stay byte for byte.
 */
import { parse as parseTomlText, TomlError } from "smol-toml";
import { encodeToml } from "../../formats/toml.js";
import { forParsing } from "../../formats/utf8.js";
import { deepEqual, isPlainObject, type PlainObject, setOwn, sortedKeys } from "../../formats/values.js";
import { cannotEdit, cannotParse, notAnObject, verified } from "./errors.js";
import { intendedDocument, type KeyedMerge } from "./intended.js";
import { applyEdits, isBlankLine, nextLineStart, type TextEdit } from "./text.js";
import { InlineEdits, keysOf, own } from "./toml-inline.js";
import {
  type AST,
  isPrefix,
  isProperPrefix,
  type KeyPath,
  readTomlLayout,
  type TomlStatement as Statement,
} from "./toml-layout.js";
import { TomlText } from "./toml-text.js";

/** `remove`: names of kanon's entries to take out (an `entries` merge). */
export function mergeToml(
  text: string,
  spec: KeyedMerge,
  desired: PlainObject,
  path: string,
  remove: readonly string[] = [],
): string {
  const existing = parseToml(text, path);
  const current = existing[spec.key];
  if (spec.kind === "entries" && current !== undefined && !isPlainObject(current))
    throw notAnObject(path, spec.key);

  let changes: string[] = [];
  let removals: string[] = [];
  if (spec.kind === "value") {
    if (!deepEqual(current, desired)) changes = [spec.key];
  } else {
    const entries = (current ?? {}) as PlainObject;
    for (const name of sortedKeys(desired)) {
      if (!isPlainObject(desired[name])) throw cannotEdit(path, `kanon's ${spec.key}.${name} is not a table`);
      if (!deepEqual(own(entries, name), desired[name])) changes.push(name);
    }
    removals = remove.filter((name) => Object.hasOwn(entries, name) && !Object.hasOwn(desired, name));
  }
  if (changes.length === 0 && removals.length === 0) return text;

  const editor = new TomlEditor(text, path);
  if (spec.kind === "value") editor.setRoot(spec.key, current, desired);
  else editor.setEntries(spec.key, (current ?? {}) as PlainObject, desired, changes, removals);
  const result = applyEdits(text, editor.finish());
  const intended = intendedDocument(existing, spec, desired, removals);
  return verified(result, path, () => deepEqual(parseToml(result, path), intended));
}

export function parseToml(text: string, path: string): PlainObject {
  try {
    return parseTomlText(forParsing(text)) as PlainObject;
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = (error.message.split("\n")[0] ?? "").replace(/^Invalid TOML document: /, "");
    throw cannotParse(path, `${reason} at ${error.line}:${error.column}`);
  }
}

const samePath = (a: KeyPath, b: KeyPath) => a.length === b.length && isPrefix(a, b);

class TomlEditor extends TomlText {
  private readonly inline = new InlineEdits(this);

  constructor(text: string, path: string) {
    super(text, readTomlLayout(text, path), path);
  }

  /** The entries of `key` that change or go; the new ones are added as go-toml writes them. */
  setEntries(
    key: string,
    current: PlainObject,
    desired: PlainObject,
    changes: readonly string[],
    removals: readonly string[],
  ): void {
    const parent = [key];
    const inline = this.owner(parent) !== undefined;
    const added: [KeyPath, PlainObject][] = [];
    for (const name of removals) this.setEntry(parent, name, own(current, name), undefined);
    for (const name of changes) {
      const value = desired[name] as PlainObject;
      if (inline || Object.hasOwn(current, name)) this.setEntry(parent, name, own(current, name), value);
      else added.push([[key, name], value]);
    }
    this.quotes = "literal";
    if (added.length > 0) this.add(parent, added);
  }

  /** The whole value of the top-level `key` (a `value` merge). */
  setRoot(key: string, current: unknown, desired: PlainObject): void {
    if (current === undefined) this.add([], [[[key], desired]]);
    else this.setEntry([], key, current, desired);
  }

  finish(): readonly TextEdit[] {
    this.inline.flush();
    return this.edits;
  }

  /** One entry of the table at `parent`, key by key, its strings quoted like its own. */
  private setEntry(parent: KeyPath, name: string, before: unknown, after: unknown): void {
    const at = [...parent, name];
    this.quotes = this.quotesOf(at);
    const holder = this.owner(parent);
    if (holder === undefined) {
      this.setOpenTable(parent, { [name]: before }, { [name]: after });
      return;
    }
    if (holder.node.value.type !== "TOMLInlineTable")
      throw cannotEdit(this.path, `${holder.path.join(".")} is not a table`);
    this.inline.setKey(holder.node.value, parent.slice(holder.path.length), name, before, after);
  }

  /** The statement whose value holds the table at `at` (`x = { … }` or a parent's inline table). */
  private owner(at: KeyPath): Statement | undefined {
    return this.layout.statements.find((statement) => isPrefix(statement.path, at));
  }

  /**
   * Gives the table at `at`, written with headers or dotted keys (not inside an inline table), the
   * keys of `after` where they differ from `before`.
   */
  private setOpenTable(at: KeyPath, before: PlainObject, after: PlainObject): void {
    const added: [string, unknown][] = [];
    for (const key of keysOf(before, after)) {
      const [b, a] = [own(before, key), own(after, key)];
      if (deepEqual(b, a)) continue;
      const sub = [...at, key];
      const exact = this.layout.statements.find((s) => samePath(s.path, sub));
      if (exact !== undefined) {
        this.setStatement(exact.node, b, a);
        continue;
      }
      if (this.hasPieces(sub)) {
        // An empty table stays only under a header of its own: without one it is written anew.
        const header = this.layout.tables.some((t) => samePath(t.path, sub));
        if (isPlainObject(b) && isPlainObject(a) && (Object.keys(a).length > 0 || header)) {
          this.setOpenTable(sub, b, a);
          continue;
        }
        this.removePieces(sub);
      }
      if (a !== undefined) added.push([key, a]);
    }
    if (added.length > 0) this.place(at, added);
  }

  private setStatement(node: AST.TOMLKeyValue, before: unknown, after: unknown): void {
    if (after === undefined) this.deleteLines(node);
    else if (isPlainObject(before) && isPlainObject(after) && node.value.type === "TOMLInlineTable")
      this.inline.setTable(node.value, [], before, after);
    else this.replaceNode(node.value, this.value(after));
  }

  /** Whether table headers or dotted keys define the table at `at`. */
  private hasPieces(at: KeyPath): boolean {
    return (
      this.layout.tables.some((table) => isPrefix(at, table.path)) ||
      this.layout.statements.some((statement) => isProperPrefix(at, statement.path))
    );
  }

  /** Dotted keys that define the table at `at` from a body above it (`x.command = …` under [parent]). */
  private dottedOf(at: KeyPath): Statement[] {
    return this.layout.statements.filter(
      (statement) => isProperPrefix(at, statement.path) && isProperPrefix(statement.tablePath, at),
    );
  }

  /**
   * Removes the table at `at` written as headers and dotted keys: each run of its table blocks goes
   * with the blank lines before it (after it, at the top of the file), and each of its dotted keys
   * with its line.
   */
  private removePieces(at: KeyPath): void {
    const runs: [number, number][] = [];
    for (const table of this.layout.tables.filter((t) => isPrefix(at, t.path))) {
      const from = this.blankLinesBefore(table.start);
      const last = runs[runs.length - 1];
      if (last !== undefined && from <= last[1]) last[1] = table.end;
      else runs.push([from, table.end]);
    }
    for (const [from, end] of runs) {
      let to = end;
      if (from === 0)
        while (to < this.text.length && isBlankLine(this.text, to)) to = nextLineStart(this.text, to);
      this.replaceRange(from, to, "");
    }
    for (const statement of this.dottedOf(at)) this.deleteLines(statement.node);
  }

  /**
   * Adds keys to the table at `at`, which exists: beside its dotted keys when it has no header;
   * else values after the last key of its header (a header made for them before its first sub-table
   * when it has none), and tables as sub-table blocks after its last one.
   */
  private place(at: KeyPath, added: [string, unknown][]): void {
    const header = this.layout.tables.find((t) => samePath(t.path, at) && t.node.kind === "standard");
    const dotted = this.dottedOf(at);
    const last = dotted[dotted.length - 1];
    if (header === undefined && last !== undefined) {
      const prefix = at.slice(last.tablePath.length).map((k) => this.key(k));
      const lines = added.map(([k, v]) => `${[...prefix, this.key(k)].join(".")} = ${this.value(v)}\n`);
      this.insertLines(nextLineStart(this.text, last.node.range[1]), lines.join(""));
      return;
    }
    const under = this.layout.tables.filter((t) => isPrefix(at, t.path));
    const anchor = under[under.length - 1];
    if (anchor === undefined) throw cannotEdit(this.path, `unexpected layout of ${at.join(".")}`);
    const values = added.filter(([, v]) => !isPlainObject(v));
    const tables = added.filter((pair): pair is [string, PlainObject] => isPlainObject(pair[1]));
    const lines = values.map(([k, v]) => `${this.key(k)} = ${this.value(v)}\n`).join("");
    if (values.length > 0 && header !== undefined) {
      const body = header.node.body;
      const end = body.length > 0 ? body[body.length - 1]!.range[1] : header.start;
      this.insertLines(nextLineStart(this.text, end), lines);
    } else if (values.length > 0) {
      // Before its first sub-table, and before the blank lines above that (which may go with it).
      const header = `[${at.map((k) => this.key(k)).join(".")}]\n${lines}`;
      const start = under[0]!.start;
      const from = this.blankLinesBefore(start);
      if (from < start) this.insertLines(from, `\n${header}`);
      else this.insertLines(start, `${header}\n`);
    }
    if (tables.length === 0) return;
    // go-toml's rule: a blank line before a sub-table, except right under a header without keys.
    const blank = anchor.hasKeyValues || anchor !== header || values.length > 0;
    const blocks = tables.map(([k, v]) => this.table([...at, k], v)).join("\n");
    this.insertLines(anchor.end, `${blank ? "\n" : ""}${blocks}`);
  }

  /**
   * Adds new tables under `parent`: after the last table under it, else at the end of the file;
   * the parent's own header only when the parent does not exist in any form yet.
   */
  private add(parent: KeyPath, added: [KeyPath, PlainObject][]): void {
    const blocks = added.map(([at, value]) => this.table(at, value)).join("\n");
    const tables =
      parent.length === 0 ? [] : this.layout.tables.filter((table) => isPrefix(parent, table.path));
    const anchor = tables[tables.length - 1];
    if (anchor !== undefined) {
      const blank = anchor.hasKeyValues || anchor.path.length !== parent.length;
      this.insertLines(anchor.end, `${blank ? "\n" : ""}${blocks}`);
      return;
    }
    const parentExists =
      parent.length === 0 ||
      this.layout.statements.some((statement) => isProperPrefix(parent, statement.path));
    if (parentExists) {
      this.appendAtEnd(blocks);
      return;
    }
    const fresh: PlainObject = {};
    for (const [at, value] of added) setOwn(fresh, at[at.length - 1]!, value);
    this.appendAtEnd(encodeToml({ [parent[0]!]: fresh }));
  }

  /** The quoting of the first one-line string in the table at `at`; go-toml's when it has none. */
  private quotesOf(at: KeyPath): TomlText["quotes"] {
    const values = this.layout.statements
      .filter((s) => isProperPrefix(at, s.path) || isPrefix(s.path, at))
      .map((s) => s.node.value);
    const style = firstString(values)?.style;
    return style ?? "literal";
  }
}

/** The first one-line string among `values`, depth first through arrays and inline tables. */
function firstString(values: readonly AST.TOMLContentNode[]): AST.TOMLStringValue | undefined {
  for (const value of values) {
    if (value.type === "TOMLValue" && value.kind === "string" && !value.multiline) return value;
    const inner =
      value.type === "TOMLArray"
        ? firstString(value.elements)
        : value.type === "TOMLInlineTable"
          ? firstString(value.body.map((member) => member.value))
          : undefined;
    if (inner !== undefined) return inner;
  }
  return undefined;
}
