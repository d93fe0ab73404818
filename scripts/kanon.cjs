#!/usr/bin/env node
// dist/kanon.js, the kanon executable (scripts/build.mjs copies it there, with the bundle's hash).
//
// It runs kanon-cli.js, the bundle of every command, through a V8 code cache kept per user: a run
// then neither parses the bundle nor compiles the functions the run that made the cache compiled.
// The cache is made once per build of kanon and Node version, at the end of the first run that finds
// none (or one V8 refuses), and holds what that run compiled (one made by `kanon --version` alone
// saves about half of what one made by a `diff` saves a diff). Node 22's own compile cache
// (module.enableCompileCache) holds only each module's top level, made before it runs. Measured on a
// `diff` of the example home against require() of the bundle (valgrind instructions, without V8's
// random hash-seed work; wall and CPU time in pairs of runs on 2 cores shared with other work):
// Node 20.20, 46% fewer instructions (432 M -> 232 M), 22% less wall and CPU time; Node 22.23
// against require() with its compile cache, 31% fewer instructions (339 M -> 232 M), 11% less wall
// and 10% less CPU time. One way to start on every Node: what the tests run.
"use strict";
const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require("node:fs");
const { isAbsolute, join } = require("node:path");
const { Script } = require("node:vm");
const { crc32 } = require("node:zlib");

const BUNDLE = join(__dirname, "kanon-cli.js");
/** The start of a hash of kanon-cli.js (the build writes it): a cache is used only with its bundle. */
const BUNDLE_HASH = "BUNDLE_HASH";
const NAME = `kanon-cli-${BUNDLE_HASH}-node-${process.version}-${process.arch}.cache`;

const xdg = process.env.XDG_CACHE_HOME;
const cacheHome =
  xdg && isAbsolute(xdg) ? xdg : join(process.env.HOME || require("node:os").homedir(), ".cache");
// A folder per installed copy of kanon (a hash of its path): a new build there replaces the caches of
// the one before, and two copies keep their own.
let pathHash = 0x811c9dc5;
for (let i = 0; i < __dirname.length; i++)
  pathHash = Math.imul(pathHash ^ __dirname.charCodeAt(i), 0x01000193) >>> 0;
const dir = join(cacheHome, "kanon", "code", pathHash.toString(16).padStart(8, "0"));

// V8 checks that a cache is for its version and the source's length, but not its bytes: a damaged
// cache would crash every run. So, as in Node's own compile cache, a header holds a CRC-32 of the
// data and its length (8 bytes, so that the data stays aligned and V8 need not copy it).
const HEADER = 8;
let cachedData;
try {
  const file = readFileSync(join(dir, NAME));
  const data = file.subarray(HEADER);
  if (file.readUInt32LE(4) === data.length && file.readUInt32LE(0) === crc32(data)) cachedData = data;
} catch {
  // No cache yet (or none readable): this run makes one.
}
// The bundle is already the function expression CommonJS wraps a module in (the build writes it so):
// its text is compiled as read, where wrapping it here made a second copy of 663 KB. Measured on a
// `diff` of the example home (Node 20.20, valgrind median of 5): 4 M fewer instructions, 125 fewer
// page faults.
// Read as bytes, then decoded: readFileSync(BUNDLE, "utf8") reads into a string that grows by
// doubling, copying the text at each step. A page fault costs ~22 us on the 2-core VM the budgets are
// measured on (perf: faults, not instructions, are most of a small run's time beyond node -e 0).
// `diff` of the example home, perf stat, 20 runs: 3,890 -> 3,582 faults on Node 20.20, 4,642 -> 4,345
// on Node 22.23.
const script = new Script(readFileSync(BUNDLE).toString(), { filename: BUNDLE, cachedData });
if (cachedData === undefined || script.cachedDataRejected) process.once("exit", saveCache);
script.runInThisContext()(exports, require, module, BUNDLE, __dirname);

/**
 * Writes what this run compiled as the cache (a whole file or none); drops the caches of earlier
 * builds, and files a killed run left half written.
 */
function saveCache() {
  const temp = join(dir, `${NAME}.${process.pid}.tmp`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const data = script.createCachedData();
    const header = Buffer.alloc(HEADER);
    header.writeUInt32LE(crc32(data), 0);
    header.writeUInt32LE(data.length, 4);
    writeFileSync(temp, Buffer.concat([header, data]), { mode: 0o600 });
    renameSync(temp, join(dir, NAME));
    for (const name of readdirSync(dir))
      if (!name.includes(BUNDLE_HASH) || name.endsWith(".tmp"))
        rmSync(join(dir, name), { force: true, recursive: true });
  } catch {
    // A cache is only a saving: without one (a read-only HOME, a full disk) kanon runs as well.
    try {
      rmSync(temp, { force: true });
    } catch {}
  }
}
