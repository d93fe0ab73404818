/**
 * The code cache of the built `dist/kanon.js` (scripts/kanon.cjs): the first run writes it, the next
 * runs take it as it is, and a damaged, refused or unwritable cache changes nothing kanon prints.
 */
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ROOT, sandboxPerTest } from "../support/cli.js";
import { builtUiQuits } from "../support/pty.js";

const s = sandboxPerTest();
// No XDG_CACHE_HOME (the suite sets one for every run): the cache goes to ~/.cache, the sandbox's.
const diff = () => s.spawn(["--home", s.kh, "diff"], { env: { XDG_CACHE_HOME: undefined } });
const withExample = () => cpSync(join(ROOT, "examples/home"), s.kh, { recursive: true });

/** The folder of the caches (one per installed copy of kanon) and this Node's cache in it. */
function cache(): { dir: string; file: string } {
  const code = join(s.home, ".cache/kanon/code");
  const [copy, ...others] = readdirSync(code);
  expect(others).toEqual([]);
  const dir = join(code, copy!);
  const names = readdirSync(dir).filter((n) => n.endsWith(`-node-${process.version}-${process.arch}.cache`));
  expect(names).toHaveLength(1);
  return { dir, file: join(dir, names[0]!) };
}

/** A cache file with a right header (CRC-32 and length) around `data`. */
function cacheFile(data: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32LE(crc32(data), 0);
  header.writeUInt32LE(data.length, 4);
  return Buffer.concat([header, data]);
}

describe("the code cache", () => {
  it("is written by the first run, private, and taken as it is by the next", () => {
    withExample();
    const first = diff();
    expect(first.status).toBe(0);
    const { dir, file } = cache();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const before = statSync(file);
    // V8 took the cache: a refused one would be written again (a new file in its place).
    expect(diff()).toEqual(first);
    expect(statSync(file).ino).toBe(before.ino);
    expect(statSync(file).mtimeMs).toBe(before.mtimeMs);
  });

  it("damaged, or refused by V8, is written again and the run is as without it", () => {
    withExample();
    const first = diff();
    const { file } = cache();
    const good = readFileSync(file);
    const flipped = Buffer.from(good);
    for (let i = 1000; i < flipped.length; i += 5000) flipped[i]! ^= 0xff;
    const damaged = {
      "bytes changed": flipped,
      "cut short": good.subarray(0, good.length >> 1),
      "shorter than its header": good.subarray(0, 3),
      "not V8's (a right header)": cacheFile(Buffer.alloc(good.length - 8, "x")),
    };
    for (const [label, bytes] of Object.entries(damaged)) {
      writeFileSync(file, bytes);
      const ino = statSync(file).ino;
      expect(diff(), label).toEqual(first);
      expect(statSync(file).ino, label).not.toBe(ino);
      expect(readFileSync(file).length, label).toBeGreaterThan(8);
    }
  });

  it("of an earlier build goes when a cache is written, with files a killed run left", () => {
    withExample();
    diff();
    const { dir, file } = cache();
    const earlier = join(dir, `kanon-cli-0123456789abcdef-node-${process.version}-${process.arch}.cache`);
    const left = `${file}.99999.tmp`;
    writeFileSync(earlier, "old");
    writeFileSync(left, "half");
    writeFileSync(file, "damaged");
    expect(diff().status).toBe(0);
    expect(readdirSync(dir)).toEqual([basename(file)]);
  });

  it("that cannot be written does not stop kanon, nor show", () => {
    withExample();
    const first = diff();
    // $XDG_CACHE_HOME is a file: no folder can be made in it.
    const blocked = join(s.work, "not-a-folder");
    writeFileSync(blocked, "");
    expect(s.spawn(["--home", s.kh, "diff"], { env: { XDG_CACHE_HOME: blocked } })).toEqual(first);
    expect(readFileSync(blocked, "utf8")).toBe("");
  });

  it("lets kanon ui load its chunk when the bundle's code comes from it", async () => {
    withExample();
    expect(diff().status).toBe(0);
    cache();
    expect(await builtUiQuits(s.kh, s.work, s.home)).toBe(0);
  });
});
