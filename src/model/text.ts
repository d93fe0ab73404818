/** Text helpers that reproduce Go's behaviour, which kanon's output and messages must match byte for byte. */

/**
 * Byte-wise (UTF-8) string order, the order Go sorts strings and map keys in. Lone surrogates count as
 * U+FFFD, as in Buffer.from(s).
 */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Below the surrogates, UTF-16 code unit order is UTF-8 byte order.
    if (x < 0xd800 && y < 0xd800) return x - y;
    // Around surrogates (astral characters, lone surrogates), compare the bytes from the start of the
    // character that differs. Rare, so the allocation does not matter.
    const from = i > 0 && isHighSurrogate(a.charCodeAt(i - 1)) ? i - 1 : i;
    return Buffer.compare(Buffer.from(a.slice(from)), Buffer.from(b.slice(from)));
  }
  return a.length - b.length;
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c < 0xdc00;

const GO_SPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, "g");

/** Words for a message: `a`, `a and b`, `a, b and c` (or `or`). */
export function wordList(words: readonly string[], conjunction: "and" | "or"): string {
  return words.length < 2
    ? words.join("")
    : `${words.slice(0, -1).join(", ")} ${conjunction} ${words.at(-1)}`;
}

/**
 * Go's strings.TrimSpace, which is also Rust's str::trim: Unicode White_Space, but not U+FEFF (which
 * String.prototype.trim removes).
 */
export function trimSpace(s: string): string {
  return s.replace(TRIM, "");
}

/**
 * Go's %q for the strings kanon puts in messages: printable text as is, `"` and `\` escaped, control
 * characters as Go writes them (\n, \t, \x00, \u2028…).
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\x07") out += "\\a";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (ch === "\v") out += "\\v";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    // Printable ASCII needs no Unicode lookup (which makes V8 build ICU sets).
    else if (cp < 0x7f) out += ch;
    else if (/^[\p{C}\p{Z}]$/u.test(ch)) {
      out +=
        cp > 0xffff ? `\\U${cp.toString(16).padStart(8, "0")}` : `\\u${cp.toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return `${out}"`;
}

/**
 * Each file trimmed; joined with a blank line; a separator goes before every file once the text is
 * non-empty (so an empty file in the middle leaves four newlines, as in the Go original).
 */
export function joinInstructions(texts: string[]): string | null {
  let out = "";
  for (const t of texts) {
    if (out !== "") out += "\n\n";
    out += trimSpace(t);
  }
  return out === "" ? null : `${out}\n`;
}

/** Newlines in `text` before `end`, counted in place (no split: the texts can be hundreds of lines). */
export function newlines(text: string, end = text.length): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < end; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * The line (1-based) of the first `<<<<<<<` of an unresolved git merge conflict — one followed by
 * its `=======` and `>>>>>>>` lines — or null. A file with one is half of two versions, never a setting.
 */
export function conflictMarkerLine(text: string): number | null {
  const start = text.search(/^<{7}(?: |$)/m);
  if (start < 0) return null;
  const rest = text.slice(start);
  const middle = rest.search(/^={7}$/m);
  if (middle < 0 || rest.slice(middle).search(/^>{7}(?: |$)/m) < 0) return null;
  return newlines(text, start) + 1;
}
