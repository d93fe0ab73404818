/**
 * Layout-preserving edits of a JSON/JSONC document parsed by jsonc-parser. Only the text of values
 * that change is touched: objects are merged member by member, equal-length arrays item by item,
 * anything else is re-rendered in place. New members go after the last kept member, formatted like
 * it (same indentation, separators and trailing-comma habit); removed members take their line along.
 */
import type { Node } from "jsonc-parser";
import { encodeJsonString, encodeJsonValue } from "../../formats/json.js";
import { deepEqual, isPlainObject, type PlainObject, setOwn, sortedKeys } from "../../formats/values.js";
import {
  detectEol,
  lineIndent,
  lineStart,
  nextLineStart,
  skipSpaces,
  startsLine,
  type TextEdit,
} from "./text.js";

type Separators = { colon: string; comma: string };

export class JsonEditor {
  readonly edits: TextEdit[] = [];
  private readonly eol: string;
  private readonly unit: string;

  constructor(
    private readonly text: string,
    root: Node,
  ) {
    this.eol = detectEol(text);
    this.unit = detectIndentUnit(text, root);
  }

  /** Makes the value at `node` equal `desired`, changing as little text as possible. */
  setValue(node: Node, desired: unknown): void {
    if (deepEqual(nodeValue(node), desired)) return;
    if (node.type === "object" && isPlainObject(desired)) {
      this.setMembers(node, desired, true);
      return;
    }
    const items = node.children ?? [];
    if (node.type === "array" && Array.isArray(desired) && items.length === desired.length) {
      for (const [i, item] of items.entries()) this.setValue(item, desired[i]);
      return;
    }
    if (node.type === "array" && Array.isArray(desired) && this.spliceArray(node, desired)) return;
    this.replace(node, desired);
  }

  /**
   * An array that becomes some of its items (in order) followed by new ones: the removed items'
   * text goes, the new items are appended after the last kept one, formatted like it, and the kept
   * items stay byte for byte. False when `desired` is not of that shape.
   */
  private spliceArray(node: Node, desired: unknown[]): boolean {
    const items = node.children ?? [];
    const kept = new Set<number>();
    let next = 0;
    let j = 0;
    for (; j < desired.length; j++) {
      let k = next;
      while (k < items.length && !deepEqual(nodeValue(items[k]!), desired[j])) k++;
      if (k === items.length) break;
      kept.add(k);
      next = k + 1;
    }
    if (kept.size === 0) return false;
    const appended = desired.slice(j);
    const lastKept = items[Math.max(...kept)]!;
    const lastKeptEnd = lastKept.offset + lastKept.length;
    const startOf = (item: Node) =>
      startsLine(this.text, item.offset) ? lineStart(this.text, item.offset) : item.offset;
    for (const [i, item] of items.entries()) {
      if (kept.has(i) || item.offset > lastKept.offset) continue;
      // A removed item before a kept one: it goes with everything up to the next item.
      this.delete(startOf(item), startOf(items[i + 1]!));
    }
    const lastItem = items[items.length - 1]!;
    const tailEnd = lastItem === lastKept ? lastKeptEnd : lastItem.offset + lastItem.length;
    let tail = "";
    if (appended.length > 0) {
      const ownLine = startsLine(this.text, lastKept.offset);
      const indent = ownLine ? lineIndent(this.text, lastKept.offset) : "";
      const separator = ownLine ? `,${this.eol}${indent}` : ", ";
      const inline = ownLine ? undefined : this.separatorsOf(node);
      tail = appended.map((value) => `${separator}${this.render(value, indent, inline)}`).join("");
    }
    if (tail !== "" || tailEnd !== lastKeptEnd)
      this.edits.push({ offset: lastKeptEnd, length: tailEnd - lastKeptEnd, content: tail });
    return true;
  }

  /** Gives each member of `desired` its value in `object`; with `removeOthers`, drops the rest. */
  setMembers(object: Node, desired: PlainObject, removeOthers: boolean): void {
    const members = object.children ?? [];
    const lastIndexOf = new Map<string, number>();
    for (const [i, member] of members.entries()) lastIndexOf.set(memberKey(member), i);
    // With duplicate keys only the last counts; removing around shadowed copies is not worth the risk.
    if (removeOthers && lastIndexOf.size !== members.length) {
      this.replace(object, desired);
      return;
    }
    const removed = new Set(removeOthers ? members.filter((m) => !Object.hasOwn(desired, memberKey(m))) : []);
    const added = sortedKeys(desired).filter((key) => !lastIndexOf.has(key));
    if (removed.size === members.length) {
      if (members.length === 0 && added.length > 0 && this.addToCommentedEmpty(object, added, desired))
        return;
      if (members.length > 0 || added.length > 0) this.replace(object, desired);
      return;
    }
    for (const [key, index] of lastIndexOf) {
      if (Object.hasOwn(desired, key)) this.setValue(memberValue(members[index]!), desired[key]);
    }
    if (removed.size > 0 || added.length > 0) {
      this.removeAndAdd(
        object,
        removed,
        added.map((key) => [key, desired[key]]),
      );
    }
  }

  private removeAndAdd(object: Node, removed: Set<Node>, added: [string, unknown][]): void {
    const members = object.children ?? [];
    const anchorIndex = members.findLastIndex((m) => !removed.has(m));
    const anchor = members[anchorIndex]!;
    const anchorEnd = anchor.offset + anchor.length;
    const anchorComma = this.commaAfter(anchor);
    const trailingComma = this.commaAfter(members[members.length - 1]!) !== undefined;

    for (const member of members) if (removed.has(member)) this.deleteMember(member);

    // The anchor's comma separated it from removed members that follow; without a trailing-comma
    // habit it goes, unless new members are added on lines of their own after it (below).
    const firstTail = members[anchorIndex + 1];
    const dropAnchorComma = () => {
      if (anchorComma === undefined || firstTail === undefined || trailingComma) return;
      const compact = !startsLine(this.text, firstTail.offset);
      this.delete(anchorComma, compact ? skipSpaces(this.text, anchorComma + 1) : anchorComma + 1);
    };
    if (added.length === 0) {
      dropAnchorComma();
      return;
    }

    if (startsLine(this.text, anchor.offset)) {
      const indent = lineIndent(this.text, anchor.offset);
      const colon = this.colonOf(anchor) ?? ": ";
      // When every sibling is a compact one-line object or array, so is the newcomer (not at the top
      // level, where members are unrelated settings).
      const kept = members.filter((member) => !removed.has(member)).map(memberValue);
      const compact =
        object.parent !== undefined &&
        kept.every((value) => (value.children?.length ?? 0) > 0 && this.isOneLine(value))
          ? this.separatorsOf(memberValue(anchor))
          : undefined;
      const render = ([key, value]: [string, unknown]) =>
        `${indent}${encodeJsonString(key)}${colon}${this.render(value, indent, compact)}`;
      const afterLine = this.cleanLineEnd(anchorComma !== undefined ? anchorComma + 1 : anchorEnd);
      if (afterLine !== undefined) {
        // New members get lines of their own after the anchor's line, so its trailing comment stays put.
        if (anchorComma === undefined) this.insert(anchorEnd, ",");
        const lines = added.map((entry, i) => {
          const comma = i < added.length - 1 || trailingComma ? "," : "";
          return `${render(entry)}${comma}${this.eol}`;
        });
        this.insert(afterLine, lines.join(""));
        return;
      }
      this.insert(anchorEnd, added.map((entry) => `,${this.eol}${render(entry)}`).join(""));
    } else {
      const separators = this.separatorsOf(object);
      const rendered = added.map(
        ([key, value]) =>
          `${separators.comma}${encodeJsonString(key)}${separators.colon}${this.render(value, "", separators)}`,
      );
      this.insert(anchorEnd, rendered.join(""));
    }
    dropAnchorComma();
  }

  /**
   * An empty object that holds only comments (`"mcp": {\n  // servers go here\n}`): new members go
   * on lines before its closing brace so that the comments stay. False when it is not laid out so.
   */
  private addToCommentedEmpty(object: Node, added: string[], desired: PlainObject): boolean {
    const close = object.offset + object.length - 1;
    const inside = this.text.slice(object.offset + 1, close);
    if (inside.trim() === "" || !startsLine(this.text, close)) return false;
    const indent = lineIndent(this.text, close) + this.unit;
    const lines = added.map((key, i) => {
      const comma = i < added.length - 1 ? "," : "";
      return `${indent}${encodeJsonString(key)}: ${this.render(desired[key], indent)}${comma}${this.eol}`;
    });
    this.insert(lineStart(this.text, close), lines.join(""));
    return true;
  }

  /** Removes a member with the comma after it, and its whole line when it has one to itself. */
  private deleteMember(member: Node): void {
    const comma = this.commaAfter(member);
    const end = comma !== undefined ? comma + 1 : member.offset + member.length;
    if (startsLine(this.text, member.offset)) {
      const afterLine = this.cleanLineEnd(end);
      if (afterLine !== undefined) {
        this.delete(lineStart(this.text, member.offset), afterLine);
        return;
      }
    }
    this.delete(member.offset, skipSpaces(this.text, end));
  }

  private replace(node: Node, value: unknown): void {
    const owner = node.parent?.type === "property" ? node.parent : node;
    // A value inside a one-line container, or that was itself written on one line, stays on one line.
    const container = owner.parent;
    const oneLine =
      container && this.isOneLine(container)
        ? container
        : (node.children?.length ?? 0) > 0 && this.isOneLine(node)
          ? node
          : undefined;
    const inline = oneLine && this.separatorsOf(oneLine);
    const content = this.render(value, lineIndent(this.text, owner.offset), inline);
    this.edits.push({ offset: node.offset, length: node.length, content });
  }

  private render(value: unknown, prefix: string, inline?: Separators): string {
    return encodeJsonValue(value, { prefix, unit: this.unit, eol: this.eol, inline });
  }

  private insert(offset: number, content: string): void {
    this.edits.push({ offset, length: 0, content });
  }

  private delete(start: number, end: number): void {
    this.edits.push({ offset: start, length: end - start, content: "" });
  }

  private isOneLine(node: Node): boolean {
    const lf = this.text.indexOf("\n", node.offset);
    return lf < 0 || lf >= node.offset + node.length;
  }

  /** The text between a member's key and value when it is plain (`: `, `:`), else undefined. */
  private colonOf(member: Node): string | undefined {
    const [key, value] = member.children ?? [];
    if (!key || !value) return undefined;
    const between = this.text.slice(key.offset + key.length, value.offset);
    return /^[ \t]*:[ \t]*$/.test(between) ? between : undefined;
  }

  /** Separators of a one-line object or array, copied from its own text where it shows them. */
  private separatorsOf(container: Node): Separators {
    const [first, second] = container.children ?? [];
    const colon = (first?.type === "property" ? this.colonOf(first) : undefined) ?? ": ";
    let comma = ", ";
    if (first && second) {
      const between = this.text.slice(first.offset + first.length, second.offset);
      if (/^[ \t]*,[ \t]*$/.test(between)) comma = between;
    } else if (first && !/[ \t]/.test(this.text.charAt(first.offset - 1)) && !colon.endsWith(" ")) {
      comma = ",";
    }
    return { colon, comma };
  }

  /** Offset of the comma that follows a value or member, across whitespace and comments. */
  private commaAfter(node: Node): number | undefined {
    const text = this.text;
    let i = node.offset + node.length;
    for (;;) {
      while (i < text.length && /\s/.test(text.charAt(i))) i++;
      if (text.startsWith("//", i)) {
        i = nextLineStart(text, i);
      } else if (text.startsWith("/*", i)) {
        const close = text.indexOf("*/", i + 2);
        i = close < 0 ? text.length : close + 2;
      } else {
        return text.charAt(i) === "," ? i : undefined;
      }
    }
  }

  /**
   * When only spaces and comments follow `offset` on its line, the start of the next line (or the
   * end of the text); otherwise undefined.
   */
  private cleanLineEnd(offset: number): number | undefined {
    const text = this.text;
    let i = offset;
    for (;;) {
      i = skipSpaces(text, i);
      if (text.startsWith("//", i) || text.startsWith("\n", i) || text.startsWith("\r\n", i)) {
        return nextLineStart(text, i);
      }
      if (i >= text.length) return i;
      if (!text.startsWith("/*", i)) return undefined;
      const close = text.indexOf("*/", i + 2);
      if (close < 0 || text.slice(i, close).includes("\n")) return undefined;
      i = close + 2;
    }
  }
}

/** The value a node stands for (last duplicate key wins, as with JSON.parse). */
export function nodeValue(node: Node): unknown {
  if (node.type === "object") {
    const object: PlainObject = {};
    for (const member of node.children ?? [])
      setOwn(object, memberKey(member), nodeValue(memberValue(member)));
    return object;
  }
  if (node.type === "array") return (node.children ?? []).map(nodeValue);
  return node.value;
}

export function memberKey(member: Node): string {
  return member.children![0]!.value as string;
}

export function memberValue(member: Node): Node {
  return member.children![1]!;
}

/** The last member named `key`: the one that counts when a key is repeated. */
export function findMember(object: Node, key: string): Node | undefined {
  return (object.children ?? []).findLast((member) => memberKey(member) === key);
}

/** The document's indentation step: that of the top-level members, else of any indented line. */
function detectIndentUnit(text: string, root: Node): string {
  const first = root.children?.[0];
  if (first && startsLine(text, first.offset)) {
    const indent = lineIndent(text, first.offset);
    const rootIndent = lineIndent(text, root.offset);
    if (indent.length > rootIndent.length && indent.startsWith(rootIndent))
      return indent.slice(rootIndent.length);
  }
  return /\n([ \t]+)["{[\]}]/.exec(text)?.[1] ?? "  ";
}
