/**
 * A fast path for big strict-JSON files (a `~/.claude.json` grows past a megabyte): jsonc-parser
 * needs ~100 ms to build a tree of every node, but an edit only needs the top-level members and the
 * tree of the one member kanon manages. So the top level is scanned here (strings skipped with
 * indexOf, brackets counted) and only the managed member's value goes through jsonc-parser.
 * The scanner trusts nested syntax, so it is only used on text JSON.parse has accepted.
 */
import { type Node, parseTree } from "jsonc-parser";

export interface TopLevelMember {
  key: string;
  keyOffset: number;
  keyEnd: number;
  valueOffset: number;
  valueEnd: number;
}

export interface TopLevel {
  offset: number;
  end: number;
  members: TopLevelMember[];
}

/** The members of a top-level object, or undefined when the text is not `{ "k": v, … }` in strict JSON. */
export function scanTopLevel(text: string): TopLevel | undefined {
  let i = skipWhitespace(text, 0);
  if (text.charAt(i) !== "{") return undefined;
  const offset = i;
  const members: TopLevelMember[] = [];
  i = skipWhitespace(text, i + 1);
  if (text.charAt(i) !== "}") {
    for (;;) {
      if (text.charAt(i) !== '"') return undefined;
      const keyOffset = i;
      const keyEnd = skipString(text, i);
      if (keyEnd < 0) return undefined;
      i = skipWhitespace(text, keyEnd);
      if (text.charAt(i) !== ":") return undefined;
      const valueOffset = skipWhitespace(text, i + 1);
      const valueEnd = skipValue(text, valueOffset);
      if (valueEnd < 0) return undefined;
      members.push({
        key: JSON.parse(text.slice(keyOffset, keyEnd)),
        keyOffset,
        keyEnd,
        valueOffset,
        valueEnd,
      });
      i = skipWhitespace(text, valueEnd);
      if (text.charAt(i) === "}") break;
      if (text.charAt(i) !== ",") return undefined;
      i = skipWhitespace(text, i + 1);
    }
  }
  const end = i + 1;
  return skipWhitespace(text, end) === text.length ? { offset, end, members } : undefined;
}

/**
 * A jsonc-parser style tree of the top-level object in which only the member named `key` has its
 * full subtree; the other values are leaves that know their extent and nothing else.
 */
export function partialTree(text: string, top: TopLevel, key: string): Node {
  const root: MutableNode = {
    type: "object",
    offset: top.offset,
    length: top.end - top.offset,
    children: [],
  };
  const managed = top.members.findLast((member) => member.key === key);
  for (const member of top.members) {
    const property: MutableNode = {
      type: "property",
      offset: member.keyOffset,
      length: member.valueEnd - member.keyOffset,
      parent: root,
      colonOffset: text.indexOf(":", member.keyEnd),
      children: [],
    };
    const keyNode: MutableNode = {
      type: "string",
      value: member.key,
      offset: member.keyOffset,
      length: member.keyEnd - member.keyOffset,
      parent: property,
    };
    const valueText = text.slice(member.valueOffset, member.valueEnd);
    const valueNode =
      member === managed
        ? shifted(parseTree(valueText) as Node, member.valueOffset, property)
        : {
            type: leafType(valueText),
            offset: member.valueOffset,
            length: valueText.length,
            parent: property,
          };
    property.children = [keyNode, valueNode];
    root.children!.push(property);
  }
  return root;
}

type MutableNode = { -readonly [K in keyof Node]: Node[K] };

function shifted(node: Node, delta: number, parent: Node): Node {
  const copy: MutableNode = { ...node, offset: node.offset + delta, parent };
  if (node.children) copy.children = node.children.map((child) => shifted(child, delta, copy));
  return copy;
}

function leafType(valueText: string): Node["type"] {
  switch (valueText.charAt(0)) {
    case "{":
      return "object";
    case "[":
      return "array";
    case '"':
      return "string";
    case "t":
    case "f":
      return "boolean";
    case "n":
      return "null";
    default:
      return "number";
  }
}

function skipWhitespace(text: string, offset: number): number {
  let i = offset;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** The offset after the string literal starting at `offset`, or -1. */
function skipString(text: string, offset: number): number {
  let from = offset + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The offset after the value starting at `offset`, or -1. */
function skipValue(text: string, offset: number): number {
  const first = text.charCodeAt(offset);
  if (first === 0x22) return skipString(text, offset);
  if (first !== 0x7b && first !== 0x5b) {
    let i = offset;
    while (i < text.length && !",}] \t\r\n".includes(text.charAt(i))) i++;
    return i > offset ? i : -1;
  }
  let depth = 0;
  for (let i = offset; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const after = skipString(text, i);
      if (after < 0) return -1;
      i = after - 1;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
