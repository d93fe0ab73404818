// Builds the CLI. Start-up is most of a small command's time, so the executable is a tiny CommonJS
// loader (no ESM loader to boot) that runs one bundle through a V8 code cache made at build time:
// the bundle is not parsed or compiled again on a warm run, only what a run calls is executed.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

await rm("dist", { recursive: true, force: true });
const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  minify: true,
  legalComments: "none",
  define: { __KANON_VERSION__: JSON.stringify(pkg.version) },
  logLevel: "warning",
  // Prefer ESM builds: jsonc-parser's UMD build loads its modules with a dynamic require().
  mainFields: ["module", "main"],
};

// dist/ is CommonJS (the root package is ESM): a CommonJS entry starts faster than an ESM one.
await build({
  ...common,
  format: "cjs",
  entryPoints: ["src/cli/bin.ts"],
  outfile: "dist/kanon-bundle.js",
  // A function the loader calls with CommonJS's arguments. Commands and rarely needed modules stay
  // lazy: esbuild wraps each dynamically imported module so its top level runs on first use.
  banner: { js: '(function (exports, require, module, __filename, __dirname) {"use strict";' },
  footer: { js: "})" },
});
await writeFile("dist/package.json", '{ "type": "commonjs" }\n');

// The cache's name carries the bundle's hash, so a loader only ever reads the cache of its own
// bundle; V8 itself rejects a cache made by another Node/V8 version or with other flags, and the
// loader then just compiles the bundle.
const bundle = await readFile("dist/kanon-bundle.js");
const cacheName = `kanon-bundle-${createHash("sha256").update(bundle).digest("hex").slice(0, 16)}.cache`;
const loader = `#!/usr/bin/env node
"use strict";
const { readFileSync } = require("node:fs");
const { join } = require("node:path");
const { Script } = require("node:vm");
const file = join(__dirname, "kanon-bundle.js");
let cachedData;
try {
  cachedData = readFileSync(join(__dirname, ${JSON.stringify(cacheName)}));
} catch {}
new Script(readFileSync(file, "utf8"), { filename: file, cachedData }).runInThisContext()(exports, require, module, file, __dirname);
`;
await writeFile("dist/kanon.js", loader);
await chmod("dist/kanon.js", 0o755);

// Make the cache from a real run (`diff` of the example home in an empty HOME), after it has run,
// so that it holds the functions the common commands compile, not only the top level.
const home = await mkdtemp(join(tmpdir(), "kanon-build-"));
try {
  const produce = `
const { readFileSync, writeFileSync } = require("node:fs");
const { Script } = require("node:vm");
const [file, out, ...args] = process.argv.slice(1);
process.argv = [process.argv[0], file, ...args];
const script = new Script(readFileSync(file, "utf8"), { filename: file });
process.on("exit", () => writeFileSync(out, script.createCachedData()));
script.runInThisContext()(exports, require, module, file, require("node:path").dirname(file));
`;
  const run = spawnSync(
    process.execPath,
    ["-e", produce, "dist/kanon-bundle.js", join("dist", cacheName), "--home", "examples/home", "diff"],
    {
      env: { ...process.env, HOME: home, KANON_HOME: "", NO_COLOR: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  if (run.status !== 0) throw new Error(`making the code cache failed: ${run.stderr}`);
} finally {
  await rm(home, { recursive: true, force: true });
}

await build({
  ...common,
  format: "esm",
  minify: false,
  entryPoints: ["src/docs/cli.ts"],
  outfile: "dist/kanon-docs.mjs",
});
