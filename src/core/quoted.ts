/**
 * The quoted strings and `key: "value"` pairs of one line of JSON or TOML, found exactly where the
 * global regexes `"(?:[^"\\]|\\.)*"|'[^']*'` and `(QUOTED|[A-Za-z0-9_.-]+)(\s*[:=]\s*)(QUOTED)`
 * would find them, in time linear in the line. The regexes start again from every `"` of an unclosed
 * `"\"\"\"…` and from every letter of a long word, each time reading to the end of it: quadratic
 * (a 60 KB line took seconds to mask).
 */

const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const BACKSLASH = 0x5c;
/** What a regex's `.` does not match, so that `\\.` cannot escape it. */
const lineTerminator = (c: number) => c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;

/** Where every quoted string of a line that opens at an index closes, read once from the end. */
class Quotes {
  /** For each index, the `"` that closes a `"…"` string whose text goes on from there, or -1. */
  private readonly double: Int32Array;
  /** For each index, the first `'` at or after it, or -1. */
  private readonly single: Int32Array;

  constructor(private readonly line: string) {
    const n = line.length;
    this.double = new Int32Array(n + 2).fill(-1);
    this.single = new Int32Array(n + 1).fill(-1);
    for (let i = n - 1; i >= 0; i--) {
      const c = line.charCodeAt(i);
      this.single[i] = c === APOSTROPHE ? i : this.single[i + 1]!;
      if (c === QUOTE) this.double[i] = i;
      else if (c !== BACKSLASH) this.double[i] = this.double[i + 1]!;
      else if (i + 1 < n && !lineTerminator(line.charCodeAt(i + 1))) this.double[i] = this.double[i + 2]!;
    }
  }

  /** Just past the quoted string that opens at `i` (`"…"` or `'…'`), or -1 where none does. */
  end(i: number): number {
    const c = this.line.charCodeAt(i);
    const close = c === QUOTE ? this.double[i + 1]! : c === APOSTROPHE ? this.single[i + 1]! : -1;
    return close < 0 ? -1 : close + 1;
  }
}

/** `line.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, replace)`, in linear time. */
export function replaceQuoted(line: string, replace: (quoted: string) => string): string {
  if (!/['"]/.test(line)) return line;
  const quotes = new Quotes(line);
  let out = "";
  let from = 0;
  for (let i = 0; i < line.length; i++) {
    const end = quotes.end(i);
    if (end < 0) continue;
    out += line.slice(from, i) + replace(line.slice(i, end));
    from = end;
    i = end - 1;
  }
  return out + line.slice(from);
}

/** `[A-Za-z0-9_.-]`: what a bare key is made of. */
const keyChar = (c: number) =>
  (c >= 0x61 && c <= 0x7a) ||
  (c >= 0x41 && c <= 0x5a) ||
  (c >= 0x30 && c <= 0x39) ||
  c === 0x5f ||
  c === 0x2e ||
  c === 0x2d;
const SEPARATOR = /\s*[:=]\s*/y;

/**
 * `line.replace(/(QUOTED|[A-Za-z0-9_.-]+)(\s*[:=]\s*)(QUOTED)/g, replace)`, in linear time. A bare
 * key is a whole run of key characters (a shorter one is followed by a key character, never by the
 * separator), so a run that fails is passed over at once; a key's end is tried once.
 */
export function replacePairs(
  line: string,
  replace: (pair: string, key: string, separator: string, quoted: string) => string,
): string {
  const quotes = new Quotes(line);
  /** Where the separator after a key ends, and its quoted value: [separator's end, value's end] or null. */
  const tried = new Map<number, [number, number] | null>();
  const after = (keyEnd: number) => {
    if (!tried.has(keyEnd)) {
      SEPARATOR.lastIndex = keyEnd;
      const valueEnd = SEPARATOR.test(line) ? quotes.end(SEPARATOR.lastIndex) : -1;
      tried.set(keyEnd, valueEnd < 0 ? null : [SEPARATOR.lastIndex, valueEnd]);
    }
    return tried.get(keyEnd)!;
  };
  let out = "";
  let from = 0;
  for (let i = 0; i < line.length; ) {
    const bare = keyChar(line.charCodeAt(i));
    let keyEnd = bare ? i + 1 : quotes.end(i);
    while (bare && keyChar(line.charCodeAt(keyEnd))) keyEnd++;
    const value = keyEnd < 0 ? null : after(keyEnd);
    if (value === null) {
      i = bare ? keyEnd : i + 1;
      continue;
    }
    const [separatorEnd, end] = value;
    const key = line.slice(i, keyEnd);
    const quoted = line.slice(separatorEnd, end);
    out += line.slice(from, i) + replace(line.slice(i, end), key, line.slice(keyEnd, separatorEnd), quoted);
    from = i = end;
  }
  return out + line.slice(from);
}
