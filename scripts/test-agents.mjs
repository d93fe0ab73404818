#!/usr/bin/env node
// npm run test:agents [-- agent... --renderer=reference --keep ...]
//
// Runs the agent conformance suite (conformance/README.md). The suite is TypeScript; this script bundles
// it with esbuild (a dev dependency) into .cache/conformance/ and runs it with plain node.
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { rawText } from "./esbuild-text.mjs";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = join(repoRoot, ".cache", "conformance");
const bundle = join(outDir, "suite.mjs");
mkdirSync(outDir, { recursive: true });

await build({
  entryPoints: [join(repoRoot, "conformance", "entry.ts")],
  outfile: bundle,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  plugins: [rawText],
  logLevel: "warning",
});

const { main } = await import(pathToFileURL(bundle).href);
process.exitCode = await main(process.argv.slice(2), { repoRoot, bundle });
