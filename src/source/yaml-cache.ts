/**
 * The decode of a large kanon.yaml kept between runs, per user ($XDG_CACHE_HOME/kanon/yaml, 0700,
 * files 0600), so that a command on an unchanged home skips the YAML library. Its cold parse of the
 * 142 KB kanon.yaml of `npm run bench` (a large home) is a quarter of a `render`'s CPU profile, and
 * half of its instructions with the garbage it leaves and V8 compiling the library on other threads:
 * V8 runs the library's lexer and parser interpreted for most of it (the same parse is several times
 * faster in a process that has parsed before). Measured on that home, Node 20.20, with an entry:
 * render 3,881 M -> 1,937 M instructions (valgrind), CPU 1,673 -> 889 ms (user+sys, median of 7
 * paired runs on 2 busy cores); diff 4,483 M -> 2,800 M, CPU 2,083 -> 1,354 ms. A run that makes
 * the entry costs what a run without the cache does.
 *
 * An entry is used only for the very text it was made from (compared whole, not by a hash), by the
 * same build of kanon and Node; it holds only a decode without errors, whose warnings already carry
 * their `kanon.yaml:LINE:COL`. A message about a decoded value (validate.ts) still gets its position
 * from a full parse (decode.ts locator), made only then.
 *
 * A kanon.yaml under MIN_CACHED is not cached, so that a command on a small home writes no file it
 * did not write before (in-process tests check that HOME stays as it was). Caching it too would save
 * a `diff` of the example home 9% of its instructions (valgrind, Node 20.20: 245 M -> 223 M), once
 * the tests keep caches outside their HOME.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { READ_LIMIT, readBounded } from "../model/bounded-read.js";
import type { Decoded } from "./decode.js";

// Loaded on first use: a command on a small kanon.yaml does not load them (node:v8 alone costs about
// 1 ms of CPU, against a small `diff`'s start-up budget).
const v8 = () => process.getBuiltinModule("node:v8");
const crc32 = (data: Uint8Array) => process.getBuiltinModule("node:zlib").crc32(data);

declare const __KANON_BUILD__: string;
/** A digest of kanon's sources (scripts/build.mjs): a new build of kanon starts with no entries. */
const BUILD = typeof __KANON_BUILD__ === "string" ? __KANON_BUILD__ : "source";

/** Characters of kanon.yaml from which its decode is cached. */
export const MIN_CACHED = 32 * 1024;

/** The entry of the config file at `config` (one per file: a new text replaces it). */
function entryPath(dir: string, config: string): string {
  // FNV-1a of the path: a short, stable file name.
  let h = 0x811c9dc5;
  for (let i = 0; i < config.length; i++) h = Math.imul(h ^ config.charCodeAt(i), 0x01000193) >>> 0;
  return join(dir, `${h.toString(16).padStart(8, "0")}-node-${process.version}.v8`);
}

interface Entry {
  build: string;
  config: string;
  label: string;
  text: string;
  decoded: Decoded;
}

/**
 * `decode()` of `text` (the file at `config`, named `label` in messages), or its result from an
 * earlier run. `dir`: the cache folder; without one, or for a small text, decode() as it is.
 */
export function cachedDecode(
  text: string,
  where: { config: string; label: string },
  dir: string | undefined,
  decode: () => Decoded,
): Decoded {
  if (dir === undefined || text.length < MIN_CACHED) return decode();
  const path = entryPath(dir, where.config);
  const known = readEntry(path);
  if (
    known?.build === BUILD &&
    known.config === where.config &&
    known.label === where.label &&
    known.text === text
  )
    return known.decoded;
  const decoded = decode();
  if (decoded.errors.length === 0)
    writeEntry(dir, path, { build: BUILD, config: where.config, label: where.label, text, decoded });
  return decoded;
}

/**
 * A file is a CRC-32 of its data and the data's length (4 bytes each), then the entry as V8 serializes
 * it (exact for every value a decode makes); a damaged or foreign file reads as no entry.
 */
const HEADER = 8;

function readEntry(path: string): Entry | null {
  try {
    const file = readBounded(path, { limit: READ_LIMIT.home }).bytes;
    const data = file.subarray(HEADER);
    if (file.length < HEADER || file.readUInt32LE(4) !== data.length || file.readUInt32LE(0) !== crc32(data))
      return null;
    return v8().deserialize(data) as Entry;
  } catch {
    return null;
  }
}

function writeEntry(dir: string, path: string, entry: Entry): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const data = v8().serialize(entry);
    const header = Buffer.alloc(HEADER);
    header.writeUInt32LE(crc32(data), 0);
    header.writeUInt32LE(data.length, 4);
    writeFileSync(temp, Buffer.concat([header, data]), { mode: 0o600 });
    renameSync(temp, path);
    // A killed run's half-written file (a copy of a kanon.yaml) goes, as in the code cache.
    for (const name of readdirSync(dir)) if (name.endsWith(".tmp")) rmSync(join(dir, name), { force: true });
  } catch {
    // The cache is only a saving: without it (a read-only or full disk) kanon decodes each time.
    try {
      rmSync(temp, { force: true });
    } catch {}
  }
}
