// Bundles the CLI into one ESM file (fast start-up: one module to load, no resolution of node_modules).
import { chmod, readFile, rm } from "node:fs/promises";
import { build } from "esbuild";
import { rawText } from "./esbuild-text.mjs";

await rm("dist", { recursive: true, force: true });
const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  minify: true,
  legalComments: "none",
  define: { __KANON_VERSION__: JSON.stringify(pkg.version) },
  // Some dependencies are CommonJS: give the ESM bundle a require() for Node built-ins.
  banner: {
    js: "import { createRequire as __kanonRequire } from 'node:module'; const require = __kanonRequire(import.meta.url);",
  },
  logLevel: "warning",
  // Prefer ESM builds: jsonc-parser's UMD build loads its modules with a dynamic require().
  mainFields: ["module", "main"],
  plugins: [rawText],
};

// Code splitting: commands and rarely needed modules (the positional YAML decoder) are separate
// chunks that load only when used.
await build({
  ...common,
  entryPoints: { kanon: "src/cli/bin.ts" },
  outdir: "dist",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  banner: { js: `#!/usr/bin/env node\n${common.banner.js}` },
});
await chmod("dist/kanon.js", 0o755);

await build({ ...common, minify: false, entryPoints: ["src/docs/cli.ts"], outfile: "dist/kanon-docs.js" });
