/**
 * YAML that reads and writes the way Go's gopkg.in/yaml.v3 (3.0.1) does, for the two documents where
 * kanon must stay byte-compatible with the Go original: a provider SKILL.md frontmatter after the
 * `name:` rewrite, and kanon.lock.
 *
 * The `yaml` package does the parsing. What it cannot be configured to do is (a) give plain scalars
 * the types Go gives them (`2024-01-01` is a timestamp, `0777` is octal, `1_000` is an int, `yes` is a
 * string), and (b) pick Go's scalar styles (double quotes for values that would resolve to another type,
 * single quotes only as the emitter's fallback, `\U0001F600` escapes for characters outside the BMP,
 * `|4-` literal headers) and Go's key order (a "natural" sort where `a2` < `a10`). So this module
 * resolves plain scalars itself and has a small emitter that follows the same rules as Go's emitter for
 * block mappings, block sequences and the four scalar styles. Golden outputs produced by yaml.v3 pin it
 * (test/fixtures/providers/frontmatter-golden.json).
 */

export interface GoInt {
  kind: "int";
  value: bigint;
  /** Decoded as Go's uint64 (only for values above the int64 range). */
  unsigned?: boolean;
}
export interface GoFloat {
  kind: "float";
  value: number;
}
/** A timestamp, kept as the text Go's time.Format(RFC3339Nano) writes. */
export interface GoTime {
  kind: "time";
  text: string;
}
export interface GoMap {
  kind: "map";
  entries: [GoScalar, GoValue][];
  /** Keep the entry order (a Go struct); otherwise keys are sorted as Go sorts map keys. */
  ordered?: boolean;
}
export type GoScalar = null | boolean | string | GoInt | GoFloat | GoTime;
export type GoValue = GoScalar | GoValue[] | GoMap;

export class GoYamlError extends Error {}

// ---------------------------------------------------------------------------------------------
// Resolving plain scalars to Go types.

const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

const RESOLVE_MAP: Record<string, GoScalar> = {
  true: true,
  True: true,
  TRUE: true,
  false: false,
  False: false,
  FALSE: false,
  "": null,
  "~": null,
  null: null,
  Null: null,
  NULL: null,
  ".nan": { kind: "float", value: Number.NaN },
  ".NaN": { kind: "float", value: Number.NaN },
  ".NAN": { kind: "float", value: Number.NaN },
  ".inf": { kind: "float", value: Number.POSITIVE_INFINITY },
  ".Inf": { kind: "float", value: Number.POSITIVE_INFINITY },
  ".INF": { kind: "float", value: Number.POSITIVE_INFINITY },
  "+.inf": { kind: "float", value: Number.POSITIVE_INFINITY },
  "+.Inf": { kind: "float", value: Number.POSITIVE_INFINITY },
  "+.INF": { kind: "float", value: Number.POSITIVE_INFINITY },
  "-.inf": { kind: "float", value: Number.NEGATIVE_INFINITY },
  "-.Inf": { kind: "float", value: Number.NEGATIVE_INFINITY },
  "-.INF": { kind: "float", value: Number.NEGATIVE_INFINITY },
};

type Tag = "!!null" | "!!bool" | "!!str" | "!!int" | "!!float" | "!!timestamp";

function tagOf(value: GoScalar): Tag {
  if (value === null) return "!!null";
  if (typeof value === "boolean") return "!!bool";
  if (typeof value === "string") return "!!str";
  if (value.kind === "int") return "!!int";
  if (value.kind === "float") return "!!float";
  return "!!timestamp";
}

/**
 * Go's strconv.ParseUint(s, base, 64). Base 0 reads the prefixes 0x, 0o, 0b and a bare leading 0 as
 * octal.
 */
function parseGoUint(s: string, base = 0): bigint | null {
  if (s === "") return null;
  let radix = base || 10;
  let digits = s;
  if (base === 0 && s[0] === "0") {
    const p = s[1]?.toLowerCase();
    if (s.length >= 3 && p === "b") [radix, digits] = [2, s.slice(2)];
    else if (s.length >= 3 && p === "o") [radix, digits] = [8, s.slice(2)];
    else if (s.length >= 3 && p === "x") [radix, digits] = [16, s.slice(2)];
    else [radix, digits] = [8, s.slice(1)];
  }
  let n = 0n;
  for (const ch of digits) {
    const d = Number.parseInt(ch, 36);
    if (Number.isNaN(d) || d >= radix) return null;
    n = n * BigInt(radix) + BigInt(d);
    if (n > UINT64_MAX) return null;
  }
  return n;
}

/** Go's strconv.ParseInt(s, base, 64): an optional sign, then ParseUint. */
function parseGoInt(s: string, base = 0): bigint | null {
  let neg = false;
  let rest = s;
  if (rest[0] === "+" || rest[0] === "-") {
    neg = rest[0] === "-";
    rest = rest.slice(1);
  }
  const u = parseGoUint(rest, base);
  if (u === null) return null;
  if (!neg && u > INT64_MAX) return null;
  if (neg && u > INT64_MAX + 1n) return null;
  return neg ? -u : u;
}

/**
 * yaml.v3's extra tries for `0b…`/`0o…` text ParseInt(…, 0) refused: the digits after the prefix are
 * parsed with an explicit base, which also takes a sign (so `0b-1` is -1).
 */
function prefixedInt(plain: string): GoInt | null {
  for (const [prefix, base] of [
    ["0b", 2],
    ["0o", 8],
  ] as const) {
    if (plain.startsWith(prefix)) {
      const i = parseGoInt(plain.slice(2), base);
      if (i !== null) return { kind: "int", value: i };
      const u = parseGoUint(plain.slice(2), base);
      if (u !== null) return { kind: "int", value: u, unsigned: true };
    } else if (plain.startsWith(`-${prefix}`)) {
      const i = parseGoInt(`-${plain.slice(3)}`, base);
      if (i !== null) return { kind: "int", value: i };
    }
  }
  return null;
}

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** What Go's ParseFloat accepts after a leading `.`: digits, single underscores between digits, an exponent. */
const DOT_FLOAT = /^\.[0-9]+(_[0-9]+)*([eE][-+]?[0-9]+(_[0-9]+)*)?$/;

function parseFloatOk(s: string): GoFloat | null {
  const v = Number(s);
  return Number.isFinite(v) ? { kind: "float", value: v } : null;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/**
 * The four timestamp layouts yaml.v3 accepts (RFC 3339 with `T` or `t`, a space-separated local time,
 * a bare date), parsed with Go's time.Parse leniency, returned as time.Format(RFC3339Nano) text.
 */
export function parseGoTimestamp(s: string): GoTime | null {
  if (!/^[0-9]{4}-/.test(s)) return null;
  const m =
    /^([0-9]{4})-([0-9][0-9]?)(?![0-9])-([0-9][0-9]?)(?![0-9])(?:(?:([Tt])| +)([0-9][0-9]?)(?![0-9]):([0-9][0-9]?)(?![0-9]):([0-9][0-9]?)(?![0-9])(?:[.,]([0-9]+))?(Z|[+-][0-9]{2}:[0-9]{2})?)?$/.exec(
      s,
    );
  if (!m) return null;
  const [, y, mo, d, t, hh, mi, ss, frac, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) return null;
  let time = "T00:00:00";
  let tz = "Z";
  if (hh !== undefined) {
    const [h, min, sec] = [Number(hh), Number(mi), Number(ss)];
    if (h >= 24 || min >= 60 || sec >= 60) return null;
    // The T/t layouts need a zone; the space layout has none.
    if ((t !== undefined) !== (zone !== undefined)) return null;
    let nanos = "";
    if (frac !== undefined) nanos = frac.slice(0, 9).padEnd(9, "0").replace(/0+$/, "");
    time = `T${pad(h)}:${pad(min)}:${pad(sec)}${nanos ? `.${nanos}` : ""}`;
    if (zone !== undefined && zone !== "Z") {
      const zh = Number(zone.slice(1, 3));
      const zm = Number(zone.slice(4, 6));
      if (zh > 24 || zm > 60) return null;
      if (zh !== 0 || zm !== 0) tz = zone;
    }
  }
  return { kind: "time", text: `${pad(year, 4)}-${pad(month)}-${pad(day)}${time}${tz}` };
}

/**
 * What yaml.v3's resolve() makes of an untagged plain scalar (or one tagged `!!int`, `!!float`…):
 * the value Go decodes it to. `tag` is the short explicit tag or "".
 */
export function resolveGoScalar(tag: string, input: string): GoScalar {
  if (tag === "!!str") return input;
  const out = resolveImplicit(input, tag === "" || tag === "!!timestamp");
  if (tag === "") return out;
  const rtag = tagOf(out);
  if (rtag === tag) return out;
  if (tag === "!!float" && rtag === "!!int") return { kind: "float", value: Number((out as GoInt).value) };
  throw new GoYamlError(`cannot decode ${rtag} \`${input}\` as a ${tag}`);
}

/** The untagged resolution: the first character says what the text might be. */
function resolveImplicit(input: string, timestamps: boolean): GoScalar {
  const first = input[0] ?? "";
  // Every key of the map starts with a hinted character (or is empty).
  if (Object.hasOwn(RESOLVE_MAP, input)) return RESOLVE_MAP[input]!;
  if (first === ".")
    return DOT_FLOAT.test(input) ? (parseFloatOk(input.replaceAll("_", "")) ?? input) : input;
  if (!(first === "+" || first === "-" || (first >= "0" && first <= "9"))) return input;
  if (timestamps) {
    const ts = parseGoTimestamp(input);
    if (ts) return ts;
  }
  const plain = input.replaceAll("_", "");
  const i = parseGoInt(plain);
  if (i !== null) return { kind: "int", value: i };
  const u = parseGoUint(plain);
  if (u !== null) return { kind: "int", value: u, unsigned: true };
  if (YAML_STYLE_FLOAT.test(plain)) {
    const f = parseFloatOk(plain);
    if (f) return f;
  }
  return prefixedInt(plain) ?? input;
}

export function resolvedTag(s: string): Tag {
  return tagOf(resolveGoScalar("", s));
}

// ---------------------------------------------------------------------------------------------
// Decoding a document the way yaml.Unmarshal into map[string]interface{} does.

const LONG_TAG_PREFIX = "tag:yaml.org,2002:";

export function shortTag(tag: string | undefined): string {
  if (!tag) return "";
  return tag.startsWith(LONG_TAG_PREFIX) ? `!!${tag.slice(LONG_TAG_PREFIX.length)}` : tag;
}

// ---------------------------------------------------------------------------------------------
// Key order: yaml.v3's keyList.Less.

// ASCII first: a Unicode property test makes V8 build an ICU set, which costs more than most keys.
const isLetter = (c: string): boolean =>
  c < "\x80" ? (c >= "A" && c <= "Z") || (c >= "a" && c <= "z") : /^\p{L}$/u.test(c);
const isDigit = (c: string): boolean => (c < "\x80" ? c >= "0" && c <= "9" : /^\p{Nd}$/u.test(c));

function reflectKind(v: GoScalar): number {
  if (typeof v === "boolean") return 1;
  if (typeof v === "string") return 24;
  if (v === null) return 0;
  if (v.kind === "int") return v.unsigned ? 11 : 2;
  if (v.kind === "float") return 14;
  return 25;
}

function keyFloat(v: GoScalar): number | null {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v !== null && typeof v === "object" && v.kind === "int") return Number(v.value);
  if (v !== null && typeof v === "object" && v.kind === "float") return v.value;
  return null;
}

function keyLess(a: GoScalar, b: GoScalar): boolean {
  const af = keyFloat(a);
  const bf = keyFloat(b);
  if (af !== null && bf !== null) {
    if (af !== bf) return af < bf;
    if (reflectKind(a) !== reflectKind(b)) return reflectKind(a) < reflectKind(b);
    if (typeof a === "boolean") return !a && b === true;
    const x = a as GoInt | GoFloat;
    const y = b as GoInt | GoFloat;
    return x.value < y.value;
  }
  if (typeof a !== "string" || typeof b !== "string") return reflectKind(a) < reflectKind(b);
  const ar = Array.from(a);
  const br = Array.from(b);
  let digits = false;
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ca = ar[i]!;
    const cb = br[i]!;
    if (ca === cb) {
      digits = isDigit(ca);
      continue;
    }
    const al = isLetter(ca);
    const bl = isLetter(cb);
    if (al && bl) return ca.codePointAt(0)! < cb.codePointAt(0)!;
    if (al || bl) return digits ? al : bl;
    let an = 0n;
    let bn = 0n;
    if (ca === "0" || cb === "0") {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== "0") {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) {
      an = BigInt.asIntN(64, an * 10n + BigInt(ar[ai]!.codePointAt(0)! - 48));
    }
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]!); bi++) {
      bn = BigInt.asIntN(64, bn * 10n + BigInt(br[bi]!.codePointAt(0)! - 48));
    }
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ca.codePointAt(0)! < cb.codePointAt(0)!;
  }
  return ar.length < br.length;
}

export function compareGoKeys(a: GoScalar, b: GoScalar): number {
  if (keyLess(a, b)) return -1;
  if (keyLess(b, a)) return 1;
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Encoding.

/** strconv.FormatFloat(f, 'g', -1, 64), with yaml.v3's spellings of the special values. */
export function formatGoFloat(f: number): string {
  if (Number.isNaN(f)) return ".nan";
  if (f === Number.POSITIVE_INFINITY) return ".inf";
  if (f === Number.NEGATIVE_INFINITY) return "-.inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const sign = f < 0 ? "-" : "";
  const [mantissa, expText] = Math.abs(f).toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  const exp = Number(expText);
  const dp = exp + 1;
  if (exp < -4 || exp >= 6) {
    const e = Math.abs(exp);
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : "";
    return `${sign}${digits[0]}${frac}e${exp < 0 ? "-" : "+"}${e < 10 ? "0" : ""}${e}`;
  }
  if (dp <= 0) return `${sign}0.${"0".repeat(-dp)}${digits}`;
  if (dp >= digits.length) return `${sign}${digits}${"0".repeat(dp - digits.length)}`;
  return `${sign}${digits.slice(0, dp)}.${digits.slice(dp)}`;
}

const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const OLD_BOOLS = new Set(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON"]);
for (const s of ["n", "N", "no", "No", "NO", "off", "Off", "OFF"]) OLD_BOOLS.add(s);

type Style = "plain" | "single" | "double" | "literal";

interface ScalarOut {
  text: string;
  style: Style;
}

function scalarOut(v: GoScalar): ScalarOut {
  if (v === null) return { text: "null", style: "plain" };
  if (typeof v === "boolean") return { text: v ? "true" : "false", style: "plain" };
  if (typeof v === "string") {
    const canUsePlain = resolvedTag(v) === "!!str" && !BASE60_FLOAT.test(v) && !OLD_BOOLS.has(v);
    return { text: v, style: v.includes("\n") ? "literal" : canUsePlain ? "plain" : "double" };
  }
  if (v.kind === "int") return { text: v.value.toString(), style: "plain" };
  if (v.kind === "float") return { text: formatGoFloat(v.value), style: "plain" };
  return { text: v.text, style: "plain" };
}

const isBreak = (c: string): boolean =>
  c === "\r" || c === "\n" || c === "\u0085" || c === "\u2028" || c === "\u2029";

function isPrintable(c: string): boolean {
  const cp = c.codePointAt(0)!;
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

interface Analysis {
  multiline: boolean;
  flowPlain: boolean;
  blockPlain: boolean;
  single: boolean;
  block: boolean;
}

function analyze(value: string): Analysis {
  if (value === "")
    return { multiline: false, flowPlain: false, blockPlain: true, single: true, block: false };
  let blockInd = value.startsWith("---") || value.startsWith("...");
  let flowInd = blockInd;
  let lineBreaks = false;
  let special = false;
  let tabs = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWs = true;
  let prevSpace = false;
  let prevBreak = false;
  const cs = Array.from(value);
  cs.forEach((c, i) => {
    const next = cs[i + 1];
    const followedByWs = next === undefined || next === " " || next === "\t";
    if (i === 0) {
      if ("#,[]{}&*!|>'\"%@`".includes(c)) {
        flowInd = true;
        blockInd = true;
      } else if (c === "?" || c === ":") {
        flowInd = true;
        if (followedByWs) blockInd = true;
      } else if (c === "-" && followedByWs) {
        flowInd = true;
        blockInd = true;
      }
    } else if (",?[]{}".includes(c)) {
      flowInd = true;
    } else if (c === ":") {
      flowInd = true;
      if (followedByWs) blockInd = true;
    } else if (c === "#" && precededByWs) {
      flowInd = true;
      blockInd = true;
    }
    if (c === "\t") tabs = true;
    else if (!isPrintable(c)) special = true;
    if (c === " ") {
      if (i === 0) leadingSpace = true;
      if (i === cs.length - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === cs.length - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = false;
      prevBreak = false;
    }
    precededByWs = c === " " || c === "\t" || c === "\0" || isBreak(c);
  });
  const a: Analysis = { multiline: lineBreaks, flowPlain: true, blockPlain: true, single: true, block: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) a.flowPlain = a.blockPlain = false;
  if (trailingSpace) a.block = false;
  if (breakSpace) a.flowPlain = a.blockPlain = a.single = false;
  if (spaceBreak || tabs || special) a.flowPlain = a.blockPlain = a.single = false;
  if (spaceBreak || special) a.block = false;
  if (lineBreaks) a.flowPlain = a.blockPlain = false;
  if (flowInd) a.flowPlain = false;
  if (blockInd) a.blockPlain = false;
  return a;
}

const ESCAPES: Record<number, string> = {
  0: "0",
  7: "a",
  8: "b",
  9: "t",
  10: "n",
  11: "v",
  12: "f",
  13: "r",
  27: "e",
  34: '"',
  92: "\\",
  133: "N",
  160: "_",
  8232: "L",
  8233: "P",
};

interface Context {
  /** The parent is a block sequence item (Go indents those by 2, everything else to the next stop). */
  inSeqItem: boolean;
  simpleKey: boolean;
}

class Emitter {
  private out = "";
  private column = 0;
  private whitespace = true;
  private indention = true;
  private indent = -1;
  private readonly indents: number[] = [];

  constructor(private readonly bestIndent: number) {}

  document(value: GoValue): string {
    this.node(value, { inSeqItem: false, simpleKey: false });
    this.writeIndent();
    return this.out;
  }

  private put(s: string): void {
    this.out += s;
    this.column++;
  }

  private putBreak(): void {
    this.out += "\n";
    this.column = 0;
    this.indention = true;
  }

  private writeBreak(c: string): void {
    if (c === "\n") {
      this.putBreak();
      return;
    }
    this.out += c;
    this.column = 0;
    this.indention = true;
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace))
      this.putBreak();
    while (this.column < indent) this.put(" ");
    this.whitespace = true;
  }

  private indicator(
    text: string,
    needWhitespace: boolean,
    isWhitespace: boolean,
    isIndention: boolean,
  ): void {
    if (needWhitespace && !this.whitespace) this.put(" ");
    for (const c of text) this.put(c);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private increaseIndent(flow: boolean, inSeqItem: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? this.bestIndent : 0;
    else if (inSeqItem) this.indent += 2;
    else this.indent = this.bestIndent * Math.floor((this.indent + this.bestIndent) / this.bestIndent);
  }

  private popIndent(): void {
    this.indent = this.indents.pop()!;
  }

  private node(value: GoValue, ctx: Context): void {
    if (Array.isArray(value)) {
      if (value.length === 0) this.emptyFlow("[", "]", ctx);
      else this.sequence(value, ctx);
    } else if (value !== null && typeof value === "object" && value.kind === "map") {
      if (value.entries.length === 0) this.emptyFlow("{", "}", ctx);
      else this.mapping(value, ctx);
    } else {
      this.scalar(scalarOut(value as GoScalar), ctx);
    }
  }

  private emptyFlow(open: string, close: string, ctx: Context): void {
    this.indicator(open, true, true, false);
    this.increaseIndent(true, ctx.inSeqItem);
    this.popIndent();
    if (this.column === 0) this.writeIndent();
    this.indicator(close, false, false, false);
  }

  private sequence(items: GoValue[], ctx: Context): void {
    this.increaseIndent(false, ctx.inSeqItem);
    for (const item of items) {
      this.writeIndent();
      this.indicator("-", true, false, true);
      this.node(item, { inSeqItem: true, simpleKey: false });
    }
    this.popIndent();
  }

  private mapping(map: GoMap, ctx: Context): void {
    const entries = map.ordered ? map.entries : [...map.entries].sort((a, b) => compareGoKeys(a[0], b[0]));
    this.increaseIndent(false, ctx.inSeqItem);
    for (const [key, value] of entries) {
      this.writeIndent();
      const k = scalarOut(key);
      const a = analyze(k.text);
      if (!a.multiline && Buffer.byteLength(k.text) <= 128) {
        this.scalar(k, { inSeqItem: false, simpleKey: true });
        this.indicator(":", false, false, false);
      } else {
        this.indicator("?", true, false, true);
        this.scalar(k, { inSeqItem: false, simpleKey: false });
        this.writeIndent();
        this.indicator(":", true, false, true);
      }
      this.node(value, { inSeqItem: false, simpleKey: false });
    }
    this.popIndent();
  }

  private scalar(s: ScalarOut, ctx: Context): void {
    const a = analyze(s.text);
    let style = s.style;
    if (ctx.simpleKey && a.multiline) style = "double";
    if (style === "plain") {
      if (!a.blockPlain) style = "single";
      if (s.text === "" && ctx.simpleKey) style = "single";
    }
    if (style === "single" && !a.single) style = "double";
    if (style === "literal" && (!a.block || ctx.simpleKey)) style = "double";
    this.increaseIndent(true, ctx.inSeqItem);
    if (style === "plain") this.plain(s.text);
    else if (style === "single") this.singleQuoted(s.text);
    else if (style === "double") this.doubleQuoted(s.text);
    else this.literal(s.text);
    this.popIndent();
  }

  private plain(value: string): void {
    if (value !== "" && !this.whitespace) this.put(" ");
    let breaks = false;
    for (const c of value) {
      if (c === " ") {
        this.put(c);
      } else if (isBreak(c)) {
        if (!breaks && c === "\n") this.putBreak();
        this.writeBreak(c);
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(c);
        this.indention = false;
        breaks = false;
      }
    }
    if (value !== "") this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(value: string): void {
    this.indicator("'", true, false, false);
    let breaks = false;
    for (const c of value) {
      if (c === " ") {
        this.put(c);
      } else if (isBreak(c)) {
        if (!breaks && c === "\n") this.putBreak();
        this.writeBreak(c);
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (c === "'") this.put("'");
        this.put(c);
        this.indention = false;
        breaks = false;
      }
    }
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private doubleQuoted(value: string): void {
    this.indicator('"', true, false, false);
    // yaml.v3 checks for a byte order mark at the start of the value, not at each character.
    const bom = value.startsWith("\uFEFF");
    for (const c of value) {
      if (!isPrintable(c) || bom || isBreak(c) || c === '"' || c === "\\") {
        const cp = c.codePointAt(0)!;
        const esc = ESCAPES[cp];
        if (esc !== undefined) this.out += `\\${esc}`;
        else {
          const [letter, width] = cp <= 0xff ? ["x", 2] : cp <= 0xffff ? ["u", 4] : ["U", 8];
          this.out += `\\${letter}${cp
            .toString(16)
            .toUpperCase()
            .padStart(width as number, "0")}`;
        }
        this.column += 2;
      } else {
        this.put(c);
      }
    }
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private literal(value: string): void {
    this.indicator("|", true, false, false);
    const cs = Array.from(value);
    if (cs[0] === " " || (cs[0] !== undefined && isBreak(cs[0]))) {
      this.indicator(String(this.bestIndent), false, false, false);
    }
    let chomp = "";
    const last = cs[cs.length - 1];
    if (last === undefined || !isBreak(last)) chomp = "-";
    else if (cs.length === 1 || isBreak(cs[cs.length - 2]!)) chomp = "+";
    if (chomp) this.indicator(chomp, false, false, false);
    this.whitespace = true;
    let breaks = true;
    for (const c of cs) {
      if (isBreak(c)) {
        this.writeBreak(c);
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(c);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

/** yaml.v3's Marshal with the encoder's indentation set to `indent` (Go's default is 4). */
export function encodeGoYaml(value: GoValue, indent = 4): string {
  return new Emitter(indent).document(value);
}
