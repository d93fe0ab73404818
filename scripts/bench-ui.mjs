// `kanon ui` responsiveness (run by `npm run bench`, or alone: node scripts/bench-ui.mjs HOME_DIR
// [IMPORT_HOME APPLIED_DEST]): the built binary in a pseudo-terminal (test/support/pty-host.py) on a
// Kanon home whose every file is still to be created, so the change list is as long as it gets; and
// in import mode, on a machine where that home is applied, importing into an empty Kanon home, so
// every server, hook and skill is a unit. Measures the time to the first screen (the loading frame)
// and to the loaded change list, and for key presses the time from the key to the end of the next
// frame Ink writes (each frame is a synchronized update, ESC[?2026h … l).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const kanon = join(root, "dist/kanon.js");
const host = join(root, "test/support/pty-host.py");
const FRAME_END = "\u001b[?2026l";
const RUNS = Number(process.env.BENCH_RUNS || 5);
const TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));

function session(home, dest, mode) {
  const t0 = performance.now();
  const args = [kanon, "--home", home, "ui", "--mode", mode];
  const p = spawn("python3", [host, "120", "40", process.execPath, ...args], {
    env: { PATH: process.env.PATH, HOME: dest, TERM: "xterm-256color" },
  });
  let pid = 0;
  p.stderr.on("data", (d) => {
    const m = /pid (\d+)/.exec(d.toString());
    if (m) pid = Number(m[1]);
  });
  let text = "";
  let frames = 0;
  const waiters = [];
  p.stdout.on("data", (chunk) => {
    const s = chunk.toString("utf8");
    text += s;
    frames += s.split(FRAME_END).length - 1;
    for (const w of [...waiters]) {
      if (!w.test()) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  const until = (test) =>
    new Promise((resolve, reject) => {
      if (test()) return resolve();
      const timer = setTimeout(() => reject(new Error("kanon ui did not draw in time")), 60_000);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      waiters.push({ test, resolve: done });
    });
  return {
    t0,
    until,
    has: (needle) => text.includes(needle),
    /** CPU time (user + system) the kanon process has used so far, in ms (Linux /proc). */
    cpu: () => {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
    },
    matches: (re) => re.test(text),
    frames: () => frames,
    send: (keys) => p.stdin.write(keys),
    exited: new Promise((r) => p.on("exit", r)),
    kill: () => p.kill("SIGKILL"),
  };
}

/** ms from sending `keys` to the end of the next full frame. */
async function keyLatency(s, keys) {
  const before = s.frames();
  const t = performance.now();
  s.send(keys);
  await s.until(() => s.frames() > before);
  return performance.now() - t;
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const max = (v) => Math.max(...v);

/**
 * `dest`: the HOME to run in (import mode: the machine to import from); without it each run gets an
 * empty one (apply mode: everything to create).
 */
export async function benchUi(home, { mode = "apply", dest: applied } = {}) {
  const title = new RegExp(`${mode === "apply" ? "Apply" : "Import"} Changes \\([1-9]\\d* changed`);
  const work = mkdtempSync(join(tmpdir(), "kanon-bench-ui-"));
  const first = [];
  const loaded = [];
  const keys = { move: [], toggle: [], filter: [], scroll: [] };
  const cpuPerKey = [];
  const firstCpu = [];
  const loadedCpu = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const dest = applied ?? join(work, `dest-${i}`);
      if (!applied) mkdirSync(dest);
      const s = session(home, dest, mode);
      await s.until(() => s.has("Mode / Agents"));
      first.push(performance.now() - s.t0);
      firstCpu.push(s.cpu());
      await s.until(() => s.matches(title));
      loaded.push(performance.now() - s.t0);
      loadedCpu.push(s.cpu());
      const cpuBefore = s.cpu();
      let presses = 0;
      const press = async (bucket, key) => {
        presses++;
        const ms = await keyLatency(s, key);
        bucket?.push(ms);
      };
      for (let k = 0; k < 10; k++) await press(keys.move, "\u001b[B");
      for (let k = 0; k < 4; k++) await press(keys.toggle, " ");
      await press(keys.filter, "/");
      if (mode === "apply") {
        // The Codex config.toml (200 servers) has a diff long enough to scroll.
        for (const c of "config.toml") await press(keys.filter, c);
        await press(null, "\r");
        await press(null, "\t");
        for (let k = 0; k < 5; k++) await press(keys.scroll, "j");
      } else {
        // A unit's diff is a few lines: nothing to scroll.
        for (const c of "servers.") await press(keys.filter, c);
        await press(null, "\r");
      }
      cpuPerKey.push((s.cpu() - cpuBefore) / presses);
      s.send("q");
      await s.exited;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return {
    first: median(first),
    loaded: median(loaded),
    cpuPerKey: median(cpuPerKey),
    firstCpu: median(firstCpu),
    loadedCpu: median(loadedCpu),
    keys: Object.fromEntries(
      Object.entries(keys)
        .filter(([, v]) => v.length > 0)
        .map(([k, v]) => [k, { median: median(v), max: max(v) }]),
    ),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [home, importHome, applied] = process.argv.slice(2);
  console.log(JSON.stringify(await benchUi(home), null, 2));
  if (importHome)
    console.log(JSON.stringify(await benchUi(importHome, { mode: "import", dest: applied }), null, 2));
}
