// `npm run bench`: wall time and peak RSS of kanon on a small home (the example) and a large synthetic
// one, next to bare `node -e 0` measured in the same run, checked against the budgets of the core issue.
// Each command is measured by a tiny Python parent (os.wait4 gives the child's peak RSS exactly).
// Start-up (a small `diff` against `node -e 0`) is measured in pairs, under this Node and under every
// Node in BENCH_NODES (paths separated by ":"), each against the same budget.
// BENCH_ONLY runs some sections only, with their budgets (names separated by ","): small (the example
// home, the 1 MB ~/.claude.json and start-up), large (render, diff, apply of the large home), ui,
// hostile, scale; e.g. BENCH_ONLY=large,scale. The build always runs.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchScale } from "./bench-scale.mjs";
import { benchUi } from "./bench-ui.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const kanon = join(root, "dist/kanon.js");
const RUNS = Number(process.env.BENCH_RUNS || 5);
/** The Node binaries whose start-up is measured: this one, then those of BENCH_NODES. */
const NODES = [process.execPath, ...(process.env.BENCH_NODES ?? "").split(":").filter(Boolean)];
/**
 * A small `diff` may take this many times `node -e 0`, on every Node: kanon keeps no compiled code
 * between runs (no code cache, nor Node 22's compile cache), so no Node starts it relatively faster.
 */
const STARTUP_BUDGET = 2.0;
const ONLY = new Set((process.env.BENCH_ONLY ?? "").split(",").filter(Boolean));
/** Whether the section `name` runs (all do without BENCH_ONLY). */
const runs = (name) => ONLY.size === 0 || ONLY.has(name);

const MEASURE = `
import os, sys, time, json
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1); os.dup2(fd, 2)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
print(json.dumps({"ms": (time.perf_counter() - t) * 1000, "rss_mb": ru.ru_maxrss / 1024, "faults": ru.ru_minflt, "status": os.waitstatus_to_exitcode(status)}))
`;

/**
 * What every measured run gets besides its own `env`: not the caller's environment, where a variable
 * such as CODEX_HOME or XDG_STATE_HOME would take kanon out of the bench's HOME.
 */
const BASE_ENV = {
  PATH: process.env.PATH,
  LANG: process.env.LANG,
  TMPDIR: process.env.TMPDIR,
  NO_COLOR: "1",
};

function measure(argv, env, status = 0) {
  const out = execFileSync("python3", ["-c", MEASURE, ...argv], {
    env: { ...BASE_ENV, ...env },
    encoding: "utf8",
  });
  const r = JSON.parse(out);
  if (r.status !== status) throw new Error(`${argv.join(" ")} exited ${r.status}`);
  return r;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * `a` and `b` run in turn (a b a b …, after one unmeasured run of each): their median wall times and
 * the median of the pairs' ratios a/b, which a machine whose speed drifts during the runs moves less;
 * and their median page faults (minor, from the child's rusage: counted from the fork, so each
 * includes the same few hundred of the forked Python before its exec): where a fault is dear
 * (~22 µs on the 2-core VM these budgets were measured on, against well under 1 µs on bare metal),
 * faults rather than instructions make most of a small run's time beyond `node -e 0`.
 */
function paired(a, b, env, pairs = Math.max(2 * RUNS + 1, 11)) {
  measure(a, env);
  measure(b, env);
  const runs = [];
  for (let i = 0; i < pairs; i++) runs.push([measure(a, env), measure(b, env)]);
  return {
    a: median(runs.map(([x]) => x.ms)),
    b: median(runs.map(([, y]) => y.ms)),
    ratio: median(runs.map(([x, y]) => x.ms / y.ms)),
    faults: { a: median(runs.map(([x]) => x.faults)), b: median(runs.map(([, y]) => y.faults)) },
  };
}

/** Median wall time and the largest peak RSS over RUNS runs; `prepare` runs before each (not timed). */
function bench(argv, env, prepare = () => {}, status = 0) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    prepare();
    runs.push(measure(argv, env, status));
  }
  return { ms: median(runs.map((r) => r.ms)), rss: Math.max(...runs.map((r) => r.rss_mb)) };
}

/**
 * Instructions a command executes, all threads, counted by valgrind (BENCH_INSTRUCTIONS=1): unlike wall
 * time, the count does not depend on what else the machine is running.
 */
function instructions(argv, env) {
  const r = spawnSync(
    "valgrind",
    ["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", ...argv],
    {
      env: { ...BASE_ENV, ...env },
      encoding: "utf8",
    },
  );
  const m = /I\s+refs:\s+([\d,]+)/.exec(r.stderr ?? "");
  if (r.status !== 0 || !m) throw new Error(`valgrind ${argv.join(" ")} failed: ${r.error ?? r.stderr}`);
  return Number(m[1].replaceAll(",", ""));
}

function largeHome(dir) {
  mkdirSync(join(dir, "instructions"), { recursive: true });
  const files = [];
  for (let i = 0; i < 20; i++) {
    const f = `instructions/part-${String(i).padStart(2, "0")}.md`;
    writeFileSync(
      join(dir, f),
      `# Part ${i}\n\n${"Keep changes focused and explain tradeoffs clearly. ".repeat(40)}\n`,
    );
    files.push(f);
  }
  for (let s = 0; s < 300; s++) {
    const skill = join(dir, "skills", `skill-${String(s).padStart(3, "0")}`);
    mkdirSync(join(skill, "scripts"), { recursive: true });
    writeFileSync(
      join(skill, "SKILL.md"),
      `---\nname: skill-${s}\ndescription: Synthetic skill ${s}.\n---\n\n# Skill ${s}\n\n${"Step. ".repeat(100)}\n`,
    );
    for (let f = 0; f < 3; f++)
      writeFileSync(join(skill, `notes-${f}.md`), `notes ${s}/${f}\n${"x".repeat(2000)}\n`);
    writeFileSync(join(skill, "scripts", "run.sh"), `#!/bin/sh\necho ${s}\n`, { mode: 0o755 });
  }
  const servers = [];
  for (let m = 0; m < 200; m++) {
    servers.push(
      m % 2
        ? `    server-${m}:\n      command: mcp-${m}\n      args: ["--stdio", "--id", "${m}"]\n      env:\n        TOKEN: \${TOKEN_${m}:-none}\n      startup_timeout_sec: 5`
        : `    server-${m}:\n      url: https://mcp-${m}.example/mcp\n      headers:\n        X-Id: "${m}"\n      bearer_token_env_var: TOKEN_${m}`,
    );
  }
  const events = ["PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "Stop"];
  const hooks = [];
  for (let h = 0; h < 1000; h++) {
    const event = events[h % events.length];
    const matcher = event.endsWith("ToolUse") ? `\n    matcher: ${h % 2 ? "Bash" : "Edit|Write"}` : "";
    const args = h % 3 === 0 ? `\n    args: ["--id", "${h}", "it's a test"]` : "";
    hooks.push(
      `  - name: hook-${h}\n    event: ${event}${matcher}\n    command: /usr/local/bin/hook-${h % 7}${args}\n    timeout: ${5 + (h % 20)}`,
    );
  }
  writeFileSync(
    join(dir, "kanon.yaml"),
    `version: 1\ninstructions:\n  files:\n${files.map((f) => `    - ${f}`).join("\n")}\nmcp:\n  servers:\n${servers.join("\n")}\nhooks:\n${hooks.join("\n")}\n`,
  );
}

/**
 * Hostile kanon.yaml files of about 1 MB, each making `validate` take the positional decoder: many
 * errors, unknown keys everywhere, aliases and merge keys, deep nesting, one huge string, long lines;
 * and two just under the limit of 50,000 keys and values (the 1 MB ones are refused where they cross
 * it), so that the positional decoder is measured on every error of a large file. Each is refused
 * (exit status 1) but one, which is valid so that every check reads its values: a hook command and
 * MCP values of `${a:-` left open, where a scan for each reference's `}` would be quadratic. One more
 * is measured with `diff`, whose masking of secrets reads every line of the agents' files: MCP
 * arguments of 300 KB each of `?`, `?tokentoken…` and `tokentoken…`, each once quadratic to mask.
 * Each is [label, home, exit status, command].
 */
function hostileHomes(dir) {
  const MB = 1 << 20;
  const fill = (head, unit, bytes = MB) => {
    const parts = [head];
    let size = head.length;
    for (let i = 0; size < bytes; i++) {
      parts.push(unit(i));
      size += parts.at(-1).length;
    }
    return parts.join("");
  };
  const errors = (i) =>
    `  - name: h${i}\n    event: Stop\n    command: 12\n    timeout: abc${i}\n    bogus${i}: 1\n    args: [~, 0x1F, 99999999999999999999]\n  -\n`;
  const aliases = (i) => `  - <<: *b\n    name: h${i}\n  - *b\n`;
  const aliasesHead = "version: 1\nbase: &b {event: Stop, command: x, timeout: 5}\nhooks:\n";
  const texts = {
    errors: fill("version: 1\nhooks:\n", errors),
    "errors, 360 KB": fill("version: 1\nhooks:\n", errors, 360_000),
    "unknown keys": fill("version: 2\n", (i) => `key${i}:\n  nested: [1, 2, {a: b}]\n`),
    aliases: fill(aliasesHead, aliases),
    "aliases, 220 KB": fill(aliasesHead, aliases, 220_000),
    "deep nesting": fill(
      "version: 1\nmetadata:\n",
      (i) => `  k${i}: ${"[".repeat(200)}x${"]".repeat(200)}\n`,
    ),
    "one string": `version: 1\nmetadata:\n  big: "${"x".repeat(MB)}\\0"\n`,
    "long lines": fill(
      "version: 1\nhooks:\n",
      (i) => `  - {name: h${i}, event: Stop, command: "${"y".repeat(5000)}", timeout: -1}\n`,
    ),
  };
  const open = (bytes) => "${a:-".repeat(Math.floor(bytes / 5));
  const valid = {
    "open ${a:-": `version: 1\nmcp:\n  servers:\n    x:\n      command: srv\n      args: ["${open(150_000)}"]\n      env: {A: "${open(150_000)}"}\nhooks:\n  - name: h\n    event: Stop\n    command: "${open(750_000)}"\n`,
  };
  const home = (label, text) => {
    const home = join(dir, label.replace(/[^a-z0-9]+/gi, "-"));
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "kanon.yaml"), text);
    return home;
  };
  const masked = ["?".repeat(300_000), `?${"token".repeat(60_000)}`, "token".repeat(60_000)];
  // JSON files only: kanon refuses to write a TOML string this long (Codex's config.toml).
  const maskedHome = `version: 1\nmcp:\n  servers:\n    x:\n      command: srv\n      targets: [claude, opencode]\n      args: ${JSON.stringify(masked)}\n`;
  return [
    ...Object.entries(texts).map(([label, text]) => [label, home(label, text), 1, "validate"]),
    ...Object.entries(valid).map(([label, text]) => [label, home(label, text), 0, "validate"]),
    ["masked lines", home("masked lines", maskedHome), 0, "diff"],
  ];
}

/**
 * Apply, update and undo on 15,009 destination files (scripts/bench-scale.mjs): printed rows, and the
 * budgets of an update's apply and an undo against a first apply (BENCH_SCALE_RUNS, default 3).
 */
function scaleRows(work) {
  const s = benchScale({ work, runs: Number(process.env.BENCH_SCALE_RUNS || 3) });
  const line = (name, r) =>
    console.log(
      `${name.padEnd(40)} ${r.ms.toFixed(0).padStart(7)} ms ${r.rss.toFixed(0).padStart(6)} MB (CPU ${r.cpu.toFixed(0)} ms)`,
    );
  line(`scale (${s.files} files): first apply`, s.firstApply);
  line("scale: update's apply (every file)", s.updateApply);
  line("scale: undo of that update", s.undo);
  line(`scale: diff with a ${s.recordMb} MB record`, s.bigDiff);
  return [
    ["scale update's apply ≤ 2 × first apply", s.updateApply.ms <= 2 * s.firstApply.ms],
    ["scale undo ≤ 2 × first apply", s.undo.ms <= 2 * s.firstApply.ms],
  ];
}

/** `kanon --agent claude diff` of the example home where ~/.claude.json is 1 MB. */
function benchBigClaudeJson(work) {
  const bigDest = join(work, "dest-big-claude-json");
  mkdirSync(bigDest);
  const projects = {};
  for (let i = 0; i < 1500; i++) {
    projects[`/home/u/src/project-${i}`] = {
      allowedTools: [],
      history: [{ display: `fix the failing test number ${i}`, pastedContents: {} }],
      mcpServers: {},
      lastModelUsage: { model: { inputTokens: i, outputTokens: 2 * i } },
    };
  }
  writeFileSync(
    join(bigDest, ".claude.json"),
    `${JSON.stringify({ numStartups: 3, projects, mcpServers: {} }, null, 2)}\n`,
  );
  return bench(
    [process.execPath, kanon, "--home", join(root, "examples/home"), "--agent", "claude", "diff"],
    {
      HOME: bigDest,
    },
  );
}

/** A small `diff` against `node -e 0` under `node`, paired (and counted by valgrind if asked). */
function benchStartup(node, work) {
  const version = execFileSync(node, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
  const env = { HOME: join(work, `dest-startup-${version}`) };
  mkdirSync(env.HOME);
  const diff = [node, kanon, "--home", join(root, "examples/home"), "diff"];
  const bareNode = [node, "-e", "0"];
  const pair = paired(diff, bareNode, env);
  const ir =
    process.env.BENCH_INSTRUCTIONS === "1"
      ? { node: instructions(bareNode, env), diff: instructions(diff, env) }
      : undefined;
  return { version, major: Number(version.split(".")[0]), ...pair, ir };
}

/**
 * kanon ui on the large home with nothing applied yet (the longest change list), and in import mode
 * on the machine that home was applied to: printed rows, and their budgets.
 */
async function uiRows(large, work) {
  const ui = await benchUi(large);
  const ms = (v) => `${v.toFixed(0).padStart(7)} ms`;
  // CPU time next to wall time: on a busy machine the wall time says more about the neighbours.
  console.log(`${"large: ui first screen".padEnd(40)} ${ms(ui.first)} (CPU ${ui.firstCpu.toFixed(0)} ms)`);
  console.log(
    `${"large: ui change list loaded".padEnd(40)} ${ms(ui.loaded)} (CPU ${ui.loadedCpu.toFixed(0)} ms)`,
  );
  console.log(`${"large: ui CPU per key press".padEnd(40)} ${ms(ui.cpuPerKey)}`);
  for (const [name, k] of Object.entries(ui.keys)) {
    console.log(
      `${`large: ui key → redraw (${name})`.padEnd(40)} ${ms(k.median)} (max ${k.max.toFixed(0)} ms)`,
    );
  }
  // Import mode on the machine the large home was applied to (by the large section, or here), into
  // an empty Kanon home: every server, hook and skill is a unit (the load is mostly `kanon import`
  // reading the machine).
  const applied = join(work, "dest-large");
  if (!existsSync(applied)) {
    mkdirSync(applied);
    measure([process.execPath, kanon, "--home", large, "apply", "--yes"], { HOME: applied });
  }
  const emptyHome = join(work, "empty-home");
  mkdirSync(emptyHome);
  const imp = await benchUi(emptyHome, { mode: "import", dest: applied });
  console.log(
    `${"large: ui import first screen".padEnd(40)} ${ms(imp.first)} (CPU ${imp.firstCpu.toFixed(0)} ms)`,
  );
  console.log(
    `${"large: ui import units loaded".padEnd(40)} ${ms(imp.loaded)} (CPU ${imp.loadedCpu.toFixed(0)} ms)`,
  );
  console.log(`${"large: ui import CPU per key press".padEnd(40)} ${ms(imp.cpuPerKey)}`);
  for (const [name, k] of Object.entries(imp.keys)) {
    console.log(
      `${`large: ui import key → redraw (${name})`.padEnd(40)} ${ms(k.median)} (max ${k.max.toFixed(0)} ms)`,
    );
  }
  const keyMedian = Math.max(...Object.values(ui.keys).map((k) => k.median));
  const importKeyMedian = Math.max(...Object.values(imp.keys).map((k) => k.median));
  return [
    ["large ui first screen ≤ 1500 ms", ui.first <= 1500],
    ["large ui change list ≤ 1500 ms", ui.loaded <= 1500],
    ["large ui key → redraw median ≤ 100 ms", keyMedian <= 100],
    ["large ui import first screen ≤ 1500 ms", imp.first <= 1500],
    ["large ui import key → redraw median ≤ 100 ms", importKeyMedian <= 100],
  ];
}

const buildStart = performance.now();
execFileSync(process.execPath, [join(root, "scripts/build.mjs")], { stdio: "inherit" });
const buildMs = performance.now() - buildStart;
const work = mkdtempSync(join(tmpdir(), "kanon-bench-"));
try {
  const large = join(work, "large-home");
  largeHome(large);
  const bare = bench([process.execPath, "-e", "0"], {});
  const results = [];
  const homes = [
    ["small", join(root, "examples/home")],
    ["large", large],
  ].filter(([label]) => runs(label));
  for (const [label, home] of homes) {
    const dest = join(work, `dest-${label}`);
    const env = { HOME: dest };
    const run = (...args) => [process.execPath, kanon, "--home", home, ...args];
    const fresh = () => {
      rmSync(dest, { recursive: true, force: true });
      mkdirSync(dest);
    };
    fresh();
    const render = bench(run("render"), env);
    const diff = bench(run("diff"), env);
    const firstApply = bench(run("apply", "--yes"), env, fresh);
    const noopApply = bench(run("apply", "--yes"), env);
    results.push({ label, render, diff, firstApply, noopApply });
  }
  // A co-owned file as large as a long-used ~/.claude.json (1 MB): kanon's merge must stay cheap.
  const bigJson = runs("small") ? benchBigClaudeJson(work) : null;
  // Start-up: the example home against an empty HOME, under each Node.
  const startup = runs("small") ? NODES.map((node) => benchStartup(node, work)) : [];
  // A hostile file is refused (exit status 1) for its errors, or where it crosses a limit; one is valid.
  const hostile = runs("hostile")
    ? hostileHomes(join(work, "hostile")).map(([label, home, status, command]) => [
        `${command} (${label})`,
        bench([process.execPath, kanon, "--home", home, command], { HOME: work }, () => {}, status),
      ])
    : [];
  const row = (name, r) =>
    `${name.padEnd(40)} ${r.ms.toFixed(0).padStart(7)} ms ${r.rss.toFixed(0).padStart(6)} MB`;
  console.log(`\nkanon benchmark (median of ${RUNS} runs, peak RSS of any run)\n`);
  console.log(row("node -e 0", bare));
  console.log(`${"build".padEnd(40)} ${buildMs.toFixed(0).padStart(7)} ms`);
  const mega = (n) => `${(n / 1e6).toFixed(0)} M`.padStart(10);
  for (const s of startup) {
    const ms = (v) => `${v.toFixed(0).padStart(7)} ms`;
    const faults = (n) => `${n.toLocaleString("en-US")} page faults`;
    console.log(`${`Node ${s.version}: node -e 0 (paired)`.padEnd(40)} ${ms(s.b)} (${faults(s.faults.b)})`);
    console.log(
      `${`Node ${s.version}: small diff (paired)`.padEnd(40)} ${ms(s.a)} (${s.ratio.toFixed(2)} × node -e 0, median of pairs; ${faults(s.faults.a)})`,
    );
    if (!s.ir) continue;
    console.log(`${`Node ${s.version}: node -e 0: instructions`.padEnd(40)} ${mega(s.ir.node)}`);
    console.log(
      `${`Node ${s.version}: small diff: instructions`.padEnd(40)} ${mega(s.ir.diff)} (${(s.ir.diff / s.ir.node).toFixed(2)} × node -e 0)`,
    );
  }
  if (bigJson) console.log(row("small: claude diff, 1 MB ~/.claude.json", bigJson));
  for (const r of results) {
    console.log(row(`${r.label}: render`, r.render));
    console.log(row(`${r.label}: diff`, r.diff));
    console.log(row(`${r.label}: first apply`, r.firstApply));
    console.log(row(`${r.label}: no-op apply`, r.noopApply));
  }
  const ui = runs("ui") ? await uiRows(large, work) : [];
  for (const [label, r] of hostile) console.log(row(`hostile ${label}`, r));
  const scale = runs("scale") ? scaleRows(work) : [];
  const big = results.find((r) => r.label === "large");
  const budgets = [
    ["build ≤ 2000 ms", buildMs <= 2000],
    ...startup.map((s) => [
      `small diff ≤ ${STARTUP_BUDGET.toFixed(1)} × node -e 0 on Node ${s.major} (paired: ${s.ratio.toFixed(2)})`,
      s.ratio <= STARTUP_BUDGET,
    ]),
    ...(big
      ? [
          ["large render + diff ≤ 1500 ms", big.render.ms + big.diff.ms <= 1500],
          ["large render/diff peak RSS ≤ 250 MB", Math.max(big.render.rss, big.diff.rss) <= 250],
          ["large no-op apply ≤ 1500 ms", big.noopApply.ms <= 1500],
        ]
      : []),
    ...ui,
    ...hostile.map(([label, r]) => [`hostile ${label} ≤ 2000 ms`, r.ms <= 2000]),
    ...scale,
  ];
  console.log("\nbudgets");
  for (const [name, ok] of budgets) console.log(`  ${ok ? "ok  " : "OVER"} ${name}`);
  if (runs("small")) {
    const pluginBench = join(root, "scripts/bench-opencode-plugin.mjs");
    if (existsSync(pluginBench)) {
      console.log("\nOpenCode plugin dispatch");
      spawnSync(process.execPath, [pluginBench], { stdio: "inherit" });
    }
    console.log("\nhook runner (envelope: neutral)");
    const runnerBench = spawnSync(process.execPath, [join(root, "scripts/bench-hook-runner.mjs")], {
      stdio: "inherit",
    });
    if (runnerBench.status !== 0) process.exitCode = 1;
  }
  if (budgets.some(([, ok]) => !ok)) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
