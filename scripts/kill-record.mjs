// `npm run kill-loop-record`: kill -9 `kanon apply` at random moments and check that the ownership record
// is reconciled by the next apply: after it, `diff` says `No changes.`, and when everything leaves
// kanon.yaml, nothing kanon wrote is left on disk while the user's own files and entries are, and no
// temporary file or empty folder is left, beside the destinations or in the state directory.
// Every third run the killed apply is taken back with `kanon undo` instead, itself killed at a random
// moment first: the next undo finishes it if it had not, and the disk and the record are as the apply
// before it left them. KILL_RUNS sets the number of kills (default 30). Exits 1 on the first failed check.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const kanon = join(root, "dist/kanon.js");
const RUNS = Number(process.env.KILL_RUNS || 30);

execFileSync(process.execPath, [join(root, "scripts/build.mjs")], { stdio: "inherit" });
const work = mkdtempSync(join(tmpdir(), "kanon-kill-"));
const home = join(work, "home");
const kh = join(work, "kanon-home");
const env = { PATH: process.env.PATH, HOME: home, NO_COLOR: "1" };

/** A Kanon home with a random selection of skills, servers, hooks and instructions. */
function writeVariant(seed) {
  rmSync(kh, { recursive: true, force: true });
  mkdirSync(join(kh, "skills"), { recursive: true });
  const pick = (i) => (seed >> (i % 7)) & 1 || seed === 127;
  for (let s = 0; s < 40; s++) {
    if (!pick(s)) continue;
    const dir = join(kh, "skills", `skill-${s}`);
    mkdirSync(join(dir, "scripts"), { recursive: true });
    writeFileSync(join(dir, "SKILL.md"), `---\nname: skill-${s}\ndescription: s${s} v${seed}\n---\n`);
    writeFileSync(join(dir, "scripts/run.sh"), `#!/bin/sh\necho ${s}\n`, { mode: 0o755 });
  }
  const servers = [];
  for (let m = 0; m < 8; m++)
    if (pick(m + 1))
      servers.push(`    kanon-srv-${m}:\n      command: srv-${m}\n      args: ["--v", "${seed}"]`);
  const hooks = [];
  for (let h = 0; h < 6; h++)
    if (pick(h + 2))
      hooks.push(`  - name: h${h}\n    event: PreToolUse\n    matcher: Bash\n    command: kanon-hook-${h}`);
  writeFileSync(join(kh, "shared.md"), `shared ${seed}\n`);
  writeFileSync(
    join(kh, "kanon.yaml"),
    `${[
      "version: 1",
      pick(3) ? "instructions:\n  files: [shared.md]" : "",
      servers.length ? `mcp:\n  servers:\n${servers.join("\n")}` : "",
      hooks.length ? `hooks:\n${hooks.join("\n")}` : "",
    ]
      .filter(Boolean)
      .join("\n")}\n`,
  );
}

/** The name of the newest apply history entry (null before the first). */
function newestEntry() {
  const roots = join(home, ".local/state/kanon/roots");
  const names = existsSync(roots)
    ? readdirSync(roots).flatMap((r) => {
        const applies = join(roots, r, "applies");
        return existsSync(applies) ? readdirSync(applies).filter((n) => !n.startsWith(".")) : [];
      })
    : [];
  return names.sort().at(-1) ?? null;
}

function writeEmpty() {
  rmSync(kh, { recursive: true, force: true });
  mkdirSync(kh);
  writeFileSync(join(kh, "kanon.yaml"), "version: 1\n");
}

const run = (...args) =>
  spawnSync(process.execPath, [kanon, "--home", kh, ...args], { env, encoding: "utf8" });

function fail(message) {
  console.error(`FAIL: ${message}\n(work directory kept: ${work})`);
  process.exit(1);
}

function applyOk(what) {
  const r = run("apply", "--yes");
  if (r.status !== 0) fail(`${what}: apply exited ${r.status}: ${r.stderr}`);
  const d = run("diff");
  if (d.stdout !== "No changes.\n") fail(`${what}: diff after apply:\n${d.stdout.slice(0, 2000)}`);
}

const USER_SETTINGS =
  '{\n  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "user-hook"}]}]},\n  "theme": "dark"\n}\n';
const USER_TOML = "model = 'gpt-5.5'\n\n[mcp_servers.mine]\ncommand = 'mine'\n";

function files(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name))
    .filter((p) => !p.startsWith(join(home, ".local/state")));
}

/** With nothing in kanon.yaml, nothing of kanon's may be left, and everything of the user's must be. */
function checkNothingLeft(what) {
  const temps = readdirSync(home, { recursive: true }).filter((p) =>
    /\.kanon-\d+-[0-9a-f]{12}\.tmp$/.test(p),
  );
  if (temps.length > 0) fail(`${what}: temporary files left: ${temps.join(", ")}`);
  // The folders the killed apply made for what it never finished writing go too.
  const empty = readdirSync(home, { recursive: true, withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(e.parentPath, e.name))
    .filter((d) => !d.startsWith(join(home, ".local")) && readdirSync(d).length === 0);
  if (empty.length > 0) fail(`${what}: empty folders left: ${empty.join(", ")}`);
  for (const p of files(home)) {
    if (/\/skills\/|AGENTS\.md$|CLAUDE\.md$|kanon-hooks\.js$/.test(p)) fail(`${what}: left behind ${p}`);
    const text = readFileSync(p, "utf8");
    if (/kanon-srv-|kanon-hook-/.test(text)) fail(`${what}: kanon entries left in ${p}:\n${text}`);
  }
  const settings = JSON.parse(readFileSync(join(home, ".claude/settings.json"), "utf8"));
  if (settings.theme !== "dark" || settings.hooks?.Stop?.[0]?.hooks?.[0]?.command !== "user-hook")
    fail(`${what}: the user's settings.json changed: ${JSON.stringify(settings)}`);
  if (!readFileSync(join(home, ".codex/config.toml"), "utf8").startsWith(USER_TOML))
    fail(`${what}: the user's config.toml changed`);
}

try {
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(join(home, ".codex"), { recursive: true });
  writeFileSync(join(home, ".claude/settings.json"), USER_SETTINGS);
  writeFileSync(join(home, ".codex/config.toml"), USER_TOML);

  // How long an apply takes here, so that kills land anywhere inside one.
  writeVariant(127);
  const t = performance.now();
  applyOk("first apply");
  const span = performance.now() - t;
  writeEmpty();
  applyOk("empty apply");
  checkNothingLeft("without kills");

  let killed = 0;
  let undone = 0;
  let undoKilled = 0;
  let undoFinished = 0;
  // How long an undo takes here.
  writeVariant(127);
  applyOk("apply to time an undo");
  const u0 = performance.now();
  if (run("undo", "--yes").status !== 0) fail("timing undo");
  const undoSpan = performance.now() - u0;
  writeEmpty();
  applyOk("empty apply after the timed undo");
  for (let i = 0; i < RUNS; i++) {
    writeVariant(1 + ((i * 37) % 126));
    const delay = span * (0.2 + 0.8 * Math.random());
    const newestBefore = newestEntry();
    const child = spawn(process.execPath, [kanon, "--home", kh, "apply", "--yes"], { env, stdio: "ignore" });
    const exited = new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
    await new Promise((resolve) => setTimeout(resolve, delay));
    child.kill("SIGKILL");
    if ((await exited) === "SIGKILL") killed++;
    // Every third run, when the killed apply got as far as its history entry, `kanon undo` takes it
    // back instead: the disk is then as the empty apply before it left it.
    if (i % 3 === 2 && newestEntry() !== newestBefore) {
      const pending = run("undo", "-n");
      if (pending.status !== 0) fail(`run ${i}: undo -n exited ${pending.status}: ${pending.stderr}`);
      const header = pending.stdout.split("\n")[0];
      const child = spawn(process.execPath, [kanon, "--home", kh, "undo", "--yes"], { env, stdio: "ignore" });
      const undoExited = new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
      setTimeout(() => child.kill("SIGKILL"), undoSpan * Math.random() * 1.2);
      if ((await undoExited) === "SIGKILL") undoKilled++;
      // Not finished: the same undo is offered again, and done.
      const again = run("undo", "-n");
      if (again.status !== 0)
        fail(`run ${i}: undo -n after the killed undo exited ${again.status}: ${again.stderr}`);
      if (again.stdout.split("\n")[0] === header) {
        const u = run("undo", "--yes");
        if (u.status !== 0) fail(`run ${i}: undo exited ${u.status}: ${u.stderr}`);
        undoFinished++;
      }
      checkNothingLeft(`run ${i}: undo`);
      undone++;
    }
    // Half the time the next apply is of the same variant, half of another one (what was being
    // written when the kill came is then to be removed again).
    if (i % 2) writeVariant(1 + ((i * 53) % 126));
    applyOk(`run ${i} (kill after ${delay.toFixed(0)} ms)`);
    writeEmpty();
    applyOk(`run ${i}: empty`);
    checkNothingLeft(`run ${i}`);
    if (existsSync(join(kh, ".kanon"))) fail("state written into the Kanon home");
  }
  console.log(
    `kill -9 loop: ${RUNS} runs, ${killed} killed mid-apply (apply took ${span.toFixed(0)} ms), ${undone} undone (${undoKilled} undos killed, ${undoFinished} of them finished by the next undo; undo took ${undoSpan.toFixed(0)} ms); record reconciled every time`,
  );
} finally {
  if (process.exitCode === undefined || process.exitCode === 0)
    rmSync(work, { recursive: true, force: true });
}
