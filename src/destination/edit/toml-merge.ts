/**
 * Merging kanon's tables (Codex `mcp_servers.<name>`) into a config.toml the user also edits.
 *
 * A changed table is rewritten as go-toml would write it, in the place and form it already has:
 * - `[mcp_servers.x]` with its sub-tables → the same table blocks, where the first one was;
 * - `x = { … }` or `mcp_servers = { x = … }` → the inline value only, as a go-toml inline table;
 * - dotted keys (`x.command = …`) → one `x = { … }` line where the first of them was.
 * A new table goes after the last table of its parent, else at the end of the file.
 * Lines of other tables, comments between them and blank lines stay byte for byte.
 */
import { parse as parseTomlText, TomlError } from "smol-toml";
import { encodeToml, encodeTomlKey, encodeTomlTable, encodeTomlValue } from "../../formats/toml.js";
import { forParsing } from "../../formats/utf8.js";
import { deepEqual, isPlainObject, type PlainObject, setOwn, sortedKeys } from "../../formats/values.js";
import type { MergeSpec } from "../../model/types.js";
import { cannotEdit, cannotParse, notAnObject, verified } from "./errors.js";
import { intendedDocument } from "./intended.js";
import {
  applyEdits,
  detectEol,
  isBlankLine,
  lineIndent,
  lineStart,
  nextLineStart,
  startsLine,
  type TextEdit,
} from "./text.js";
import {
  type AST,
  isPrefix,
  isProperPrefix,
  type KeyPath,
  keyPath,
  readTomlLayout,
  type TomlLayout,
} from "./toml-layout.js";

/** `remove`: names of kanon's entries to take out (an `entries` merge). */
export function mergeToml(
  text: string,
  spec: MergeSpec,
  desired: PlainObject,
  path: string,
  remove: readonly string[] = [],
): string {
  const existing = parseToml(text, path);
  const current = existing[spec.key];
  if (spec.kind === "entries" && current !== undefined && !isPlainObject(current))
    throw notAnObject(path, spec.key);

  const changes: [KeyPath, PlainObject][] = [];
  if (spec.kind === "value") {
    if (!deepEqual(current, desired)) changes.push([[spec.key], desired]);
  } else {
    for (const name of sortedKeys(desired)) {
      const value = desired[name];
      if (!isPlainObject(value)) throw cannotEdit(path, `kanon's ${spec.key}.${name} is not a table`);
      if (!deepEqual((current as PlainObject | undefined)?.[name], value))
        changes.push([[spec.key, name], value]);
    }
  }
  const removals =
    spec.kind === "entries" && isPlainObject(current)
      ? remove.filter((name) => Object.hasOwn(current, name) && !Object.hasOwn(desired, name))
      : [];
  if (changes.length === 0 && removals.length === 0) return text;

  const editor = new TomlEditor(text, readTomlLayout(text, path), path, existing);
  if (removals.length > 0) {
    const kept: PlainObject = {};
    for (const name of Object.keys(current as PlainObject))
      if (!removals.includes(name)) setOwn(kept, name, (current as PlainObject)[name]);
    for (const name of removals) editor.remove([spec.key, name], kept);
  }
  const added = changes.filter(([at, value]) => !editor.write(at, value));
  if (added.length > 0) editor.add(spec.kind === "entries" ? [spec.key] : [], added);

  const result = applyEdits(text, editor.edits);
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

class TomlEditor {
  readonly edits: TextEdit[] = [];
  private readonly eol: string;

  constructor(
    private readonly text: string,
    private readonly layout: TomlLayout,
    private readonly path: string,
    private readonly existing: PlainObject,
  ) {
    this.eol = detectEol(text);
  }

  /** Rewrites the table at `at` where it is defined; false when neither it nor an inline parent exists. */
  write(at: KeyPath, value: PlainObject): boolean {
    const owner = this.layout.statements.find((statement) => isPrefix(statement.path, at));
    if (owner !== undefined) {
      const inside = at.slice(owner.path.length);
      if (inside.length === 0) this.replaceNode(owner.node.value, encodeTomlValue(value));
      else this.writeInline(owner.node.value, inside, value, at);
      return true;
    }
    const tables = this.layout.tables.filter((table) => isPrefix(at, table.path));
    const dotted = this.layout.statements.filter(
      (statement) => isProperPrefix(at, statement.path) && isProperPrefix(statement.tablePath, at),
    );
    if (tables.length > 0) {
      if (dotted.length === 0 && this.editTable(at, value, valueAt(this.existing, at))) return true;
      this.replaceTables(tables, encodeTomlTable(at, value));
      for (const statement of dotted) this.deleteLines(statement.node);
      return true;
    }
    const [first, ...others] = dotted;
    if (first === undefined) return false;
    // Dotted keys can sit among unrelated keys of a table body, where a [header] cannot go.
    const key = relativeKey(first.tablePath, at);
    this.replaceRange(first.node.range[0], first.node.range[1], `${key} = ${encodeTomlValue(value)}`);
    for (const statement of others) this.deleteLines(statement.node);
    return true;
  }

  /**
   * Changes only the keys of the `[at]` table (and of its `[at.sub]` tables) whose values change, so
   * the user's comments, blank lines and quoting inside it stay. False (and no edits) when its layout
   * is not the plain one this handles: the caller then rewrites the table whole.
   */
  private editTable(at: KeyPath, value: PlainObject, old: unknown): boolean {
    const header = this.layout.tables.find((t) => t.path.length === at.length && isPrefix(at, t.path));
    if (header === undefined || header.node.kind !== "standard" || !isPlainObject(old)) return false;
    const mark = this.edits.length;
    const fail = () => {
      this.edits.length = mark;
      return false;
    };
    const inTable = (s: TomlLayout["statements"][number]) =>
      s.tablePath.length === at.length && isPrefix(at, s.tablePath);
    const body = this.layout.statements.filter(inTable);
    const added: string[] = [];
    for (const key of new Set([...Object.keys(old), ...Object.keys(value)])) {
      const before = old[key];
      const after = value[key];
      if (deepEqual(before, after)) continue;
      const sub = [...at, key];
      const statement = body.find((s) => s.path.length === sub.length && s.path[at.length] === key);
      if (body.some((s) => s.path.length > sub.length && s.path[at.length] === key)) return fail();
      if (this.layout.tables.some((t) => isPrefix(sub, t.path))) {
        if (!isPlainObject(after) || !this.editTable(sub, after, before)) return fail();
      } else if (statement !== undefined) {
        if (after === undefined) this.deleteLines(statement.node);
        else this.replaceNode(statement.node.value, encodeTomlValue(after));
      } else if (after !== undefined && !isPlainObject(after)) {
        added.push(`${encodeTomlKey(key)} = ${encodeTomlValue(after)}\n`);
      } else {
        return fail();
      }
    }
    if (added.length > 0) {
      const last = body[body.length - 1];
      this.insertLines(
        last ? nextLineStart(this.text, last.node.range[1]) : nextLineStart(this.text, header.start),
        added.join(""),
      );
    }
    return true;
  }

  /**
   * Removes the table at `at` in whatever form it has: its table blocks (with the blank lines before
   * them), its dotted keys, its own `x = { … }` line, or its member of an inline parent (the parent,
   * `kept` being what stays of it, is rewritten).
   */
  remove(at: KeyPath, kept: PlainObject): void {
    const owner = this.layout.statements.find((statement) => isPrefix(statement.path, at));
    if (owner !== undefined) {
      if (owner.path.length === at.length) this.deleteLines(owner.node);
      else this.replaceNode(owner.node.value, encodeTomlValue(kept));
      return;
    }
    // Each run of its tables goes with the blank lines before it (after it, at the top of the file).
    const runs: [number, number][] = [];
    for (const table of this.layout.tables.filter((t) => isPrefix(at, t.path))) {
      let from = table.start;
      while (from > 0 && isBlankLine(this.text, from - 1)) from = lineStart(this.text, from - 1);
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
    const dotted = this.layout.statements.filter(
      (statement) => isProperPrefix(at, statement.path) && isProperPrefix(statement.tablePath, at),
    );
    for (const statement of dotted) this.deleteLines(statement.node);
  }

  /**
   * Adds new tables under `parent`: after the last table under it, else at the end of the file;
   * the parent's own header only when the parent does not exist in any form yet.
   */
  add(parent: KeyPath, added: [KeyPath, PlainObject][]): void {
    const blocks = added.map(([at, value]) => encodeTomlTable(at, value)).join("\n");
    const tables =
      parent.length === 0 ? [] : this.layout.tables.filter((table) => isPrefix(parent, table.path));
    const anchor = tables[tables.length - 1];
    if (anchor !== undefined) {
      // go-toml's rule: a blank line before a sub-table, except right under a header without keys.
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

  /** Inside an inline table: replace, recurse into, regroup or add the member at `inside`. */
  private writeInline(node: AST.TOMLContentNode, inside: KeyPath, value: PlainObject, at: KeyPath): void {
    if (node.type !== "TOMLInlineTable") {
      throw cannotEdit(this.path, `${at.slice(0, -inside.length).join(".")} is not a table`);
    }
    const members = node.body.map((member) => ({ member, path: keyPath(member.key) }));
    const exact = members.find((m) => m.path.length === inside.length && isPrefix(m.path, inside));
    if (exact) {
      this.replaceNode(exact.member.value, encodeTomlValue(value));
      return;
    }
    const outer = members.find((m) => isProperPrefix(m.path, inside));
    if (outer) {
      this.writeInline(outer.member.value, inside.slice(outer.path.length), value, at);
      return;
    }
    const text = `${inside.map(encodeTomlKey).join(".")} = ${encodeTomlValue(value)}`;
    const group = members.filter((m) => isProperPrefix(inside, m.path));
    const [first, ...others] = group;
    if (first !== undefined) {
      // `{ x.a = 1, x.b = 2 }`: the first dotted member becomes `x = {…}`, the rest go with the comma before them.
      this.replaceRange(first.member.range[0], first.member.range[1], text);
      for (const { member } of others) {
        const previous = node.body[node.body.indexOf(member) - 1]!;
        this.replaceRange(this.commaAfter(previous.range[1]), member.range[1], "");
      }
      return;
    }
    const last = node.body[node.body.length - 1];
    if (last === undefined) {
      this.replaceRange(node.range[0], node.range[1], `{${text}}`);
    } else if (startsLine(this.text, last.range[0])) {
      this.replaceRange(
        last.range[1],
        last.range[1],
        `,${this.eol}${lineIndent(this.text, last.range[0])}${text}`,
      );
    } else {
      this.replaceRange(last.range[1], last.range[1], `, ${text}`);
    }
  }

  /**
   * Puts `block` where the first run of consecutive tables under the path was and removes the other
   * runs (with the blank lines before them, so that no gap is left doubled).
   */
  private replaceTables(tables: TomlLayout["tables"], block: string): void {
    const all = this.layout.tables;
    const runs: [number, number][] = [];
    for (const table of tables) {
      const last = runs[runs.length - 1];
      if (last !== undefined && all[all.indexOf(table) - 1] === tables[tables.indexOf(table) - 1]) {
        last[1] = table.end;
      } else {
        runs.push([table.start, table.end]);
      }
    }
    const [[start, end], ...others] = runs as [[number, number], ...[number, number][]];
    this.replaceLines(start, end, block);
    for (const [otherStart, otherEnd] of others) {
      let from = otherStart;
      while (from > 0 && isBlankLine(this.text, from - 1)) from = lineStart(this.text, from - 1);
      this.replaceRange(from, otherEnd, "");
    }
  }

  private deleteLines(node: AST.TOMLKeyValue): void {
    this.replaceRange(lineStart(this.text, node.range[0]), nextLineStart(this.text, node.range[1]), "");
  }

  private replaceNode(node: AST.TOMLContentNode, content: string): void {
    this.replaceRange(node.range[0], node.range[1], content);
  }

  /** Replaces whole lines with `lines` (ending in "\n"), keeping a missing final newline missing. */
  private replaceLines(start: number, end: number, lines: string): void {
    const atEndWithoutNewline = end === this.text.length && !this.text.endsWith("\n");
    const content = this.withEol(atEndWithoutNewline ? lines.slice(0, -1) : lines);
    this.replaceRange(start, end, content);
  }

  /** Inserts lines at a line start; at the end of a text without a final newline, one goes first. */
  private insertLines(offset: number, lines: string): void {
    if (offset === this.text.length && !this.text.endsWith("\n")) {
      this.replaceRange(offset, offset, this.withEol(`\n${lines.slice(0, -1)}`));
    } else {
      this.replaceRange(offset, offset, this.withEol(lines));
    }
  }

  /** Appends a block at the end of the document, after one blank line. */
  private appendAtEnd(block: string): void {
    const text = this.text;
    const endsWithBlankLine = /(^|\n)[ \t]*\r?\n$/.test(text);
    const separator = text.endsWith("\n") ? (endsWithBlankLine ? "" : "\n") : "\n\n";
    const body = text.endsWith("\n") ? block : block.slice(0, -1);
    this.replaceRange(text.length, text.length, this.withEol(`${separator}${body}`));
  }

  private replaceRange(start: number, end: number, content: string): void {
    this.edits.push({ offset: start, length: end - start, content });
  }

  private withEol(content: string): string {
    return this.eol === "\n" ? content : content.replaceAll("\n", this.eol);
  }

  /** The comma after an inline-table member, across whitespace and comments (TOML 1.1 allows both). */
  private commaAfter(offset: number): number {
    const text = this.text;
    let i = offset;
    for (;;) {
      while (/\s/.test(text.charAt(i))) i++;
      if (text.charAt(i) !== "#") break;
      i = nextLineStart(text, i);
    }
    if (text.charAt(i) !== ",") throw cannotEdit(this.path, "unexpected inline table layout");
    return i;
  }
}

function valueAt(doc: PlainObject, at: KeyPath): unknown {
  let value: unknown = doc;
  for (const segment of at) value = isPlainObject(value) ? value[segment] : undefined;
  return value;
}

/** `at` written relative to the table `tablePath` as a dotted key. */
function relativeKey(tablePath: KeyPath, at: KeyPath): string {
  return at.slice(tablePath.length).map(encodeTomlKey).join(".");
}
