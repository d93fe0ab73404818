/**
 * Text that keeps every byte. Files kanon co-owns (and instruction files) may hold bytes that are
 * not valid UTF-8; decoding them as usual would turn each into U+FFFD and write that back. Here each
 * such byte b decodes to the lone surrogate U+DC00+b (which valid UTF-8 can never produce) and
 * encodes back to b, so text that passes through an editor unchanged comes out byte for byte.
 */
import { isUtf8 } from "node:buffer";

/** A byte that was not UTF-8, as decodeBytes gives it. */
export const ESCAPED_BYTE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/g;
const HAS_ESCAPED_BYTE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;

export function decodeBytes(bytes: Uint8Array): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buf)) return buf.toString("utf8");
  let out = "";
  let start = 0;
  let i = 0;
  while (i < buf.length) {
    const n = validSequenceLength(buf, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += buf.toString("utf8", start, i) + String.fromCharCode(0xdc00 + buf[i]!);
    i++;
    start = i;
  }
  return out + buf.toString("utf8", start, i);
}

export function encodeText(text: string): Buffer {
  if (!HAS_ESCAPED_BYTE.test(text)) return Buffer.from(text, "utf8");
  const parts: Buffer[] = [];
  let start = 0;
  for (const m of text.matchAll(ESCAPED_BYTE)) {
    parts.push(Buffer.from(text.slice(start, m.index), "utf8"), Buffer.of(m[0].charCodeAt(0) - 0xdc00));
    start = m.index + 1;
  }
  parts.push(Buffer.from(text.slice(start), "utf8"));
  return Buffer.concat(parts);
}

/** Length of the well-formed UTF-8 sequence at `i` (Unicode table 3-7), or 0. */
function validSequenceLength(b: Buffer, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/**
 * `text` for a parser that rejects lone surrogates: each escaped byte becomes U+FFFD, one UTF-16
 * unit like the surrogate, so every offset the parser reports holds for `text` itself.
 */
export function forParsing(text: string): string {
  return HAS_ESCAPED_BYTE.test(text) ? text.replace(ESCAPED_BYTE, "\uFFFD") : text;
}
