#!/usr/bin/env node
// Start-up of kanon's hook runner (the file `kanon apply` writes for hooks with envelope: neutral),
// next to bare `node -e 0` measured in the same run: what an agent waits for on top of the hook's
// own command. Each figure is the median of RUNS runs (BENCH_RUNS, default 15) of wall time and of
// CPU time (user + system, from wait4, as scripts/bench.mjs measures: on a busy machine it says more
// than the wall time), with a Claude SessionStart payload on stdin:
//   1. the runner with a built-in handler (no child process): its own start-up (budget: ≤ 30 ms
//      over node -e 0, in CPU time: on this 2-core machine shared by eight builds the wall time of
//      node -e 0 alone varied from 450 to 900 ms between runs, while CPU time moved by a few ms);
//   2. the runner with `--sh true`, and `sh -c true` spawned bare: the runner's cost around a command.
// Renders the runner from src/ (bundled on the fly with esbuild), so it needs no build.
// Exits 1 when the start-up is over budget.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { rawText } from "./esbuild-text.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const RUNS = Number(process.env.BENCH_RUNS || 15);
const BUDGET_MS = 30;

/** One run of argv with this process's stdin: wall and CPU time of it and its children, in ms. */
const MEASURE = `
import os, sys, time, json
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1); os.dup2(fd, 2)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
print(json.dumps({"ms": (time.perf_counter() - t) * 1000, "cpu": (ru.ru_utime + ru.ru_stime) * 1000, "status": os.waitstatus_to_exitcode(status)}))
`;

const tmp = mkdtempSync(join(tmpdir(), "kanon-bench-runner-"));
try {
  const bundle = await build({
    stdin: {
      contents: `export { runnerText } from "./src/runner/file.ts"; export { AGENTS } from "./src/agents/index.ts";`,
      resolveDir: ROOT,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "node",
    mainFields: ["module", "main"],
    write: false,
    plugins: [rawText],
    logLevel: "silent",
  });
  const generator = join(tmp, "generate.mjs");
  writeFileSync(generator, bundle.outputFiles[0].text);
  const { runnerText, AGENTS } = await import(pathToFileURL(generator).href);
  const runner = join(tmp, "hook-runner.mjs");
  writeFileSync(
    runner,
    runnerText(
      AGENTS.map((a) => a.manifest),
      join(tmp, "state"),
    ),
  );

  const input = JSON.stringify({
    session_id: "bench",
    transcript_path: "/dev/null",
    cwd: tmp,
    hook_event_name: "SessionStart",
    source: "startup",
  });
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const once = (argv) => {
    const r = spawnSync("python3", ["-c", MEASURE, ...argv], { input, cwd: tmp, encoding: "utf8" });
    const m = JSON.parse(r.stdout);
    if (m.status !== 0) throw new Error(`${argv.join(" ")} exited ${m.status}`);
    return m;
  };
  const node = process.execPath;
  const args = ["claude", "SessionStart", "bench", "--max", "4800", "--timeout", "60"];
  const commands = {
    bare: [node, "-e", "0"],
    builtin: [node, runner, ...args, "--builtin", "carry"],
    withCommand: [node, runner, ...args, "--sh", "true"],
    sh: ["/bin/sh", "-c", "true"],
  };
  // Round by round, so that a change in the machine's load touches every figure alike.
  const runs = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let i = 0; i < RUNS; i++) for (const [k, argv] of Object.entries(commands)) runs[k].push(once(argv));
  const [bare, builtin, withCommand, sh] = Object.keys(commands).map((k) => ({
    ms: median(runs[k].map((r) => r.ms)),
    cpu: median(runs[k].map((r) => r.cpu)),
  }));
  const row = (name, r) =>
    console.log(`${name.padEnd(40)} ${r.ms.toFixed(1).padStart(7)} ms (CPU ${r.cpu.toFixed(1)} ms)`);
  row("node -e 0", bare);
  row("runner, built-in handler", builtin);
  row("runner around `sh -c true`", withCommand);
  row("sh -c true", sh);
  const over = builtin.cpu - bare.cpu;
  const ok = over <= BUDGET_MS;
  console.log(
    `  ${ok ? "ok  " : "OVER"} runner start-up ≤ node -e 0 + ${BUDGET_MS} ms CPU (+${over.toFixed(1)} ms; wall +${(builtin.ms - bare.ms).toFixed(1)} ms)`,
  );
  console.log(
    `       around a command: +${(withCommand.ms - bare.ms - sh.ms).toFixed(1)} ms over node -e 0 and sh -c true (CPU +${(withCommand.cpu - bare.cpu - sh.cpu).toFixed(1)} ms)`,
  );
  if (!ok) process.exitCode = 1;
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
