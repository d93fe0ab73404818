/**
 * kanon.yaml as most homes write it — block mappings and sequences, plain and quoted one-line
 * scalars, one-line flow sequences of scalars, comments — read in one pass over its lines, for the
 * value js-yaml's core schema gives it. Anything else (anchors, tags, block or multi-line scalars,
 * escapes, flow mappings, merge keys, duplicate keys, numbers other than plain integers…) is BAIL:
 * js-yaml reads that document (decode.ts). js-yaml's first run is a good part of a small command's
 * start-up; a test compares the two on generated documents.
 */
import { MAX_NESTING, MAX_VALUES } from "./limits.js";

export const BAIL: unique symbol = Symbol("not simple YAML");

interface Line {
  indent: number;
  /** The line without its indentation (and for a sequence item read in place, without its `- `). */
  text: string;
}

/** A mapping key written plainly, that js-yaml keeps as written. */
const KEY = /^([A-Za-z_$][\w.$/-]*):(?: |$)/;
const INTEGER = /^[-+]?(?:0|[1-9][0-9]*)$/;
/** Plain scalars that may be numbers or special floats (`.inf`): only plain integers are read here. */
const NUMERIC = /^[-+]?[.0-9]/;
const NULLS = new Set(["", "~", "null", "Null", "NULL"]);
const BOOLEANS = new Map([
  ["true", true],
  ["True", true],
  ["TRUE", true],
  ["false", false],
  ["False", false],
  ["FALSE", false],
]);

class Bail extends Error {}
const bail = (): never => {
  throw new Bail();
};

export function parseSimpleYaml(text: string): unknown {
  if (/[\t\r\uFEFF]/.test(text)) return BAIL;
  const reader = new Reader(text);
  try {
    const first = reader.line(0);
    if (!first) return BAIL;
    const value = reader.block(first.indent, 1);
    return reader.line(reader.at) ? BAIL : value;
  } catch (e) {
    if (e instanceof Bail) return BAIL;
    throw e;
  }
}

const isItem = (line: Line) => line.text === "-" || line.text.startsWith("- ");

class Reader {
  /** The current line. */
  at = 0;
  private values = 0;
  /**
   * The lines with content read so far: they are read as the parse reaches them, so a document it
   * leaves early is not read to its end.
   */
  private readonly lines: Line[] = [];
  private next = 0;
  constructor(private readonly text: string) {}

  line(i: number): Line | undefined {
    const { text, lines } = this;
    while (lines.length <= i && this.next <= text.length) {
      let end = text.indexOf("\n", this.next);
      if (end < 0) end = text.length;
      const raw = text.slice(this.next, end);
      this.next = end + 1;
      const body = raw.trimStart();
      if (body === "" || body.startsWith("#")) continue;
      const indent = raw.length - body.length;
      if (indent === 0 && (body.startsWith("---") || body.startsWith("...") || body.startsWith("%"))) bail();
      lines.push({ indent, text: body.trimEnd() });
    }
    return lines[i];
  }

  /** Every node counts, as js-yaml counts them (collections, keys and values): past the limit is js-yaml's. */
  private count(): void {
    if (++this.values > MAX_VALUES) bail();
  }

  /** The mapping or sequence whose first line is the current one, at `indent`. */
  block(indent: number, depth: number): unknown {
    if (depth > MAX_NESTING) bail();
    const line = this.line(this.at)!;
    return isItem(line) ? this.sequence(indent, depth) : this.mapping(indent, depth);
  }

  private sequence(indent: number, depth: number): unknown[] {
    this.count();
    const out: unknown[] = [];
    for (
      let line = this.line(this.at);
      line && line.indent === indent && isItem(line);
      line = this.line(this.at)
    ) {
      const rest = line.text.slice(1).trimStart();
      if (rest === "" || rest.startsWith("#")) {
        this.at++;
        // A sequence in a sequence, or an empty item: js-yaml lets later items drift left into them
        // (and kanon.yaml has neither).
        const next = this.line(this.at);
        if (!next || next.indent <= indent || isItem(next)) bail();
        out.push(this.nested(indent, depth));
      } else if (KEY.test(rest)) {
        // `- key: value`: a mapping whose first line is this one, from the column of its key.
        line.indent += line.text.length - rest.length;
        line.text = rest;
        out.push(this.mapping(line.indent, depth + 1));
      } else {
        this.at++;
        out.push(this.inline(rest));
        this.noContinuation(indent);
      }
    }
    if (this.line(this.at) && this.line(this.at)!.indent > indent) bail();
    return out;
  }

  private mapping(indent: number, depth: number): Record<string, unknown> {
    this.count();
    const out: Record<string, unknown> = {};
    for (let line = this.line(this.at); line && line.indent === indent; line = this.line(this.at)) {
      const key = KEY.exec(line.text)?.[1];
      // (A key js-yaml reads as null or a boolean would become other text.)
      if (
        key === undefined ||
        NULLS.has(key) ||
        BOOLEANS.has(key) ||
        key === "__proto__" ||
        Object.hasOwn(out, key)
      )
        bail();
      this.count();
      const rest = line.text.slice(key!.length + 1).trimStart();
      this.at++;
      if (rest === "" || rest.startsWith("#")) {
        // A sequence may sit at its key's own indentation.
        const next = this.line(this.at);
        out[key!] =
          next && next.indent === indent && isItem(next)
            ? this.sequence(indent, depth + 1)
            : this.nested(indent, depth);
      } else {
        out[key!] = this.inline(rest);
        this.noContinuation(indent);
      }
    }
    if (this.line(this.at) && this.line(this.at)!.indent > indent) bail();
    return out;
  }

  /** The block under a key or `-` with nothing after it: deeper lines, or null. */
  private nested(indent: number, depth: number): unknown {
    const next = this.line(this.at);
    if (next && next.indent > indent) return this.block(next.indent, depth + 1);
    this.count();
    return null;
  }

  /** A value on one line is not continued on deeper lines (that is a multi-line scalar). */
  private noContinuation(indent: number): void {
    const next = this.line(this.at);
    if (next && next.indent > indent) bail();
  }

  /** The value after `key: ` or `- `: a quoted or plain scalar, `[…]` of scalars, or `{}`. */
  private inline(text: string): unknown {
    this.count();
    if (text.startsWith("[")) return this.flowSequence(text);
    if (text === "{}" || /^\{\}\s+#/.test(text)) return {};
    const [value, rest] = scalar(text, false);
    if (rest !== "" && !/^\s+#/.test(rest)) bail();
    return value;
  }

  private flowSequence(text: string): unknown[] {
    const out: unknown[] = [];
    let rest = text.slice(1).trimStart();
    if (rest.startsWith("]")) rest = rest.slice(1);
    else
      for (;;) {
        this.count();
        const [value, after] = scalar(rest, true);
        out.push(value);
        rest = after.trimStart();
        if (rest.startsWith(",")) rest = rest.slice(1).trimStart();
        else if (rest.startsWith("]")) {
          rest = rest.slice(1);
          break;
        } else bail();
      }
    if (rest !== "" && !/^\s+#/.test(rest)) bail();
    return out;
  }
}

/** One scalar at the start of `text` and the text after it; in a flow sequence, plain ones end at `,` or `]`. */
function scalar(text: string, flow: boolean): [unknown, string] {
  const first = text[0];
  if (first === '"') {
    const end = text.indexOf('"', 1);
    const value = end < 0 ? bail() : text.slice(1, end);
    if (value.includes("\\")) bail();
    return [value, text.slice(end + 1)];
  }
  if (first === "'") {
    let value = "";
    for (let i = 1; ; ) {
      const end = text.indexOf("'", i);
      if (end < 0) bail();
      value += text.slice(i, end);
      if (text[end + 1] !== "'") return [value, text.slice(end + 1)];
      value += "'";
      i = end + 2;
    }
  }
  if (first === undefined || "&*!|>%@`?:,[]{}#".includes(first) || text.startsWith("- ") || text === "-")
    bail();
  let end = flow ? text.search(/[,\]]/) : text.length;
  if (end < 0) end = text.length;
  const comment = text.slice(0, end).search(/\s#/);
  if (comment >= 0) end = comment;
  const plain = text.slice(0, end).trimEnd();
  if (plain === "-" || plain.includes(": ") || plain.endsWith(":") || (flow && /[[{}]/.test(plain))) bail();
  return [resolvePlain(plain), text.slice(end)];
}

/** A plain scalar's value under the core schema; numbers other than plain integers are js-yaml's. */
function resolvePlain(plain: string): unknown {
  if (NULLS.has(plain)) return null;
  const bool = BOOLEANS.get(plain);
  if (bool !== undefined) return bool;
  // (js-yaml reads -0 as 0.)
  if (INTEGER.test(plain)) return Number(plain) || 0;
  if (NUMERIC.test(plain)) bail();
  return plain;
}
