// The static checks of `npm test` (type check, lint, layers, dead code), run side by side: each is one
// single-threaded process, so one after another they left a core idle for ~20 s of a ~40 s stretch
// on this 2-core machine (tsc alone is half of it). Each one's output is held back and printed whole
// under its name when it ends, so a failure reads as it would alone; the exit status is 1 when any
// failed, and the last line names the ones that did.
import { spawn } from "node:child_process";

const CHECKS = [
  ["typecheck", "tsc", ["--noEmit", "-p", "."]],
  ["lint", "biome", ["check", "."]],
  ["deps", "depcruise", ["src", "--config", ".dependency-cruiser.mjs"]],
  ["dead", "knip", []],
  ["dead --production", "knip", ["--production"]],
];

function run([name, bin, args]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(`node_modules/.bin/${bin}`, args, { stdio: ["ignore", "pipe", "pipe"] });
    const chunks = [];
    child.stdout.on("data", (b) => chunks.push(b));
    child.stderr.on("data", (b) => chunks.push(b));
    child.on("error", (e) => chunks.push(Buffer.from(`${e.message}\n`)));
    child.on("close", (code, signal) => {
      const ok = code === 0;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const output = Buffer.concat(chunks).toString().trimEnd();
      process.stdout.write(
        `${ok ? "✓" : "✗"} ${name} (${[bin, ...args].join(" ")}) ${seconds} s${ok ? "" : `: ${signal ?? `exit ${code}`}`}\n`,
      );
      if (output) process.stdout.write(`${output}\n`);
      resolve(ok ? null : name);
    });
  });
}

const failed = (await Promise.all(CHECKS.map(run))).filter((n) => n !== null);
if (failed.length > 0) {
  process.stdout.write(`failed: ${failed.join(", ")}\n`);
  process.exitCode = 1;
}
