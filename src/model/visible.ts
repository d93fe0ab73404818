/**
 * What is shown is what is written: every string kanon prints goes through `visible` (text) or
 * `visibleBytes` (file content kept as bytes), which spell out the characters that would otherwise
 * act on the terminal instead of showing up in it. A skill file holding `\e[2J` and a fake diff, a
 * hook named `ok\e[1Ahidden`, a `\r` that sends the cursor back over a line, a right-to-left override
 * that reorders a command: each prints as visible text, so a review cannot be forged.
 *
 * Tab and newline are kept (diffs and listings are lines; a tab hides nothing), and so is a CR right
 * before a newline or at the very end (a CRLF file); every other C0 control and DEL is shown in caret
 * notation as `cat -v` and `less` show them (`^[`, `^M`, `^?`), and C1 controls, bidirectional
 * controls, zero-width and line/paragraph separators as `<U+202E>`.
 */

/** Characters a terminal acts on (or hides) rather than shows; \t and \n are left out. */
const ACTING_CLASS =
  "[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2069\\ufeff]";
const ACTING = new RegExp(ACTING_CLASS);
const ACTING_ALL = new RegExp(ACTING_CLASS, "g");

/** Whether `s` holds a character `visible` would spell out (a name with one cannot be shown as it is). */
export function hasActingChar(s: string): boolean {
  return ACTING.test(s);
}

function spell(ch: string): string {
  const cp = ch.charCodeAt(0);
  if (cp < 0x20) return `^${String.fromCharCode(cp + 0x40)}`;
  if (cp === 0x7f) return "^?";
  return `<U+${cp.toString(16).toUpperCase().padStart(4, "0")}>`;
}

/**
 * `s` with every acting character spelled out; the same string when it has none (the usual case).
 * `progress`: every CR stays (git redraws its progress line with them as it streams).
 */
export function visible(s: string, progress = false): string {
  if (!ACTING.test(s)) return s;
  return s.replace(ACTING_ALL, (ch, at: number) =>
    // CRLF line endings stay (the CR only returns to the start of a line that ends there).
    ch === "\r" && (progress || at === s.length - 1 || s.charCodeAt(at + 1) === 0x0a) ? ch : spell(ch),
  );
}

/**
 * `bytes` (UTF-8 text, or anything) with the same characters spelled out; the same buffer when there
 * are none. Scans bytes, so megabytes of rendered skills are not decoded to be checked.
 */
export function visibleBytes(bytes: Uint8Array): Uint8Array {
  const at = firstActing(bytes, 0);
  if (at < 0) return bytes;
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = at; i >= 0; i = firstActing(bytes, from)) {
    parts.push(Buffer.from(bytes.buffer, bytes.byteOffset + from, i - from));
    const len = actingLength(bytes, i);
    const ch = Buffer.from(bytes.buffer, bytes.byteOffset + i, len).toString("utf8");
    parts.push(Buffer.from(spell(ch)));
    from = i + len;
  }
  parts.push(Buffer.from(bytes.buffer, bytes.byteOffset + from, bytes.length - from));
  return Buffer.concat(parts);
}

/** Bytes of the acting character at `i` (1 for C0/DEL, 2 for C1 and U+061C, 3 for the rest). */
function actingLength(b: Uint8Array, i: number): number {
  const x = b[i]!;
  return x < 0x80 ? 1 : x === 0xc2 || x === 0xd8 ? 2 : 3;
}

/**
 * Bytes that can start an acting character (C0 but tab and newline, DEL, the lead bytes of C1 and of
 * the Unicode ones), marked in a table a loop looks each byte up in; each candidate is then checked.
 * Measured on the 7 MB that `kanon render` prints for the large home, cold: ~40 ms, where a regular
 * expression over the bytes read as Latin-1 took ~90 ms (the same on many small files).
 */
const CANDIDATE = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) if (b !== 0x09 && b !== 0x0a) CANDIDATE[b] = 1;
for (const b of [0x7f, 0xc2, 0xd8, 0xe2, 0xef]) CANDIDATE[b] = 1;

/** The index of the first acting character at or after `from`, or -1. */
function firstActing(b: Uint8Array, from: number): number {
  for (let i = from; i < b.length; i++) if (CANDIDATE[b[i]!] === 1 && isActingAt(b, i)) return i;
  return -1;
}

function isActingAt(b: Uint8Array, i: number): boolean {
  const n = b.length;
  const x = b[i]!;
  if (x === 0x0d) return !(i === n - 1 || b[i + 1] === 0x0a);
  if (x < 0x20 || x === 0x7f) return true;
  // C1 controls: U+0080–U+009F are C2 80–C2 9F in UTF-8.
  if (x === 0xc2) return i + 1 < n && b[i + 1]! >= 0x80 && b[i + 1]! <= 0x9f;
  // U+061C: D8 9C.
  if (x === 0xd8) return b[i + 1] === 0x9c;
  if (x === 0xe2 && i + 2 < n) {
    const y = b[i + 1]!;
    const z = b[i + 2]!;
    // U+200B–U+200F (E2 80 8B–8F), U+2028–U+202E (E2 80 A8–AE), U+2060–U+2069 (E2 81 A0–A9).
    if (y === 0x80) return (z >= 0x8b && z <= 0x8f) || (z >= 0xa8 && z <= 0xae);
    if (y === 0x81) return z >= 0xa0 && z <= 0xa9;
    return false;
  }
  // U+FEFF: EF BB BF.
  return x === 0xef && b[i + 1] === 0xbb && b[i + 2] === 0xbf;
}
