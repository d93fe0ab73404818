// Apply, update and undo at scale (run by `npm run bench`, or alone: node scripts/bench-scale.mjs):
// a Kanon home of 1,000 skills of 5 files each, 2,000 hooks and 10 servers renders 15,009 files for
// the agents on by default. Measured, each on its own HOME: a first apply; an update's apply, where
// every skill file, hook and server changed; `kanon undo` of that update; and `kanon diff` with a
// record of about 100 MB (a record that kept entries of a huge provider whose files are gone).
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const builtKanon = join(root, "dist/kanon.js");

const SKILLS = 1000;
const FILES_PER_SKILL = 5;
const HOOKS = 2000;

/** The scale home, in `version` "a" or "b": every rendered file differs between the two. */
export function scaleHome(dir, version) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "instructions"), { recursive: true });
  writeFileSync(join(dir, "instructions/shared.md"), `# Shared ${version}\n${"Be brief. ".repeat(50)}\n`);
  for (let s = 0; s < SKILLS; s++) {
    const skill = join(dir, "skills", `skill-${String(s).padStart(4, "0")}`);
    mkdirSync(join(skill, "scripts"), { recursive: true });
    writeFileSync(
      join(skill, "SKILL.md"),
      `---\nname: skill-${s}\ndescription: Synthetic skill ${s} (${version}).\n---\n\n${"Step. ".repeat(60)}\n`,
    );
    for (let f = 0; f < FILES_PER_SKILL - 2; f++)
      writeFileSync(join(skill, `notes-${f}.md`), `notes ${s}/${f} ${version}\n${"x".repeat(1500)}\n`);
    writeFileSync(join(skill, "scripts/run.sh"), `#!/bin/sh\necho ${s} ${version}\n`, { mode: 0o755 });
  }
  const servers = [];
  for (let m = 0; m < 10; m++)
    servers.push(`    server-${m}:\n      command: mcp-${m}-${version}\n      args: [--stdio]`);
  const hooks = [];
  const events = ["PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "Stop"];
  for (let h = 0; h < HOOKS; h++) {
    const event = events[h % events.length];
    const matcher = event.endsWith("ToolUse") ? "\n    matcher: Bash" : "";
    hooks.push(
      `  - name: hook-${h}\n    event: ${event}${matcher}\n    command: /usr/local/bin/hook-${h}-${version}`,
    );
  }
  writeFileSync(
    join(dir, "kanon.yaml"),
    `version: 1\ninstructions:\n  files: [instructions/shared.md]\nmcp:\n  servers:\n${servers.join("\n")}\nhooks:\n${hooks.join("\n")}\n`,
  );
}

/** Files below `dir`, not counting kanon's state directory. */
function countFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter(
    (e) => !e.isDirectory() && !e.parentPath.includes("/.local/state"),
  ).length;
}

/**
 * Wall time (ms), CPU time (user + system, ms) and peak RSS (MB) of one run, measured by a Python
 * parent (os.wait4); on a busy machine the CPU time says more than the wall time.
 */
const MEASURE = `
import os, sys, time, json
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1); os.dup2(fd, 2)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
print(json.dumps({"ms": (time.perf_counter() - t) * 1000, "cpu_ms": (ru.ru_utime + ru.ru_stime) * 1000, "rss_mb": ru.ru_maxrss / 1024, "status": os.waitstatus_to_exitcode(status)}))
`;

function measureCpu(argv, env) {
  const out = execFileSync("python3", ["-c", MEASURE, ...argv], {
    env: { PATH: process.env.PATH, NO_COLOR: "1", ...env },
    encoding: "utf8",
  });
  const r = JSON.parse(out);
  if (r.status !== 0) throw new Error(`${argv.join(" ")} exited ${r.status}`);
  return r;
}

/**
 * Runs each measured command `runs` times (median wall time, largest peak RSS), preparing a fresh HOME
 * in the state the command starts from before each run (not timed).
 */
export function benchScale({ work, runs = 3, node = "node", kanon = builtKanon }) {
  const a = join(work, "scale-a");
  const b = join(work, "scale-b");
  scaleHome(a, "a");
  scaleHome(b, "b");
  const home = join(work, "scale-dest");
  const run = (kh, ...args) => [node, kanon, "--home", kh, ...args];
  const env = { HOME: home };
  const quiet = (argv) => {
    const r = spawnSync(argv[0], argv.slice(1), { env: { PATH: process.env.PATH, HOME: home } });
    if (r.status !== 0) throw new Error(`${argv.join(" ")} exited ${r.status}: ${r.stderr}`);
  };
  // Each state is built once and copied before each run: an apply of "a", then an apply of "b".
  const applied = join(work, "scale-applied-a");
  const updated = join(work, "scale-applied-b");
  const fresh = () => {
    rmSync(home, { recursive: true, force: true });
    mkdirSync(home);
  };
  fresh();
  quiet(run(a, "apply", "--yes"));
  const files = countFiles(home);
  cpSync(home, applied, { recursive: true, verbatimSymlinks: true });
  quiet(run(b, "apply", "--yes"));
  cpSync(home, updated, { recursive: true, verbatimSymlinks: true });
  const restore = (from) => () => {
    rmSync(home, { recursive: true, force: true });
    cpSync(from, home, { recursive: true, verbatimSymlinks: true });
  };
  const series = (argv, prepare) => {
    const out = [];
    for (let i = 0; i < runs; i++) {
      prepare();
      out.push(measureCpu(argv, env));
    }
    const median = (key) => out.map((r) => r[key]).sort((x, y) => x - y)[Math.floor(out.length / 2)];
    return { ms: median("ms"), cpu: median("cpu_ms"), rss: Math.max(...out.map((r) => r.rss_mb)) };
  };
  const firstApply = series(run(a, "apply", "--yes"), fresh);
  const updateApply = series(run(b, "apply", "--yes"), restore(applied));
  const undo = series(run(b, "undo", "--yes"), restore(updated));
  // A record of about 100 MB: the entries of 600,000 files kanon wrote once and that are gone.
  const bigRecord = () => {
    restore(applied)();
    const state = join(home, ".local/state/kanon/roots");
    const dir = join(state, readdirSync(state)[0]);
    const record = JSON.parse(
      execFileSync("cat", [join(dir, "record.json")], { encoding: "utf8", maxBuffer: 1 << 30 }),
    );
    for (let i = 0; i < 600_000; i++)
      record.files[join(home, ".claude/skills", `gone-${i % 1000}`, `file-${i}.md`)] = {
        agent: "claude",
        sha256: "0".repeat(64),
        mode: "0644",
      };
    writeFileSync(join(dir, "record.json"), `${JSON.stringify(record, null, 1)}\n`);
  };
  bigRecord();
  const recordMb = Number(
    execFileSync("du", ["-m", "--apparent-size", "-s", join(home, ".local/state/kanon")], {
      encoding: "utf8",
    }).split("\t")[0],
  );
  const bigDiff = series(run(a, "diff"), () => {});
  rmSync(home, { recursive: true, force: true });
  return { files, firstApply, updateApply, undo, bigDiff, recordMb };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const work = mkdtempSync(join(tmpdir(), "kanon-bench-scale-"));
  try {
    const r = benchScale({
      work,
      runs: Number(process.env.BENCH_RUNS || 1),
      node: process.execPath,
      kanon: process.env.KANON_BIN || builtKanon,
    });
    console.log(JSON.stringify(r, null, 1));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
