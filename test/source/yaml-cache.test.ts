/** The decode of kanon.yaml kept between runs (source/yaml-cache.ts). */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Decoded, decodeYaml } from "../../src/source/decode.js";
import { kanonSchema } from "../../src/source/schema.js";
import { cachedDecode, STALE_DAYS } from "../../src/source/yaml-cache.js";
import { sandboxPerTest } from "../support/cli.js";

const schema = kanonSchema(["codex", "claude"], ["Stop"]);

/** A valid kanon.yaml of about `bytes` characters (hooks), with `extra` lines at the top. */
function largeYaml(bytes = 40_000, extra = ""): string {
  let text = `version: 1\n${extra}hooks:\n`;
  for (let i = 0; text.length < bytes; i++)
    text += `  - name: hook-${i}\n    event: Stop\n    command: /usr/local/bin/hook-${i % 7}\n    timeout: ${5 + (i % 20)}\n`;
  return text;
}

/** The entries in a cache folder (not the file that says when it was last swept). */
const entries = (dir: string) => readdirSync(dir).filter((n) => n.endsWith(".v8"));

describe("cachedDecode", () => {
  const s = sandboxPerTest();
  const where = () => ({ config: join(s.work, "kanon.yaml"), label: "kanon.yaml" });
  const dir = () => join(s.home, ".cache", "kanon", "yaml");
  /** cachedDecode, counting the decodes it makes. */
  const counted = async (text: string, w = where()) => {
    let decodes = 0;
    const decoded = await cachedDecode(text, w, dir(), () => {
      decodes++;
      return decodeYaml(text, w.label, schema);
    });
    return { decoded, decodes };
  };

  it("decodes an unchanged large text once: later runs get the same value and warnings from the cache", async () => {
    const text = largeYaml(40_000, "bogus: 1\n");
    const first = await counted(text);
    expect(first.decodes).toBe(1);
    expect(first.decoded.warnings).toEqual(['kanon.yaml:2:1: unknown key "bogus" is ignored']);
    const second = await counted(text);
    expect(second.decodes).toBe(0);
    expect(second.decoded).toEqual(first.decoded);
    // Private: the user's folder and file only.
    expect(statSync(dir()).mode & 0o777).toBe(0o700);
    const [entry] = entries(dir());
    expect(statSync(join(dir(), entry!)).mode & 0o777).toBe(0o600);
  });

  it("keeps values exactly as decoded (negative zero, key order)", async () => {
    const text = largeYaml();
    const value = { z: -0, a: [1, null, "x"], b: { "": true } };
    const decode = (): Decoded => ({ value, errors: [], warnings: [] });
    await cachedDecode(text, where(), dir(), decode);
    const cached = (
      await cachedDecode(text, where(), dir(), () => {
        throw new Error("decoded again");
      })
    ).value as typeof value;
    expect(cached).toEqual(value);
    expect(Object.keys(cached)).toEqual(["z", "a", "b"]);
    expect(Object.is(cached.z, -0)).toBe(true);
  });

  it("decodes again when the text, the file or its name in messages changes", async () => {
    const text = largeYaml();
    await counted(text);
    expect((await counted(`${text}# changed\n`)).decodes).toBe(1);
    expect((await counted(text, { config: join(s.work, "other.yaml"), label: "kanon.yaml" })).decodes).toBe(
      1,
    );
    expect((await counted(text, { ...where(), label: "/x/kanon.yaml" })).decodes).toBe(1);
    // Each file keeps its own entry: the first is still there.
    expect((await counted(text, { config: join(s.work, "other.yaml"), label: "kanon.yaml" })).decodes).toBe(
      0,
    );
  });

  it("keeps no decode with errors", async () => {
    const bad = largeYaml(40_000, "agents: 3\n");
    expect((await counted(bad)).decoded.errors).toEqual([
      "kanon.yaml:2:9: agents: expected a list, got number 3",
    ]);
    expect((await counted(bad)).decodes).toBe(1);
    expect(existsSync(dir()) ? readdirSync(dir()) : []).toEqual([]);
  });

  it("keeps the decode of a small file too", async () => {
    expect((await counted("version: 1\n")).decodes).toBe(1);
    expect((await counted("version: 1\n")).decodes).toBe(0);
    expect(entries(dir())).toHaveLength(1);
  });

  it("removes the entries not written for STALE_DAYS when it writes one, once a day", async () => {
    const old = { config: join(s.work, "old", "kanon.yaml"), label: "kanon.yaml" };
    const recent = { config: join(s.work, "recent", "kanon.yaml"), label: "kanon.yaml" };
    await counted("version: 1\n", old);
    await counted("version: 1\n", recent);
    const [a, b] = entries(dir()).map((n) => join(dir(), n));
    const day = 24 * 60 * 60;
    const now = Date.now() / 1000;
    const age = (file: string, days: number) => utimesSync(file, now - days * day, now - days * day);
    // One entry a day past the limit, the other a day short of it.
    age(a!, STALE_DAYS + 1);
    age(b!, STALE_DAYS - 1);
    // Swept less than a day ago (by the first write): nothing goes yet.
    await counted("version: 1\n# another\n");
    expect(existsSync(a!)).toBe(true);
    age(join(dir(), ".swept"), 1.1);
    await counted("version: 1\n# a third\n");
    expect(existsSync(a!)).toBe(false);
    expect(existsSync(b!)).toBe(true);
    // b and the entry of where() (the third text replaced the second's).
    expect(entries(dir())).toHaveLength(2);
  });

  it("removes the half-written file a killed run left when it writes an entry", async () => {
    mkdirSync(dir(), { recursive: true });
    const left = join(dir(), "0badf00d-node-v20.0.0.v8.4242.tmp");
    writeFileSync(left, "half");
    await counted(largeYaml());
    expect(existsSync(left)).toBe(false);
    expect(entries(dir())).toHaveLength(1);
  });

  it("reads a damaged entry as none, and works without a writable cache", async () => {
    const text = largeYaml();
    await counted(text);
    const entry = join(dir(), entries(dir())[0]!);
    const bytes = readFileSync(entry);
    bytes[bytes.length - 100]! ^= 1;
    writeFileSync(entry, bytes);
    expect((await counted(text)).decodes).toBe(1);
    expect((await counted(text)).decodes).toBe(0);
    writeFileSync(entry, "short");
    expect((await counted(text)).decodes).toBe(1);
    // A file where the cache folder would be: every run decodes, none fails.
    const blocked = join(s.work, "blocked");
    writeFileSync(blocked, "");
    const decode = (): Decoded => decodeYaml(text, "kanon.yaml", schema);
    expect((await cachedDecode(text, where(), join(blocked, "yaml"), decode)).errors).toEqual([]);
  });
});

describe("kanon on a large home, twice", () => {
  const s = sandboxPerTest();
  /** The user's cache folder of a run without XDG_CACHE_HOME: ~/.cache. */
  const k = (...args: string[]) => s.run(["--home", s.kh, ...args], { env: { XDG_CACHE_HOME: undefined } });

  it("prints the same output and messages from the cache, positions included", async () => {
    s.writeHome(largeYaml(40_000, "bogus: 1\n"));
    const first = await k("render", "--agent", "claude");
    expect(first.status).toBe(0);
    expect(first.stderr).toContain('kanon.yaml:2:1: unknown key "bogus" is ignored');
    expect(entries(join(s.home, ".cache", "kanon", "yaml"))).toHaveLength(1);
    expect(await k("render", "--agent", "claude")).toEqual(first);
  });

  it("locates a validation error with a full parse when the decode came from the cache", async () => {
    const text = largeYaml();
    s.writeHome(text);
    expect((await k("validate")).status).toBe(0);
    // Same text but for the version: a new entry; its error needs a position, on the run that made
    // the entry and on the one that reads it.
    s.writeHome(text.replace("version: 1", "version: 2"));
    const first = await k("validate");
    expect(first.status).toBe(1);
    expect(first.stderr).toBe("kanon.yaml:1:10: unsupported version 2\n");
    expect(await k("validate")).toEqual(first);
  });

  it("follows $XDG_CACHE_HOME when it is absolute", async () => {
    s.writeHome(largeYaml());
    const xdg = join(s.work, "xdg");
    mkdirSync(xdg);
    expect((await s.run(["--home", s.kh, "validate"], { env: { XDG_CACHE_HOME: xdg } })).status).toBe(0);
    expect(entries(join(xdg, "kanon", "yaml"))).toHaveLength(1);
  });
});
