/** Text helpers that reproduce Go's behaviour, which kanon's output and messages must match byte for byte. */

/** Byte-wise (UTF-8) string order, the order Go sorts strings in. */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-16 order equals UTF-8 byte order except around surrogate pairs; compare bytes only then.
  if (/[\ud800-\udfff]/.test(a) || /[\ud800-\udfff]/.test(b))
    return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : 1;
}

const GO_SPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, "g");

/** Go's strings.TrimSpace: Unicode white space, but not U+FEFF (which String.prototype.trim removes). */
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
    else if (/^[\p{C}\p{Z}]$/u.test(ch) && ch !== " ") {
      out +=
        cp > 0xffff ? `\\U${cp.toString(16).padStart(8, "0")}` : `\\u${cp.toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return `${out}"`;
}
