#!/usr/bin/env node
// Speed of the generated OpenCode plugin (kanon-hooks.js), measured in this Node process:
//   1. a tool call that matches no hook (budget 0.2 ms), through OpenCode 1's tool.execute.before and
//      OpenCode 2's execute.before, plus a bus event the plugin ignores (OpenCode 1 sends every one);
//   2. a tool call that matches one hook (`true`), minus the same process spawned bare: what the plugin
//      adds on top of the hook process (budget 5 ms).
// Renders the plugin from src/ (bundled on the fly with esbuild), so it needs no build.
// Exits 1 when a figure is over budget.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { rawText } from "./esbuild-text.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const NO_MATCH_BUDGET_MS = 0.2;
const MATCH_BUDGET_MS = 5;

const tmp = mkdtempSync(join(tmpdir(), "kanon-bench-oc-"));
try {
  const bundle = await build({
    entryPoints: [join(ROOT, "src/agents/opencode/plugin.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    // As scripts/build.mjs: jsonc-parser's ESM build (its UMD one requires files dynamically).
    mainFields: ["module", "main"],
    write: false,
    plugins: [rawText],
    logLevel: "silent",
  });
  const renderer = join(tmp, "render.mjs");
  writeFileSync(renderer, bundle.outputFiles[0].text);
  const { renderOpenCodePlugin } = await import(pathToFileURL(renderer).href);

  const load = async (name, hooks) => {
    const file = join(tmp, `${name}.js`);
    writeFileSync(file, renderOpenCodePlugin(hooks));
    return (await import(pathToFileURL(file).href)).default;
  };
  const hook = (event, matcher, command = "true") => ({
    name: `${event}-${JSON.stringify(matcher)}`,
    event,
    matcher,
    command,
  });

  // 1. No matching hook: a realistic table where nothing matches the bash tool.
  const table = [
    hook("PreToolUse", { names: ["edit", "apply_patch", "patch"] }),
    hook("PreToolUse", { names: ["write"] }),
    hook("PreToolUse", { regex: "^(Read|Glob|Grep)$" }),
    hook("PreToolUse", { regex: "mcp__.*" }),
    hook("PreToolUse", { names: ["webfetch", "websearch"] }),
    hook("PostToolUse", { names: ["edit"] }),
    hook("Stop", null),
    hook("SessionStart", { names: ["startup"] }),
    hook("UserPromptSubmit", null),
  ];
  const v1 = await (await load("nomatch-v1", table)).server({ directory: tmp });
  let v2before;
  await (await load("nomatch-v2", table)).setup({
    location: { directory: tmp },
    tool: {
      hook: async (name, cb) => {
        if (name === "execute.before") v2before = cb;
        return { dispose: async () => {} };
      },
    },
  });

  const perCallMs = async (n, fn) => {
    for (let i = 0; i < Math.min(n, 2000); i++) await fn(i); // warm up
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await fn(i);
    return Number(process.hrtime.bigint() - t0) / 1e6 / n;
  };
  const N = 200_000;
  const v1Miss = await perCallMs(N, (i) =>
    v1["tool.execute.before"](
      { tool: "bash", sessionID: "ses", callID: `c${i}` },
      { args: { command: "ls" } },
    ),
  );
  const v2Miss = await perCallMs(N, (i) =>
    v2before({
      tool: "shell",
      sessionID: "ses",
      agent: "build",
      messageID: "m",
      id: `c${i}`,
      input: { command: "ls" },
    }),
  );
  const delta = { event: { type: "message.part.delta", properties: { sessionID: "ses", delta: "x" } } };
  const busMiss = await perCallMs(N, () => v1.event(delta));

  // 2. One matching hook against the same process spawned bare (pipes and a process group, as the plugin does).
  const hit = await (await load("match", [hook("PreToolUse", { names: ["bash"] })])).server({
    directory: tmp,
  });
  const bare = () =>
    new Promise((res) => {
      const c = spawn("/bin/sh", ["-c", "true"], {
        cwd: tmp,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
      c.stdout.resume();
      c.stderr.resume();
      c.on("close", res);
      c.stdin.on("error", () => {});
      c.stdin.end('{"hook_event_name":"PreToolUse"}\n');
    });
  const viaPlugin = () =>
    hit["tool.execute.before"]({ tool: "bash", sessionID: "ses", callID: "c" }, { args: { command: "ls" } });
  const time = async (fn) => {
    const t0 = process.hrtime.bigint();
    await fn();
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  for (let i = 0; i < 20; i++) {
    await bare();
    await viaPlugin();
  }
  const plugin = [];
  const baseline = [];
  for (let i = 0; i < 300; i++) {
    baseline.push(await time(bare));
    plugin.push(await time(viaPlugin));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const overhead = median(plugin) - median(baseline);

  const miss = Math.max(v1Miss, v2Miss, busMiss);
  const verdict = (ok) => (ok ? "ok" : "OVER BUDGET");
  const us = (ms) => `${(ms * 1000).toFixed(2)} µs`;
  console.log(
    `OpenCode plugin (kanon-hooks.js) on Node ${process.version}, ${table.length} hooks in the table`,
  );
  console.log(
    `  tool call, no matching hook: ${us(v1Miss)} (OpenCode 1), ${us(v2Miss)} (OpenCode 2); ignored bus event ${us(busMiss)}` +
      ` — budget ${NO_MATCH_BUDGET_MS} ms: ${verdict(miss < NO_MATCH_BUDGET_MS)}`,
  );
  console.log(
    `  tool call, one matching hook: +${overhead.toFixed(3)} ms on top of the hook process` +
      ` (median ${median(plugin).toFixed(3)} ms through the plugin vs ${median(baseline).toFixed(3)} ms bare spawn of sh -c true)` +
      ` — budget ${MATCH_BUDGET_MS} ms: ${verdict(overhead < MATCH_BUDGET_MS)}`,
  );
  if (miss >= NO_MATCH_BUDGET_MS || overhead >= MATCH_BUDGET_MS) process.exitCode = 1;
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
