/**
 * The decode of kanon.yaml kept between runs, per user ($XDG_CACHE_HOME/kanon/yaml, 0700, files
 * 0600), so that a command on an unchanged home skips the YAML library. V8 runs the library's lexer
 * and parser interpreted for most of a run (the same parse is several times faster in a process that
 * has parsed before), so a cold parse costs far more than its text suggests:
 * - a small home (the example's 1.3 KB kanon.yaml), `diff` with an entry: 234 M -> 208 M
 *   instructions on Node 20.20, 236 M -> 213 M on Node 22.23 (valgrind, medians of 5 interleaved
 *   runs); CPU 3% less (paired runs): most of a small run's time is Node's start and page faults.
 * - the 142 KB kanon.yaml of `npm run bench` (a large home): render 3,881 M -> 1,937 M instructions
 *   (valgrind), CPU 1,673 -> 889 ms (user+sys, median of 7 paired runs on 2 busy cores); diff
 *   4,483 M -> 2,800 M, CPU 2,083 -> 1,354 ms.
 * A run that makes the entry costs what a run without the cache does (plus writing the entry).
 *
 * An entry is used only for the very text it was made from (compared whole, not by a hash), by the
 * same build of kanon and Node; it holds only a decode without errors, whose warnings already carry
 * their `kanon.yaml:LINE:COL`. A message about a decoded value (validate.ts) still gets its position
 * from a full parse (decode.ts locator), made only then. One entry per kanon.yaml path and Node
 * version; writing one removes, at most once a day, the entries not written for STALE_DAYS (homes
 * no longer used) and the files a killed run left half written.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { READ_LIMIT, readBounded } from "../model/bounded-read.js";
import type { Decoded } from "./decode.js";

// Loaded on first use: only a command that reads kanon.yaml loads them.
const v8 = () => process.getBuiltinModule("node:v8");
const crc32 = (data: Uint8Array) => process.getBuiltinModule("node:zlib").crc32(data);

declare const __KANON_BUILD__: string;
/** A digest of kanon's sources (scripts/build.mjs): a new build of kanon starts with no entries. */
const BUILD = typeof __KANON_BUILD__ === "string" ? __KANON_BUILD__ : "source";

/** An entry not written for this many days goes when another is written. */
export const STALE_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
/** A file whose time says when the folder was last cleared of stale entries. */
const SWEPT = ".swept";

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
 * earlier run. `dir`: the cache folder; without one, decode() as it is. `decode` may load the YAML
 * library first: a run served from the cache never loads it.
 */
export async function cachedDecode(
  text: string,
  where: { config: string; label: string },
  dir: string | undefined,
  decode: () => Decoded | Promise<Decoded>,
): Promise<Decoded> {
  if (dir === undefined) return decode();
  const path = entryPath(dir, where.config);
  const known = readEntry(path);
  if (
    known?.build === BUILD &&
    known.config === where.config &&
    known.label === where.label &&
    known.text === text
  )
    return known.decoded;
  const decoded = await decode();
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
    sweep(dir);
  } catch {
    // The cache is only a saving: without it (a read-only or full disk) kanon decodes each time.
    try {
      rmSync(temp, { force: true });
    } catch {}
  }
}

/**
 * Removes the entries not written for STALE_DAYS and the half-written files of killed runs (each a
 * copy of a kanon.yaml, as in the code cache), once a day: a stat of every entry on every write would
 * cost a machine with many homes (or a test suite) time in proportion to them.
 */
function sweep(dir: string): void {
  const now = Date.now();
  const marker = join(dir, SWEPT);
  try {
    if (now - statSync(marker).mtimeMs < DAY_MS) return;
  } catch {
    // Never swept.
  }
  const stale = now - STALE_DAYS * DAY_MS;
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    // A file another run removed meanwhile has no time.
    const written = statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? now;
    if (name !== SWEPT && (name.endsWith(".tmp") || written < stale)) rmSync(file, { force: true });
  }
  writeFileSync(marker, "", { mode: 0o600 });
}
