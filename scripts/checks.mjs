// The static checks of `npm test` (type check, lint, layers, dead code), run side by side, and with
// the test run when one is given: `node scripts/checks.mjs [-- command ...]` (npm test: `-- vitest
// run`). Each check is one single-threaded process; one after another they took ~40 s on this 2-core
// machine with a core idle, and vitest too leaves a core idle while a test waits for a timeout or
// its last file runs alone. The command's output is live; each check's is held back and printed
// whole under its name once the command has ended (or when it ends, without a command), so a
// failure reads as it would alone. The exit status is 1 when anything failed, and the last line
// names what did.
import { spawn } from "node:child_process";

// tsc, depcruise and knip keep what they found between runs under node_modules/.cache (each
// re-reads every file and redoes the work of those that changed; a fresh clone starts without it).
// CPU time (user+sys) of each without -> with a cache from the run before, nothing changed, on this
// 2-core machine under load: tsc 17.0 -> 6.7 s, depcruise 3.9 -> 2.2 s, knip 4.6 -> 1.4 s, knip
// --production 3.0 -> 1.3 s; together 28.5 -> 11.6 s of the ~30 s the checks took beside vitest.
const CACHE = "node_modules/.cache/kanon-checks";
const CHECKS = [
  [
    "typecheck",
    "tsc",
    ["--noEmit", "-p", ".", "--incremental", "--tsBuildInfoFile", `${CACHE}/tsc.tsbuildinfo`],
  ],
  ["lint", "biome", ["check", "."]],
  ["deps", "depcruise", ["src", "--config", ".dependency-cruiser.mjs", "--cache", `${CACHE}/depcruise`]],
  ["dead", "knip", ["--cache", "--cache-location", `${CACHE}/knip`]],
  ["dead --production", "knip", ["--production", "--cache", "--cache-location", `${CACHE}/knip-production`]],
];

const dash = process.argv.indexOf("--");
const command = dash === -1 ? [] : process.argv.slice(dash + 1);

/** Runs a check; its report (a ✓/✗ line, then its output) is written by `report` when it ends. */
function check([name, bin, args], report) {
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
      const status = ok ? "" : `: ${signal ?? `exit ${code}`}`;
      report(
        `${ok ? "✓" : "✗"} ${name} (${[bin, ...args].join(" ")}) ${seconds} s${status}\n${output && `${output}\n`}`,
      );
      resolve(ok ? null : name);
    });
  });
}

/** The command, its output as it comes; resolves to its name when it failed. */
function run([bin, ...args]) {
  return new Promise((resolve) => {
    const child = spawn(`node_modules/.bin/${bin}`, args, { stdio: "inherit" });
    child.on("error", (e) => {
      process.stderr.write(`${bin}: ${e.message}\n`);
      resolve(bin);
    });
    child.on("close", (code) => resolve(code === 0 ? null : [bin, ...args].join(" ")));
  });
}

const held = [];
const checks = Promise.all(
  CHECKS.map((c) => check(c, (text) => (command.length > 0 ? held.push(text) : process.stdout.write(text)))),
);
const commandFailed = command.length > 0 ? await run(command) : null;
const failed = (await checks).filter((n) => n !== null);
for (const text of held) process.stdout.write(text);
if (commandFailed) failed.push(commandFailed);
if (failed.length > 0) {
  process.stdout.write(`failed: ${failed.join(", ")}\n`);
  process.exitCode = 1;
}
