// The build replaces a few modules with start-up stand-ins (scripts/esbuild-startup.mjs). Each must give
// what the module it replaces gives; these tests bundle small programs with and without the stand-ins
// and compare what they print.
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { KANON, ROOT, sandboxEnv } from "../support/cli.js";

// Plain JavaScript without types (a build script; a dependency's internal module).
const untyped = (specifier: string) => import(specifier);
const { LAZY_INTERN, lazyJsoncIntern, standIns } = await untyped("../../scripts/esbuild-startup.mjs");

const dir = mkdtempSync(join(tmpdir(), "kanon-stand-ins-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bundle `source` as the CLI is bundled (CommonJS, for Node) and run it; its stdout, parsed. */
async function bundleAndRun(source: string, plugins: unknown[]): Promise<unknown> {
  const entry = join(dir, `entry-${Math.random().toString(36).slice(2)}.ts`);
  // Imports first, the rest in an async function (a CommonJS bundle has no top-level await).
  const lines = source.trim().split("\n");
  const imports = lines.filter((l) => l.startsWith("import "));
  const body = lines.filter((l) => !l.startsWith("import "));
  writeFileSync(entry, `${imports.join("\n")}\n(async () => {\n${body.join("\n")}\n})();\n`);
  const out = `${entry}.cjs`;
  await build({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    mainFields: ["module", "main"],
    nodePaths: [join(ROOT, "node_modules")],
    plugins: plugins as never,
    logLevel: "silent",
  });
  const r = spawnSync(process.execPath, [out, dir], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

describe("the node:fs/promises stand-in", () => {
  // Every function kanon imports, on success and on the errors kanon handles.
  const program = `
import * as fsp from "node:fs/promises";
import { join } from "node:path";
const base = process.argv[2];
const results: unknown[] = [];
const record = async (what: string, run: () => Promise<unknown>) => {
  try {
    const value = await run();
    results.push([what, "ok", value instanceof Uint8Array ? Buffer.from(value).toString("hex") : value]);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    results.push([what, "error", err.code, err.syscall, err.message.replaceAll(base, "BASE")]);
  }
};
// The two runs are one after the other; each removes its directory at the end.
const root = join(base, "run");
await record("mkdir", () => fsp.mkdir(join(root, "a/b"), { recursive: true }).then((p) => p?.replace(base, "BASE")));
await record("mkdir again", () => fsp.mkdir(join(root, "a/b")));
await record("writeFile", () => fsp.writeFile(join(root, "a/f.txt"), "héllo", { mode: 0o600 }));
await record("readFile buffer", () => fsp.readFile(join(root, "a/f.txt")));
await record("readFile utf8", () => fsp.readFile(join(root, "a/f.txt"), "utf8"));
await record("readFile missing", () => fsp.readFile(join(root, "missing")));
await record("readFile dir", () => fsp.readFile(join(root, "a")));
await record("stat", () => fsp.stat(join(root, "a/f.txt")).then((s) => [s.isFile(), s.size, s.mode & 0o777]));
await record("lstat missing", () => fsp.lstat(join(root, "nope")));
await record("readdir", () => fsp.readdir(join(root, "a")).then((e) => e.sort()));
await record("readdir types", () =>
  fsp.readdir(join(root, "a"), { withFileTypes: true }).then((e) => e.map((d) => [d.name, d.isDirectory()]).sort()));
await record("mkdtemp", () => fsp.mkdtemp(join(root, "t-")).then((p) => p.startsWith(join(root, "t-"))));
await record("rename", () => fsp.rename(join(root, "a/f.txt"), join(root, "a/g.txt")));
await record("rename missing", () => fsp.rename(join(root, "a/f.txt"), join(root, "a/h.txt")));
await record("rmdir not empty", () => fsp.rmdir(join(root, "a")));
await record("rm missing", () => fsp.rm(join(root, "missing")));
await record("rm force", () => fsp.rm(join(root, "missing"), { force: true }));
await record("rm recursive", () => fsp.rm(join(root, "a"), { recursive: true }));
await record("rmdir", () => fsp.rmdir(root).catch(() => fsp.rm(root, { recursive: true })));
console.log(JSON.stringify(results));
`;

  it("gives the results and errors of node:fs/promises", async () => {
    const real = await bundleAndRun(program, []);
    const standIn = await bundleAndRun(program, [standIns]);
    expect(standIn).toEqual(real);
    expect((real as unknown[]).length).toBe(19);
  });

  it("refuses at build time a function it does not provide", async () => {
    await expect(
      bundleAndRun(`import { open } from "node:fs/promises"; console.log(typeof open);`, [standIns]),
    ).rejects.toThrow(/No matching export|open/);
  });
});

describe("the lazy node built-ins", () => {
  const program = `
import { createHash, randomBytes } from "node:crypto";
import { homedir } from "node:os";
import { spawn } from "node:child_process";
const loaded = (id: string) => process.moduleLoadList.includes(\`NativeModule \${id}\`);
const before = { crypto: loaded("crypto"), child_process: loaded("child_process") };
const hash = createHash("sha256").update("kanon").digest("hex");
const random = randomBytes(4).length;
const child = await new Promise((resolve) =>
  spawn(process.execPath, ["-e", "process.stdout.write('hi')"]).stdout.on("data", (d) => resolve(String(d))));
console.log(JSON.stringify({ before, hash, random, home: homedir() === require("node:os").homedir(), child }));
`;

  it("load the real module on the first call and give its results", async () => {
    const r = (await bundleAndRun(program, [standIns])) as Record<string, unknown>;
    expect(r.before).toEqual({ crypto: false, child_process: false });
    const real = (await bundleAndRun(program, [])) as Record<string, unknown>;
    expect(real.before).toEqual({ crypto: true, child_process: true });
    expect({ ...r, before: null }).toEqual({ ...real, before: null });
  });

  it("refuse at build time a function they do not provide", async () => {
    await expect(
      bundleAndRun(`import { exec } from "node:child_process"; console.log(typeof exec);`, [standIns]),
    ).rejects.toThrow(/No matching export|exec/);
  });
});

describe("jsonc-parser's intern tables, made on first use", () => {
  it("hold the strings of jsonc-parser's own tables, with the same lengths", async () => {
    const real = await untyped("jsonc-parser/lib/esm/impl/string-intern.js");
    const file = join(dir, "intern.mjs");
    writeFileSync(file, LAZY_INTERN);
    const lazy = await import(file);
    expect(lazy.supportedEols).toEqual(real.supportedEols);
    expect(lazy.cachedSpaces.length).toBe(real.cachedSpaces.length);
    for (let i = 0; i < real.cachedSpaces.length; i++)
      expect(lazy.cachedSpaces[i]).toBe(real.cachedSpaces[i]);
    expect(lazy.cachedSpaces[real.cachedSpaces.length]).toBeUndefined();
    for (const indent of [" ", "\t"])
      for (const eol of real.supportedEols) {
        const [r, l] = [
          real.cachedBreakLinesWithSpaces[indent][eol],
          lazy.cachedBreakLinesWithSpaces[indent][eol],
        ];
        expect(l.length).toBe(r.length);
        for (let i = 0; i < r.length; i++) expect(l[i]).toBe(r[i]);
      }
  });

  it("format and edit JSON as jsonc-parser does", async () => {
    const program = `
import { applyEdits, format, modify } from "jsonc-parser";
const text = '{\\n\\t"a": 1,\\r\\n  "b": {"c": [1,2,{"d":3}]}\\n}';
const out = [];
for (const options of [{ tabSize: 2, insertSpaces: true, eol: "\\n" }, { tabSize: 4, insertSpaces: false, eol: "\\r\\n" },
  { tabSize: 300, insertSpaces: true, eol: "\\n" }, { tabSize: 3, insertSpaces: true, eol: "\\u2028" }]) {
  out.push(applyEdits(text, format(text, undefined, options)));
  out.push(applyEdits(text, modify(text, ["b", "e"], { x: [1, { y: 2 }] }, { formattingOptions: options })));
}
console.log(JSON.stringify(out));
`;
    expect(await bundleAndRun(program, [lazyJsoncIntern])).toEqual(await bundleAndRun(program, []));
  });
});

describe("kanon diff's start-up", () => {
  it("loads neither child_process nor fs/promises", () => {
    const preload = join(dir, "modules.cjs");
    writeFileSync(
      preload,
      'process.on("exit", () => process.stderr.write(`\\nMODULES ${JSON.stringify(process.moduleLoadList)}\\n`));',
    );
    const home = mkdtempSync(join(dir, "home-"));
    const r = spawnSync(
      process.execPath,
      ["-r", preload, KANON, "--home", join(ROOT, "examples/home"), "diff"],
      { encoding: "utf8", env: sandboxEnv(home) },
    );
    expect(r.status).toBe(0);
    const modules: string[] = JSON.parse(/MODULES (.*)/.exec(r.stderr)![1]!);
    expect(modules).toContain("NativeModule vm");
    for (const id of ["child_process", "dgram", "fs/promises", "internal/readline/interface"])
      expect(modules, id).not.toContain(`NativeModule ${id}`);
  });

  it("writes to a file or /dev/null what it writes to a pipe", () => {
    const home = mkdtempSync(join(dir, "home-"));
    const argv = [KANON, "--home", join(ROOT, "examples/home"), "diff"];
    const piped = spawnSync(process.execPath, argv, { encoding: "utf8", env: sandboxEnv(home) });
    expect(piped.stdout).toContain("+++ ");
    expect(piped.stderr).toContain("warning: ");
    const [out, err] = [join(dir, "out.txt"), join(dir, "err.txt")];
    const [outFd, errFd] = [openSync(out, "w"), openSync(err, "w")];
    const toFiles = spawnSync(process.execPath, argv, {
      stdio: ["ignore", outFd, errFd],
      env: sandboxEnv(home),
    });
    closeSync(outFd);
    closeSync(errFd);
    expect(toFiles.status).toBe(piped.status);
    expect(readFileSync(out, "utf8")).toBe(piped.stdout);
    expect(readFileSync(err, "utf8")).toBe(piped.stderr);
    const devNull = openSync("/dev/null", "w");
    const discarded = spawnSync(process.execPath, argv, {
      stdio: ["ignore", devNull, devNull],
      env: sandboxEnv(home),
    });
    closeSync(devNull);
    expect(discarded.status).toBe(piped.status);
  });
});
