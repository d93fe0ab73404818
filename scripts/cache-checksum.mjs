// The checksum the loader verifies before V8 reads the code cache: FNV-1a over little-endian 32-bit words
// (the last word zero-padded). It changes with any single changed word, and its odds of missing damage
// elsewhere are 1 in 2^32, like CRC-32's. The loader computes it in WebAssembly, which V8 has ready:
// zlib's crc32 would load Node's zlib and stream modules, several milliseconds of every run.

const OFFSET_BASIS = 0x811c9dc5 | 0;
const PRIME = 16777619;

/** The reference, for the build and the tests. */
export function cacheChecksum(bytes) {
  const padded = new Uint8Array(Math.ceil(bytes.length / 4) * 4);
  padded.set(bytes);
  const words = new DataView(padded.buffer);
  let h = OFFSET_BASIS;
  for (let i = 0; i < padded.length; i += 4) h = Math.imul(h ^ words.getInt32(i, true), PRIME);
  return h;
}

/** Signed LEB128, as WebAssembly encodes i32 constants. */
function sleb(n) {
  const out = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

// (func (export "h") (param $p i32) (param $end i32) (result i32) (local $h i32)
//   $h = OFFSET_BASIS
//   (block (loop
//     (br_if 1 (i32.ge_u $p $end))
//     $h = (i32.mul (i32.xor $h (i32.load $p)) PRIME)
//     $p = (i32.add $p 4)
//     (br 0)))
//   $h)
// with the memory imported as m.m.
const body = [
  ...[0x01, 0x01, 0x7f], // one local: i32 $h
  ...[0x41, ...sleb(OFFSET_BASIS), 0x21, 0x02], // i32.const, local.set $h
  ...[0x02, 0x40, 0x03, 0x40], // block, loop
  ...[0x20, 0x00, 0x20, 0x01, 0x4f, 0x0d, 0x01], // $p >= $end → br_if 1
  ...[0x20, 0x02, 0x20, 0x00, 0x28, 0x02, 0x00, 0x73], // $h ^ i32.load($p)
  ...[0x41, ...sleb(PRIME), 0x6c, 0x21, 0x02], // * PRIME → $h
  ...[0x20, 0x00, 0x41, 0x04, 0x6a, 0x21, 0x00], // $p += 4
  ...[0x0c, 0x00, 0x0b, 0x0b], // br 0, end loop, end block
  ...[0x20, 0x02, 0x0b], // $h, end
];
const module = [
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // \0asm, version 1
  ...[0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f], // type: (i32, i32) → i32
  ...[0x02, 0x08, 0x01, 0x01, 0x6d, 0x01, 0x6d, 0x02, 0x00, 0x01], // import memory m.m, at least 1 page
  ...[0x03, 0x02, 0x01, 0x00], // one function of type 0
  ...[0x07, 0x05, 0x01, 0x01, 0x68, 0x00, 0x00], // export it as h
  ...[0x0a, body.length + 2, 0x01, body.length, ...body], // its code
];

/** The WebAssembly module, base64: exports h(start, end), the checksum of memory[start, end). */
export const CHECKSUM_WASM = Buffer.from(module).toString("base64");
