// Builds the CLI. Start-up is most of a small command's time, so the executable is a tiny CommonJS
// loader (no ESM loader to boot) that runs one bundle through a V8 code cache made at build time:
// the bundle is not parsed or compiled again on a warm run, and only what a run calls is executed
// (esbuild wraps each dynamically imported module so that its top level runs on first use).
// kanon ui's Ink needs ES modules (top-level await): it is a separate chunk, see esbuild-ui-chunk.mjs.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { CHECKSUM_WASM, cacheChecksum } from "./cache-checksum.mjs";
import {
  borrowHot,
  COLD_ROOTS,
  coldEntry,
  coldStubs,
  coldWrapper,
  exportNames,
} from "./esbuild-cold-chunk.mjs";
import { lazyJsoncIntern, standIns } from "./esbuild-startup.mjs";
import { rawText } from "./esbuild-text.mjs";
import { borrowFromBundle, lendToUiChunk } from "./esbuild-ui-chunk.mjs";

await rm("dist", { recursive: true, force: true });
const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  minify: true,
  legalComments: "none",
  // React's production build (its development build is large and slow).
  define: { __KANON_VERSION__: JSON.stringify(pkg.version), "process.env.NODE_ENV": '"production"' },
  logLevel: "warning",
  // Prefer ESM builds: jsonc-parser's UMD build loads its modules with a dynamic require().
  mainFields: ["module", "main"],
};
// An ES module bundle gets a require() for the CommonJS dependencies that load Node built-ins.
const esmRequire =
  "import { createRequire as __kanonRequire } from 'node:module'; const require = __kanonRequire(import.meta.url);";

// Ink connects to React's devtools when DEV=true is set; kanon does not ship them, so that module is empty.
const noInkDevtools = {
  name: "no-ink-devtools",
  setup(build) {
    build.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
      /[/\\]node_modules[/\\]ink[/\\]/.test(args.importer)
        ? { path: "ink-devtools", namespace: "empty" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "", loader: "js" }));
  },
};

// The terminal UI first: the bundle needs to know which of its modules the chunk borrows.
const borrowed = new Set();
const ui = await build({
  ...common,
  format: "esm",
  entryPoints: ["src/cli/ui/app.tsx"],
  outfile: "dist/kanon-ui.mjs",
  banner: { js: esmRequire },
  metafile: true,
  plugins: [rawText, borrowFromBundle(borrowed), noInkDevtools],
});

// dist/ is CommonJS (the root package is ESM): a CommonJS entry starts faster than an ESM one. The
// bundle is a function the loader calls with CommonJS's arguments and its import().
const IMPORT = "__kanonImport";
// The loader's function that gives a verified code cache by name ("cold": the cold chunk's).
const CACHED = "__kanonCached";
const COLD = "kanon-cold.js";
const bundleOptions = (lent, write) => ({
  ...common,
  format: "cjs",
  entryPoints: ["src/cli/bin.ts"],
  outfile: "dist/kanon-bundle.js",
  banner: { js: `(function (exports, require, module, __filename, __dirname, ${IMPORT}, ${CACHED}) {` },
  footer: { js: "})" },
  metafile: true,
  write,
  plugins: [
    rawText,
    standIns,
    lazyJsoncIntern,
    coldStubs({ lent, chunk: COLD, importChunk: IMPORT, cached: CACHED }),
  ],
});
// First the bundle's modules (the cold chunk takes those from the bundle), then the cold chunk (and
// which modules it takes), then the bundle again, lending them.
const inputs = (result) => new Set(Object.keys(result.metafile.inputs));
const hot = inputs(await build(bundleOptions(new Map(), false)));
for (const root of COLD_ROOTS)
  if (hot.has(root)) throw new Error(`${root} is in the bundle: a module there imports it without import()`);
const lent = new Set();
await build({
  ...common,
  format: "cjs",
  entryPoints: ["kanon-cold-entry"],
  outfile: `dist/${COLD}`,
  banner: { js: coldWrapper(IMPORT).banner },
  footer: { js: coldWrapper(IMPORT).footer },
  plugins: [
    rawText,
    standIns,
    lazyJsoncIntern,
    coldEntry,
    lendToUiChunk({
      borrowed,
      exports: ui.metafile.outputs["dist/kanon-ui.mjs"].exports,
      chunk: "./kanon-ui.mjs",
      importChunk: IMPORT,
    }),
    borrowHot({ hot, lent }),
  ],
});
const final = inputs(await build(bundleOptions(await exportNames(build, [...lent]), true)));
if (final.size !== hot.size || [...final].some((m) => !hot.has(m)))
  throw new Error("lending modules to the cold chunk changed the bundle's modules");
await writeFile("dist/package.json", '{ "type": "commonjs" }\n');
const bundle = await readFile("dist/kanon-bundle.js", "utf8");
for (const [name, text] of [
  ["kanon-bundle.js", bundle],
  [COLD, await readFile(`dist/${COLD}`, "utf8")],
]) {
  // The loaders read the scripts as Latin-1, which is exact for ASCII and cheaper than UTF-8 (esbuild
  // escapes every other character: its default charset is ASCII).
  if (/[\u0080-\uffff]/.test(text)) throw new Error(`dist/${name} is not ASCII: it is read as Latin-1`);
  // vm.Script runs them without a module loader: an import() left in one would fail at run time.
  if (/(?<![.\w$])import\(/.test(text)) throw new Error(`dist/${name} calls import(): bundle that module`);
}

// The code caches are made from real runs, after they have run, so that they hold the functions the
// commands compile, not only the top level: the bundle's from a `diff` of the example home in an empty
// HOME; the cold chunk's from the help, validations with messages and an import, run in one process
// (each run of the bundle takes the cold chunk V8 has already compiled).
const home = await mkdtemp(join(tmpdir(), "kanon-build-"));
let cache;
let coldCache;
try {
  const produce = `
const { readFileSync, writeFileSync } = require("node:fs");
const { dirname } = require("node:path");
const { Script } = require("node:vm");
const [file, out, ...args] = process.argv.slice(1);
process.argv = [process.argv[0], file, ...args];
const script = new Script(readFileSync(file, "utf8"), { filename: file });
process.on("exit", () => writeFileSync(out, script.createCachedData()));
script.runInThisContext()(exports, require, module, file, dirname(file), (specifier) => import(specifier));
`;
  const out = join(home, "cache");
  const env = { ...process.env, HOME: home, KANON_HOME: "", NO_COLOR: "1" };
  const run = spawnSync(
    process.execPath,
    ["-e", produce, "dist/kanon-bundle.js", out, "--home", "examples/home", "diff"],
    { env, stdio: ["ignore", "ignore", "pipe"] },
  );
  if (run.status !== 0) throw new Error(`making the code cache failed: ${run.stderr}`);
  cache = await readFile(out);

  const warned = join(home, "warned");
  const broken = join(home, "broken");
  await mkdir(warned);
  await mkdir(broken);
  await writeFile(
    join(warned, "kanon.yaml"),
    "version: 1\nhooks:\n  - {name: a, event: pretooluse, command: x}\n",
  );
  await writeFile(join(broken, "kanon.yaml"), "version: 1\nhooks: 5\nbogus: [1\n");
  const produceCold = `
const { readFileSync, writeFileSync } = require("node:fs");
const { dirname } = require("node:path");
const vm = require("node:vm");
const [file, out, runs] = process.argv.slice(1);
let cold;
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(source, options) {
    super(source, options);
    if (options.filename.endsWith(${JSON.stringify(COLD)})) cold ??= this;
  }
};
const bundle = new Script(readFileSync(file, "utf8"), { filename: file }).runInThisContext();
(async () => {
  const exit = process.exit;
  for (const args of JSON.parse(runs)) {
    await new Promise((done) => {
      process.exit = done;
      process.argv = [process.argv[0], file, ...args];
      bundle(exports, require, module, file, dirname(file), (specifier) => import(specifier), () => undefined);
    });
  }
  process.exit = exit;
  if (!cold) throw new Error("no run loaded the cold chunk");
  writeFileSync(out, cold.createCachedData());
})();
`;
  const runs = [
    ["--help"],
    ["--home", warned, "validate"],
    ["--home", broken, "validate"],
    ["--home", home, "import"],
  ];
  const coldRun = spawnSync(
    process.execPath,
    ["-e", produceCold, "dist/kanon-bundle.js", join(home, "cold"), JSON.stringify(runs)],
    { env, stdio: ["ignore", "ignore", "pipe"] },
  );
  if (coldRun.status !== 0) throw new Error(`making the cold chunk's code cache failed: ${coldRun.stderr}`);
  coldCache = await readFile(join(home, "cold"));
} finally {
  await rm(home, { recursive: true, force: true });
}

// V8 rejects a cache made by another V8 version or with other V8 flags, but it checks only the length
// of the source, and it trusts the bytes: a damaged cache crashes the process. So a cache's name
// carries its script's hash (a loader reads only the caches of its own scripts) and the loader checks
// the cache's checksum (scripts/cache-checksum.mjs) before V8 sees it. A cache that is missing,
// damaged or rejected means a plain compile.
// The bundle and its cache are a third of a megabyte each, and on a virtual machine the first touch of
// a page of memory can cost more than reading it: the loader reads the bundle into the WebAssembly
// memory the checksum runs on, makes the source string from it, then reads the caches into the same
// pages.
const cacheFile = (name, text) =>
  `${name}-${createHash("sha256").update(text).digest("hex").slice(0, 16)}.cache`;
const cacheName = cacheFile("kanon-bundle", bundle);
const coldCacheName = cacheFile("kanon-cold", await readFile(`dist/${COLD}`, "utf8"));
await writeFile(join("dist", cacheName), cache);
await writeFile(join("dist", coldCacheName), coldCache);
const loader = `#!/usr/bin/env node
"use strict";
const { closeSync, fstatSync, openSync, readSync } = require("node:fs");
const { join } = require("node:path");
const { Script } = require("node:vm");
const file = join(__dirname, "kanon-bundle.js");
const fd = openSync(file, "r");
const size = fstatSync(fd).size;
const memory = new WebAssembly.Memory({ initial: Math.ceil((size + 4) / 65536) });
let bytes = Buffer.from(memory.buffer);
for (let at = 0, n; at < size; at += n)
  if ((n = readSync(fd, bytes, at, size - at, at)) === 0) throw new Error(\`\${file}: shorter than \${size} bytes\`);
closeSync(fd);
const source = bytes.latin1Slice(0, size);
let h;
/** The bytes of a code cache whose checksum is right (read over the bundle's pages), else undefined. */
function cached(name, checksum) {
  let cacheFd;
  try {
    cacheFd = openSync(join(__dirname, name), "r");
    const cacheSize = fstatSync(cacheFd).size;
    const more = Math.ceil((cacheSize + 4) / 65536) - memory.buffer.byteLength / 65536;
    if (more > 0) {
      memory.grow(more);
      bytes = Buffer.from(memory.buffer);
    }
    h ??= new WebAssembly.Instance(
      new WebAssembly.Module(Buffer.from(${JSON.stringify(CHECKSUM_WASM)}, "base64")),
      { m: { m: memory } },
    ).exports.h;
    if (readSync(cacheFd, bytes, 0, cacheSize, 0) !== cacheSize) return undefined;
    // The checksum reads the last word whole: the bytes after the cache are zero, as in the build's.
    bytes.fill(0, cacheSize, cacheSize + 4);
    return h(0, cacheSize) === checksum ? bytes.subarray(0, cacheSize) : undefined;
  } catch {
    return undefined;
  } finally {
    if (cacheFd !== undefined) closeSync(cacheFd);
  }
}
const cachedData = cached(${JSON.stringify(cacheName)}, ${cacheChecksum(cache)});
const run = new Script(source, { filename: file, cachedData }).runInThisContext();
const caches = { cold: [${JSON.stringify(coldCacheName)}, ${cacheChecksum(coldCache)}] };
run(exports, require, module, file, __dirname, (specifier) => import(specifier), (name) => cached(...caches[name]));
`;
await writeFile("dist/kanon.js", loader);
await chmod("dist/kanon.js", 0o755);

await build({
  ...common,
  format: "esm",
  minify: false,
  entryPoints: ["src/docs/cli.ts"],
  outfile: "dist/kanon-docs.mjs",
  banner: { js: esmRequire },
  plugins: [rawText],
});
