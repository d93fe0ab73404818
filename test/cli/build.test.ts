import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Script } from "node:vm";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { KANON, ROOT, sandboxEnv } from "../support/cli.js";

// A build script: plain JavaScript without types.
const untyped = (specifier: string) => import(specifier);
const { CHECKSUM_WASM, cacheChecksum } = await untyped("../../scripts/cache-checksum.mjs");

const DIST = join(ROOT, "dist");
const read = (name: string) => readFileSync(join(DIST, name), "utf8");
const cacheName = (script = "kanon-bundle") =>
  readdirSync(DIST).find((f) => f.startsWith(`${script}-`) && f.endsWith(".cache"))!;

describe("the build", () => {
  it("keeps Ink and React out of every command's start-up: only kanon ui loads them", () => {
    for (const name of ["kanon.js", "kanon-bundle.js", "kanon-cold.js"]) {
      const text = read(name);
      expect(text.includes("yoga"), name).toBe(false);
      expect(text.includes("react.transitional.element"), name).toBe(false);
    }
    // vm.Script gives the bundle no import(): the UI chunk comes through the loader's.
    for (const name of ["kanon-bundle.js", "kanon-cold.js"])
      expect(/(?<![.\w$])import\(/.test(read(name)), name).toBe(false);
    const ui = read("kanon-ui.mjs");
    expect(ui).toContain("yoga");
    expect(ui).toContain("react.transitional.element");
    expect(read("kanon-cold.js")).toContain('__kanonImport("./kanon-ui.mjs")');
  });

  it("leaves commander, import, the git providers and the yaml package out of the bundle", () => {
    const bundle = read("kanon-bundle.js");
    const cold = read("kanon-cold.js");
    for (const text of [
      "unknownCommand", // commander
      "settings are not importable yet", // src/import/read.ts
      "is mutable without a matching kanon.lock entry", // src/providers/lock.ts
      "YAMLMap", // the yaml package (positional decoding)
    ]) {
      expect(bundle, text).not.toContain(text);
      expect(cold, text).toContain(text);
    }
    // One copy of each module: the cold chunk takes the bundle's (KanonError is defined once).
    expect(bundle).toContain('name="KanonError"');
    expect(cold).not.toContain('name="KanonError"');
  });

  it("gives the UI chunk the bundle's own kanon modules, not copies of them", () => {
    const applyText = "changed while kanon was applying"; // from src/destination/apply.ts, which the UI uses
    expect(read("kanon-bundle.js")).toContain(applyText);
    const ui = read("kanon-ui.mjs");
    expect(ui).not.toContain(applyText);
    expect(ui).toContain('kanon.modules")]["src/destination/apply.ts"]');
  });

  it("ships code caches that this Node accepts, named after their scripts and checked by the loader", () => {
    for (const script of ["kanon-bundle", "kanon-cold"]) {
      const name = cacheName(script);
      const cache = readFileSync(join(DIST, name));
      expect(read("kanon.js")).toContain(`${JSON.stringify(name)}, ${cacheChecksum(cache)}`);
      const file = `${script}.js`;
      const compiled = new Script(read(file), { filename: file, cachedData: cache });
      expect(compiled.cachedDataRejected, script).toBe(false);
    }
  });
});

// The project's TypeScript libraries declare no WebAssembly values.
const { WebAssembly: Wasm } = globalThis as unknown as {
  WebAssembly: {
    Module: new (bytes: Uint8Array) => object;
    Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
    Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  };
};

describe("the code cache's checksum", () => {
  const wasm = new Wasm.Module(Buffer.from(CHECKSUM_WASM, "base64"));
  const inWasm = (bytes: Uint8Array): number => {
    const memory = new Wasm.Memory({ initial: Math.ceil((bytes.length + 4) / 65536) });
    new Uint8Array(memory.buffer).set(bytes);
    const { h } = new Wasm.Instance(wasm, { m: { m: memory } }).exports as {
      h: (start: number, end: number) => number;
    };
    return h(0, bytes.length);
  };

  it("is computed by the loader's WebAssembly as by the reference, for any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => inWasm(bytes) === cacheChecksum(bytes)),
      { numRuns: 300 },
    );
    const cache = readFileSync(join(DIST, cacheName()));
    expect(inWasm(cache)).toBe(cacheChecksum(cache));
  });

  it("changes when any byte of the cache changes", () => {
    const cache = new Uint8Array(readFileSync(join(DIST, cacheName())).subarray(0, 4099));
    const sum = cacheChecksum(cache);
    fc.assert(
      fc.property(fc.nat(cache.length - 1), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const damaged = cache.slice();
        damaged[at] = damaged[at]! ^ flip;
        return cacheChecksum(damaged) !== sum && inWasm(damaged) !== sum;
      }),
      { numRuns: 300 },
    );
  });
});

describe("the loader without a usable code cache", () => {
  const base = mkdtempSync(join(tmpdir(), "kanon-loader-"));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const home = join(base, "home");
  mkdirSync(home);
  const copy = join(base, "dist");
  cpSync(DIST, copy, { recursive: true });
  cpSync(join(ROOT, "examples/home"), join(base, "kanon-home"), { recursive: true });
  const run = (kanon: string, nodeFlags: string[] = [], args = ["render"]) => {
    const r = spawnSync(
      process.execPath,
      [...nodeFlags, kanon, "--home", join(base, "kanon-home"), ...args],
      {
        encoding: "utf8",
        env: sandboxEnv(home),
      },
    );
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const expected = run(KANON);
  // The help comes from the cold chunk (commander), with its own code cache.
  const help = run(KANON, [], ["--help"]);

  it("compiles the bundle when V8 rejects the cache (other V8 flags)", () => {
    expect(expected.status).toBe(0);
    expect(expected.stdout).toContain("CLAUDE.md");
    expect(run(KANON, ["--no-opt"])).toEqual(expected);
  });

  it("compiles the bundle when the cache is damaged: its bytes never reach V8", () => {
    const file = join(copy, cacheName());
    const bytes = readFileSync(file);
    for (let i = 64; i < bytes.length; i += 97) bytes[i] = bytes[i]! ^ 0xff;
    writeFileSync(file, bytes);
    expect(run(join(copy, "kanon.js"))).toEqual(expected);
  });

  it("compiles the bundle when the cache is missing", () => {
    unlinkSync(join(copy, cacheName()));
    expect(run(join(copy, "kanon.js"))).toEqual(expected);
  });

  it("compiles the cold chunk when its cache is damaged or missing", () => {
    expect(help).toMatchObject({ status: 0, stderr: "" });
    expect(help.stdout).toMatch(/^Usage: kanon /);
    const file = join(copy, cacheName("kanon-cold"));
    const bytes = readFileSync(file);
    for (let i = 64; i < bytes.length; i += 97) bytes[i] = bytes[i]! ^ 0xff;
    writeFileSync(file, bytes);
    expect(run(join(copy, "kanon.js"), [], ["--help"])).toEqual(help);
    unlinkSync(file);
    expect(run(join(copy, "kanon.js"), [], ["--help"])).toEqual(help);
  });
});
