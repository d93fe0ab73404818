/**
 * The `yaml` library's document nodes, with their positions, built from js-yaml's parse events:
 * three to four times faster than the library's own parse on the hostile megabytes of
 * `npm run bench`, so that reporting what is wrong in a large kanon.yaml stays cheap.
 *
 * js-yaml reports each node it composes as an `open` event (where reading starts) and a `close`
 * event (its kind, value, tag and anchor; where reading stopped), properly nested. From those and
 * the text this module rebuilds what the yaml library would have produced for the same document:
 * maps of pairs, sequences, scalars with their source and style, aliases with their anchored node,
 * and each node's start offset. A rebuilt tree that does not match js-yaml's own value (some syntax
 * read differently) is refused and the caller parses with the yaml library instead.
 */
import * as jsYaml from "js-yaml";
import { Alias, LineCounter, type Node, Pair, Scalar, YAMLMap, YAMLSeq } from "yaml";
import { MAX_NESTING, MAX_VALUES } from "./limits.js";

/** What js-yaml tells its listener (its `State`; `tag` and `anchor` are missing from the type definitions). */
interface Events {
  input: string;
  position: number;
  kind: string | null;
  result: unknown;
  tag: string | null;
  anchor: string | null;
}

/**
 * One composeNode call of js-yaml. Its items are assembled as each closes (so that frames die
 * young): the kind of collection is known from the text when the first item opens.
 */
class Frame {
  close = 0;
  kind: string | null = null;
  result: unknown = null;
  anchor: string | null = null;
  /** The rebuilt node; an empty scalar for an attempt that read nothing. */
  node: Node | null = null;
  /** Read nothing at all (no content, tag or anchor). */
  empty = false;
  /** What the text says this collection is, once an item opens. */
  shape: "map" | "flow-seq" | "block-seq" | null = null;
  first: Frame | null = null;
  count = 0;
  /** Map and flow sequence entries so far; for a block sequence, its items with their offsets. */
  items: unknown[] | null = null;
  /** A key whose value is still to come. */
  key: Frame | null = null;
  opens: number[] | null = null;
  closes: number[] | null = null;
  constructor(readonly open: number) {}
}

export interface FastParse {
  /** The single document's root node. */
  contents: Node | null;
  lineCounter: LineCounter;
  /** Each alias's anchored node. */
  aliases: Map<Node, Node | null>;
  /**
   * False when the yaml library may read the text differently: a line break that is a lone CR
   * (js-yaml ends lines there, the library does not), a key that is a list or mapping, or a
   * document that is one quoted or block scalar.
   */
  exact: boolean;
}

/** The text is not one document the rebuild can vouch for; `at` is where, when known. */
export class NotRebuilt extends Error {
  constructor(
    readonly reason: "syntax" | "documents" | "nesting" | "values" | "mismatch",
    message: string,
    readonly at = 0,
  ) {
    super(message);
  }
}

const isSpace = (c: number) => c === 0x20 || c === 0x09;
const isBreak = (c: number) => c === 0x0a || c === 0x0d;
const isFlowIndicator = (c: number) => c === 0x2c || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d;

/**
 * The library's nodes, made without their constructors: each defines properties one by one (Alias's
 * a setter, several microseconds a node), most of the cost of a large document. The library tells
 * its node types apart by this symbol (isScalar, isMap, …) and by prototype (instanceof).
 */
const NODE_TYPE = Symbol.for("yaml.node.type");
function made<T>(prototype: T, type: symbol, start: number): T {
  const node = Object.create(prototype as object) as Record<symbol | string, unknown>;
  node[NODE_TYPE] = type;
  if (start >= 0) node.range = [start, start, start];
  return node as T;
}
const [SCALAR, MAP, SEQ, PAIR, ALIAS] = ["scalar", "map", "seq", "pair", "alias"].map((t) =>
  Symbol.for(`yaml.${t}`),
);
function scalarAt(start: number, value: unknown, plain: boolean): Scalar {
  const node = made(Scalar.prototype, SCALAR!, start);
  node.value = value;
  if (plain) node.type = "PLAIN";
  return node;
}
function mapAt(start: number, items: Pair[]): YAMLMap {
  const node = made(YAMLMap.prototype, MAP!, start);
  node.items = items;
  return node;
}
function seqAt(start: number, items: unknown[]): YAMLSeq {
  const node = made(YAMLSeq.prototype, SEQ!, start);
  node.items = items;
  return node;
}
function aliasAt(start: number, source: string): Alias {
  const node = made(Alias.prototype, ALIAS!, start);
  node.source = source;
  return node;
}
function pairOf(key: Node | null, value: Node | null): Pair {
  const pair = made(Pair.prototype, PAIR!, -1);
  pair.key = key;
  pair.value = value;
  return pair;
}

export function lineCounterOf(text: string): LineCounter {
  const lc = new LineCounter();
  lc.addNewLine(0);
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lc.addNewLine(i + 1);
  return lc;
}

/**
 * Parses `text` (one document, core schema, duplicate keys and `<<` kept as written: the decoder
 * reports and applies them) into yaml library nodes, or throws NotRebuilt.
 */
export function parseFast(text: string): FastParse {
  // js-yaml drops a leading byte order mark: its offsets are one less than the text's.
  const shift = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let input = "";
  const root = new Frame(0);
  const stack: Frame[] = [root];
  const documents: Frame[] = [];
  let opened = 0;
  const anchors = new Map<string, Frame>();
  const pendingAliases: [Alias, Frame | undefined][] = [];

  const skipSeparation = (p: number): number => {
    for (;;) {
      const c = input.charCodeAt(p);
      if (isSpace(c) || isBreak(c)) p++;
      else if (c === 0x23) {
        while (p < input.length && !isBreak(input.charCodeAt(p))) p++;
      } else return p;
    }
  };
  /** Where a node's content starts: past spaces, comments and its tag and anchor. */
  const contentStart = (p: number): number => {
    for (;;) {
      p = skipSeparation(p);
      const c = input.charCodeAt(p);
      if (c !== 0x21 && c !== 0x26) return p;
      while (p < input.length) {
        const d = input.charCodeAt(p);
        if (isSpace(d) || isBreak(d) || (c === 0x26 && isFlowIndicator(d))) break;
        p++;
      }
    }
  };
  /**
   * Where the yaml library puts an empty value: after the indicator (or the value's tag and anchor)
   * and the spaces that follow on its line.
   */
  const emptyAt = (p: number): number => {
    for (let q = skipSeparation(p); ; q = skipSeparation(p)) {
      const c = input.charCodeAt(q);
      if (c !== 0x21 && c !== 0x26) break;
      for (p = q; p < input.length; p++) {
        const d = input.charCodeAt(p);
        if (isSpace(d) || isBreak(d) || (c === 0x26 && isFlowIndicator(d))) break;
      }
    }
    while (isSpace(input.charCodeAt(p))) p++;
    return p;
  };
  const colonAfter = (p: number) => input.charCodeAt(skipSeparation(p)) === 0x3a;

  const finish = (f: Frame, s: Events) => {
    f.close = s.position;
    f.kind = s.kind;
    f.result = s.result;
    if (s.anchor !== null) {
      f.anchor = s.anchor;
      anchors.set(s.anchor, f);
    }
    const only = f.count === 1 ? f.first : null;
    // A block mapping attempt that read one node and no ":" keeps that node as its result.
    if (only && only.kind !== null && only.kind === f.kind && only.result === f.result) {
      f.node = only.node;
      return;
    }
    const start = contentStart(f.open);
    const first = input.charCodeAt(start);
    if (f.kind === null && first === 0x2a && f.close > start) {
      let end = start + 1;
      while (end < input.length) {
        const c = input.charCodeAt(end);
        if (isSpace(c) || isBreak(c) || isFlowIndicator(c)) break;
        end++;
      }
      const alias = aliasAt(start + shift, input.slice(start + 1, end));
      pendingAliases.push([alias, anchors.get(alias.source)]);
      f.node = alias;
    } else if (f.kind === "mapping") f.node = mapAt(start + shift, mapping(f));
    else if (f.kind === "sequence") f.node = seqAt(start + shift, sequence(f, start));
    else if (f.kind === "scalar" || s.tag !== null || s.anchor !== null) {
      const value = typeof f.result === "object" ? null : f.result;
      const plain = first !== 0x22 && first !== 0x27 && first !== 0x7c && first !== 0x3e;
      // Only a tag or an anchor: no content to start at.
      const scalar = scalarAt((f.kind === null ? emptyAt(f.open) : start) + shift, value, plain);
      if (value !== null && typeof value !== "string") {
        scalar.source = plain ? input.slice(start, Math.max(start, f.close)).trimEnd() : String(value);
      }
      f.node = scalar;
    } else {
      f.empty = true;
      f.node = scalarAt(emptyAt(f.open) + shift, null, true);
    }
  };

  /** An item of `f` has closed: into its entries. */
  const add = (f: Frame, item: Frame) => {
    if (f.count++ === 0) f.first = item;
    f.items ??= [];
    const items = f.items;
    if (f.shape === "block-seq") {
      items.push(item.node);
      f.opens!.push(item.open);
      f.closes!.push(item.close);
      return;
    }
    if (f.key) {
      const pair = pairOf(f.key.node, item.node);
      // `[a: b]`: a single-pair mapping, as the yaml library reads it.
      items.push(f.shape === "map" ? pair : mapAt(contentStart(f.key.open) + shift, [pair]));
      f.key = null;
    } else if (colonAfter(item.close)) f.key = item;
    else if (f.shape === "flow-seq") items.push(item.node);
    // A key attempt that read nothing ends a block mapping; `?` with nothing is an empty key.
    else if (!item.empty || input.charCodeAt(item.open - 1) === 0x3f) items.push(pairOf(item.node, null));
  };

  const mapping = (f: Frame): Pair[] => {
    if (f.shape !== "map" && f.shape !== null)
      throw new NotRebuilt("mismatch", "a mapping read as a sequence");
    const items = (f.items ?? []) as Pair[];
    if (f.key) items.push(pairOf(f.key.node, null));
    return items;
  };

  const sequence = (f: Frame, start: number): unknown[] => {
    const items = f.items ?? [];
    if (f.shape === "flow-seq" || f.shape === null) return items;
    if (f.shape !== "block-seq") throw new NotRebuilt("mismatch", "a sequence read as a mapping");
    // A block sequence item that is only "-" has no event: place it at its dash, found between
    // the items that have one (each item's dash is the last one before it, at the sequence's column).
    const length = Array.isArray(f.result) ? f.result.length : -1;
    if (length === items.length) return items;
    const column = start - (input.lastIndexOf("\n", start - 1) + 1);
    const dashes = (from: number, to: number): number[] => {
      const found: number[] = [];
      let line = input.lastIndexOf("\n", from - 1) + 1;
      while (line < to) {
        const at = line + column;
        if (at >= from && at < to && input.charCodeAt(at) === 0x2d && /^ *$/.test(input.slice(line, at))) {
          const next = input.charCodeAt(at + 1);
          if (isSpace(next) || isBreak(next) || next === 0) found.push(at);
        }
        const nl = input.indexOf("\n", line);
        if (nl < 0) break;
        line = nl + 1;
      }
      return found;
    };
    const nullAt = (dash: number) => scalarAt(emptyAt(dash + 1) + shift, null, true);
    const all: unknown[] = [];
    let from = start;
    items.forEach((item, i) => {
      for (const d of dashes(from, f.opens![i]!).slice(0, -1)) all.push(nullAt(d));
      all.push(item);
      from = f.closes![i]!;
    });
    for (const d of dashes(from, f.close + 1)) all.push(nullAt(d));
    if (all.length !== length) throw new NotRebuilt("mismatch", "block sequence items");
    return all;
  };

  const listener = (event: "open" | "close", s: Events) => {
    if (event === "open") {
      input = s.input;
      const parent = stack[stack.length - 1]!;
      if (parent !== root && parent.count === 0 && parent.shape === null) {
        // A collection's anchor is known when its first item opens (aliases inside may refer to it).
        if (s.anchor !== null && parent.anchor === null) {
          parent.anchor = s.anchor;
          anchors.set(s.anchor, parent);
        }
        const at = contentStart(parent.open);
        const c = input.charCodeAt(at);
        const next = input.charCodeAt(at + 1);
        // (An item opens past the "[" or "- "; a key opens where it starts, "[a]: b" included.)
        const inside = s.position > at;
        parent.shape =
          c === 0x5b && inside
            ? "flow-seq"
            : c === 0x2d && inside && (isSpace(next) || isBreak(next) || next === 0)
              ? "block-seq"
              : "map";
        if (parent.shape === "block-seq") {
          parent.opens = [];
          parent.closes = [];
        }
      }
      if (stack.length > MAX_NESTING)
        throw new NotRebuilt("nesting", "nested too deeply", contentStart(s.position) + shift);
      if (++opened > MAX_VALUES)
        throw new NotRebuilt("values", "too many values", contentStart(s.position) + shift);
      stack.push(new Frame(s.position));
    } else {
      const f = stack.pop()!;
      finish(f, s);
      // What is left of the frame is its node: let its items' frames go.
      f.first = null;
      f.opens = f.closes = null;
      const parent = stack[stack.length - 1]!;
      if (parent === root) documents.push(f);
      else add(parent, f);
    }
  };

  let values: unknown[];
  try {
    values = jsYaml.loadAll(text, undefined, {
      schema: jsYaml.CORE_SCHEMA,
      // Duplicate keys are reported by the decoder, with every other error.
      json: true,
      listener: listener as unknown as jsYaml.LoadOptions["listener"],
    });
  } catch (e) {
    if (e instanceof NotRebuilt) throw e;
    if (e instanceof jsYaml.YAMLException && e.mark)
      throw new NotRebuilt("syntax", e.reason, e.mark.position + shift);
    if (e instanceof RangeError) throw new NotRebuilt("nesting", "nested too deeply");
    throw e;
  }
  if (documents.length > 1) {
    // The yaml library reports the "---" that starts the second document.
    const second = documents[1]!.open;
    const marker = input.lastIndexOf("\n---", second);
    throw new NotRebuilt("documents", "", (marker >= documents[0]!.close - 1 ? marker + 1 : second) + shift);
  }
  const contents = documents[0]?.node ?? null;
  const aliases = new Map<Node, Node | null>();
  for (const [alias, target] of pendingAliases) aliases.set(alias, target?.node ?? null);
  // js-yaml keeps the last line break of a block scalar at the root (`>-` before lines starting in
  // column 0) that the library and the YAML spec strip; such a file is no kanon.yaml anyway.
  const quotedOrBlockRoot =
    contents !== null &&
    (contents as unknown as Record<symbol, unknown>)[NODE_TYPE] === SCALAR &&
    (contents as Scalar).type !== "PLAIN";
  const exact =
    (contents ? verify(contents, values[0], aliases) : true) && !/\r(?!\n)/.test(text) && !quotedOrBlockRoot;
  return {
    contents: documents[0]?.empty ? null : contents,
    lineCounter: lineCounterOf(text),
    aliases,
    exact,
  };
}

/**
 * Throws unless the rebuilt nodes hold exactly js-yaml's value: each node is compared once (aliased
 * values are shared in both), so this costs one pass however the document uses aliases. Returns
 * false when a mapping has a key that is a list or mapping (js-yaml turns it into a string; its
 * pairs are compared by the other keys only).
 */
function verify(node: Node, value: unknown, aliases: Map<Node, Node | null>): boolean {
  let exact = true;
  // Only an anchored node can be reached twice: the value it had the first time.
  const shared = new Set(aliases.values());
  const seen = new Map<Node, unknown>();
  const fail = () => {
    throw new NotRebuilt("mismatch", "rebuilt nodes differ from the parse");
  };
  const check = (n: Node | null, v: unknown): void => {
    if (n instanceof Alias) n = aliases.get(n) ?? null;
    if (n === null) {
      if (v !== null && v !== undefined) fail();
      return;
    }
    if (shared.has(n)) {
      if (seen.has(n)) {
        if (seen.get(n) !== v && !(Number.isNaN(v) && Number.isNaN(seen.get(n)))) fail();
        return;
      }
      seen.set(n, v);
    }
    if (n instanceof Scalar) {
      if (typeof v === "object" && v !== null) fail();
      else if (n.value !== v && !(Number.isNaN(v) && Number.isNaN(n.value))) fail();
    } else if (n instanceof YAMLSeq) {
      if (!Array.isArray(v) || v.length !== n.items.length) fail();
      for (let i = 0; i < n.items.length; i++) check(n.items[i] as Node | null, (v as unknown[])[i]);
    } else if (n instanceof YAMLMap) {
      if (typeof v !== "object" || v === null || Array.isArray(v)) fail();
      const object = v as Record<string, unknown>;
      const keys = new Set<string>();
      let complex = false;
      // The last of duplicate keys is the one js-yaml kept.
      for (let i = n.items.length - 1; i >= 0; i--) {
        const { key, value } = n.items[i]!;
        const k = key instanceof Alias ? (aliases.get(key) ?? null) : (key as Node | null);
        if (!(k instanceof Scalar)) {
          complex = true;
          continue;
        }
        const name = String(k.value);
        if (keys.has(name)) continue;
        keys.add(name);
        if (!Object.hasOwn(object, name)) fail();
        check(value as Node | null, object[name]);
      }
      if (complex) exact = false;
      else if (Object.keys(object).length !== keys.size) fail();
    }
  };
  check(node, value);
  return exact;
}
