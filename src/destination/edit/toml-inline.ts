/**
 * Key by key edits inside inline tables (`env = { A = "1", B = "2" }`, dotted members such as
 * `{ env.A = "1" }` too): a changed value is replaced where it is, a removed member goes with its
 * comma, new members go after the last member kept; every other member keeps its bytes.
 */
import { deepEqual, isPlainObject, type PlainObject, sortedKeys } from "../../formats/values.js";
import { cannotEdit } from "./errors.js";
import { lineIndent, startsLine } from "./text.js";
import { type AST, isPrefix, isProperPrefix, type KeyPath, keyPath } from "./toml-layout.js";
import type { TomlText } from "./toml-text.js";

/** What goes out of and into one inline table, applied together once every key is decided. */
interface Pending {
  removed: Set<AST.TOMLKeyValue>;
  added: string[];
}

export class InlineEdits {
  private readonly pending = new Map<AST.TOMLInlineTable, Pending>();

  constructor(private readonly t: TomlText) {}

  /** Gives the table at `rel` inside `node` (which holds `before` there) the members of `after`. */
  setTable(node: AST.TOMLInlineTable, rel: KeyPath, before: PlainObject, after: PlainObject): void {
    for (const key of keysOf(before, after)) this.setKey(node, rel, key, own(before, key), own(after, key));
  }

  setKey(node: AST.TOMLInlineTable, rel: KeyPath, key: string, before: unknown, after: unknown): void {
    if (deepEqual(before, after)) return;
    const [table, inside] = this.descend(node, rel);
    const sub = [...inside, key];
    const members = table.body.map((member) => ({ member, path: keyPath(member.key) }));
    const pending = this.pendingFor(table);
    const exact = members.find((m) => m.path.length === sub.length && isPrefix(m.path, sub));
    if (exact !== undefined) {
      const value = exact.member.value;
      if (after === undefined) pending.removed.add(exact.member);
      else if (isPlainObject(before) && isPlainObject(after) && value.type === "TOMLInlineTable")
        this.setTable(value, [], before, after);
      else this.t.replaceNode(value, this.t.value(after));
      return;
    }
    const dotted = members.filter((m) => isProperPrefix(sub, m.path));
    if (dotted.length > 0 && isPlainObject(before) && isPlainObject(after)) {
      this.setTable(table, sub, before, after);
      return;
    }
    for (const { member } of dotted) pending.removed.add(member);
    if (after !== undefined)
      pending.added.push(`${sub.map((k) => this.t.key(k)).join(".")} = ${this.t.value(after)}`);
  }

  /** Applies the removals and additions of every inline table edited. */
  flush(): void {
    for (const [node, pending] of this.pending) this.flushTable(node, pending);
    this.pending.clear();
  }

  /** The innermost inline table that holds `rel` (`{ github = { env = {…} } }`), and `rel` inside it. */
  private descend(node: AST.TOMLInlineTable, rel: KeyPath): [AST.TOMLInlineTable, KeyPath] {
    for (const member of node.body) {
      const path = keyPath(member.key);
      if (!isPrefix(path, rel)) continue;
      if (member.value.type !== "TOMLInlineTable")
        throw cannotEdit(this.t.path, `${path.join(".")} is not a table`);
      return this.descend(member.value, rel.slice(path.length));
    }
    return [node, rel];
  }

  private pendingFor(node: AST.TOMLInlineTable): Pending {
    let pending = this.pending.get(node);
    if (pending === undefined) {
      pending = { removed: new Set(), added: [] };
      this.pending.set(node, pending);
    }
    return pending;
  }

  private flushTable(node: AST.TOMLInlineTable, { removed, added }: Pending): void {
    const body = node.body;
    const kept = body.filter((member) => !removed.has(member));
    if (kept.length === 0) {
      if (body.length > 0 || added.length > 0) this.t.replaceNode(node, `{${added.join(", ")}}`);
      return;
    }
    // Each run of removed members goes up to the member after it, or, at the end, from the comma
    // after the last member kept (a trailing comma stays).
    for (let i = 0; i < body.length; i++) {
      if (!removed.has(body[i]!)) continue;
      let j = i;
      while (j + 1 < body.length && removed.has(body[j + 1]!)) j++;
      const next = body[j + 1];
      if (next !== undefined) this.t.replaceRange(body[i]!.range[0], next.range[0], "");
      else this.t.replaceRange(this.t.commaAfter(body[i - 1]!.range[1]), body[j]!.range[1], "");
      i = j;
    }
    if (added.length === 0) return;
    const last = kept[kept.length - 1]!;
    const separator = startsLine(this.t.text, last.range[0])
      ? `,${this.t.eol}${lineIndent(this.t.text, last.range[0])}`
      : ", ";
    this.t.replaceRange(last.range[1], last.range[1], added.map((text) => `${separator}${text}`).join(""));
  }
}

/** The keys of `before` in their order, then those only `after` has, sorted as go-toml writes them. */
export function keysOf(before: PlainObject, after: PlainObject): string[] {
  return [...Object.keys(before), ...sortedKeys(after).filter((key) => !Object.hasOwn(before, key))];
}

export function own(table: PlainObject, key: string): unknown {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
