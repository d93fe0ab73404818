// `npm run kill-loop`: kill -9 kanon at random moments, TRIALS times (default 100) for each of three
// commands, and check after each kill that every file is wholly the old or the new version (user
// content in co-owned files included), that nothing but kanon's own temporary files was left, and
// that the next run puts everything right and says so:
//
// - `kanon apply`: the next apply removes every temporary file (and says how many) and writes the new
//   version everywhere.
// - `kanon undo` of an apply: the next `kanon undo` (when the killed one had not finished) restores
//   the old version everywhere; either way the history is readable and `diff` agrees with the disk.
// - `kanon import --write --force` into a Kanon home: every home file is wholly old or new; `kanon
//   undo` (when the import got as far as its history entry) or a finished import and its undo brings
//   the home back byte for byte.
//
// KILL_PHASES picks the commands (default "apply,undo,import"). Not a unit test: it takes minutes.
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const kanon = process.env.KANON_BIN || join(root, "dist/kanon.js");
const TRIALS = Number(process.env.TRIALS || 100);
const SKILLS = Number(process.env.SKILLS || 300);
const PHASES = (process.env.KILL_PHASES || "apply,undo,import").split(",");
const TEMP = /\.kanon-\d+-[0-9a-f]{12}\.tmp$/;

const base = mkdtempSync(join(tmpdir(), "kanon-kill-"));
const home = join(base, "home");
const kh = join(base, "kanon-home");
// The record and the apply history: kanon's, not destination files (kill-record.mjs checks them).
const state = join(home, ".local/state");

/** A home whose every rendered file differs between version "a" and version "b". */
function writeKanonHome(version) {
  rmSync(kh, { recursive: true, force: true });
  mkdirSync(join(kh, "instructions"), { recursive: true });
  writeFileSync(join(kh, "instructions/shared.md"), `# Shared (${version})\n${"text ".repeat(200)}\n`);
  for (let i = 0; i < SKILLS; i++) {
    const dir = join(kh, "skills", `skill-${i}`);
    mkdirSync(join(dir, "scripts"), { recursive: true });
    writeFileSync(join(dir, "SKILL.md"), `---\nname: skill-${i}\ndescription: d\n---\nversion ${version}\n`);
    writeFileSync(join(dir, "scripts/run.sh"), `#!/bin/sh\necho ${version} ${i}\n`, { mode: 0o755 });
    writeFileSync(join(dir, "notes.md"), `${version}\n`.repeat(100));
  }
  writeFileSync(
    join(kh, "kanon.yaml"),
    `version: 1\ninstructions:\n  files: [instructions/shared.md]\nmcp:\n  servers:\n    docs:\n      command: docs-${version}\n      args: [--stdio]\n    remote:\n      url: https://example.invalid/${version}\nhooks:\n  - name: guard\n    event: PreToolUse\n    matcher: Bash\n    command: /bin/guard-${version}\n`,
  );
}

/** HOME with the user's own settings in every co-owned file, a 0600 ~/.claude.json and a symlinked settings.json. */
function seedHome() {
  mkdirSync(join(home, ".codex"), { recursive: true });
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(join(home, ".config/opencode"), { recursive: true });
  mkdirSync(join(home, "dotfiles"), { recursive: true });
  writeFileSync(
    join(home, ".codex/config.toml"),
    '# mine\nmodel = "o4"  # keep\n\n[profiles.work]\nmodel = "x"\n',
  );
  writeFileSync(
    join(home, ".claude.json"),
    `{"userID": "u-1", "oauthAccount": {"token": "secret"}, "projects": {}}\n`,
  );
  chmodSync(join(home, ".claude.json"), 0o600);
  writeFileSync(
    join(home, "dotfiles/settings.json"),
    '{\n  "theme": "dark",\n  "permissions": {"allow": ["Bash(ls)"]}\n}\n',
  );
  symlinkSync("../dotfiles/settings.json", join(home, ".claude/settings.json"));
  writeFileSync(join(home, ".config/opencode/opencode.jsonc"), '{\n  // mine\n  "model": "x",\n}\n');
}

function run(args) {
  const r = spawnSync(process.execPath, [kanon, "--home", kh, ...args], {
    env: { PATH: process.env.PATH, HOME: home },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`kanon ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
  return r;
}

/** Runs kanon and kills it with SIGKILL after `delay` ms (or lets it finish); resolves when it exited. */
function killedAfter(args, delay) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [kanon, "--home", kh, ...args], {
      env: { PATH: process.env.PATH, HOME: home },
      stdio: "ignore",
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), delay);
    child.on("exit", (_code, signal) => {
      clearTimeout(timer);
      resolve(signal === "SIGKILL");
    });
  });
}

/** Every file under `dir` (through no symlink) but kanon's state directory, with its bytes and mode. */
function snapshot(dir = home) {
  const files = new Map();
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (p === state) continue;
      if (e.isDirectory()) walk(p);
      else if (e.isSymbolicLink()) files.set(relative(dir, p), `-> ${readFileSync(p).length}`);
      else
        files.set(
          relative(dir, p),
          `${(lstatSync(p).mode & 0o777).toString(8)} ${readFileSync(p).toString("base64")}`,
        );
    }
  };
  walk(dir);
  return files;
}

const userKept = () =>
  readFileSync(join(home, ".claude.json"), "utf8").includes('"token": "secret"') &&
  readFileSync(join(home, ".codex/config.toml"), "utf8").startsWith('# mine\nmodel = "o4"  # keep\n') &&
  readFileSync(join(home, "dotfiles/settings.json"), "utf8").includes('"allow": ["Bash(ls)"]') &&
  lstatSync(join(home, ".claude/settings.json")).isSymbolicLink() &&
  (lstatSync(join(home, ".claude.json")).mode & 0o777) === 0o600;

let failures = 0;
const fail = (phase, trial, message) => {
  failures++;
  console.error(`${phase} trial ${trial}: ${message}`);
};

/**
 * Compares a snapshot taken after a kill with the old and new versions: every file wholly one of
 * them. Returns how many files are old and how many new (both: killed between renames).
 */
function wholly(phase, trial, now, from, to) {
  let fromCount = 0;
  let toCount = 0;
  for (const [path, content] of now) {
    if (TEMP.test(path)) continue;
    const old = from.get(path);
    const fresh = to.get(path);
    if (old === fresh && content === fresh) continue;
    if (content === fresh) toCount++;
    else if (content === old) fromCount++;
    else fail(phase, trial, `${path} is neither the old nor the new version`);
  }
  for (const path of new Set([...from.keys(), ...to.keys()]))
    if (!now.has(path) && to.has(path) && from.has(path)) fail(phase, trial, `${path} disappeared`);
  return { fromCount, toCount, temps: [...now.keys()].filter((p) => TEMP.test(p)).length };
}

function same(phase, trial, what, now, expected) {
  for (const [path, content] of expected)
    if (now.get(path) !== content) fail(phase, trial, `${what}: ${path} is not as expected`);
  for (const path of now.keys()) if (!expected.has(path)) fail(phase, trial, `${what}: ${path} is left over`);
}

/** How long a command takes here, so that kills land anywhere inside one. */
function timed(args) {
  const t0 = performance.now();
  run(args);
  return performance.now() - t0;
}

seedHome();
writeKanonHome("a");
run(["apply", "--yes"]);
const stateA = snapshot();
writeKanonHome("b");
const applyMs = timed(["apply", "--yes"]);
const stateB = snapshot();
const results = {};

if (PHASES.includes("apply")) {
  let killedWithLitter = 0;
  let littered = 0;
  let mixed = 0;
  for (let trial = 1; trial <= TRIALS; trial++) {
    const [from, to, version] = trial % 2 ? [stateB, stateA, "a"] : [stateA, stateB, "b"];
    writeKanonHome(version);
    await killedAfter(["apply", "--yes"], Math.random() * applyMs * 1.2);
    const now = snapshot();
    const { fromCount, toCount, temps } = wholly("apply", trial, now, from, to);
    if (!userKept()) fail("apply", trial, "user content or a mode changed");
    if (fromCount > 0 && toCount > 0) mixed++;
    if (temps > 0) killedWithLitter++;
    littered += temps;

    const next = run(["apply", "--yes"]);
    const said = /Removed (\d+) temporary file\(s\)/.exec(next.stdout);
    if (temps > 0 && Number(said?.[1]) !== temps)
      fail(
        "apply",
        trial,
        `${temps} temporary files left, the next apply said: ${next.stdout.split("\n")[0]}`,
      );
    const after = snapshot();
    if ([...after.keys()].some((p) => TEMP.test(p)))
      fail("apply", trial, "temporary files remain after the next apply");
    for (const [path, content] of to)
      if (after.get(path) !== content)
        fail("apply", trial, `${path} is not the new version after the next apply`);
    if (trial % 10 === 0) process.stdout.write(`apply: ${trial} trials, ${failures} failures\n`);
  }
  results.apply = {
    trials: TRIALS,
    destination_files: stateB.size,
    apply_ms: Math.round(applyMs),
    killed_mid_apply_with_temp_files: killedWithLitter,
    killed_between_first_and_last_rename: mixed,
    temp_files_left_and_removed_by_next_apply: littered,
  };
}

if (PHASES.includes("undo")) {
  // Each trial: the disk at "b" with the apply of "b" newest in the history; kill its undo; finish.
  writeKanonHome("a");
  run(["apply", "--yes"]);
  writeKanonHome("b");
  run(["apply", "--yes"]);
  const header = () => run(["undo", "-n"]).stdout.split("\n")[0];
  const undoMs = timed(["undo", "--yes"]);
  // What undo offers once the apply of "b" is undone: the apply of "a".
  const headerA = header();
  const counts = {
    before_first_restore: 0,
    between_restores: 0,
    after_last_restore: 0,
    finished_by_next_undo: 0,
  };
  for (let trial = 1; trial <= TRIALS; trial++) {
    writeKanonHome("b");
    run(["apply", "--yes"]);
    const newest = header();
    await killedAfter(["undo", "--yes"], Math.random() * undoMs * 1.2);
    const now = snapshot();
    const { fromCount, toCount } = wholly("undo", trial, now, stateB, stateA);
    if (!userKept()) fail("undo", trial, "user content or a mode changed");
    if (toCount === 0) counts.before_first_restore++;
    else if (fromCount > 0) counts.between_restores++;
    else counts.after_last_restore++;
    // The history is readable, and says whether that undo is still to finish.
    const pending = header();
    if (pending === newest) {
      counts.finished_by_next_undo++;
      run(["undo", "--yes"]);
    } else if (pending !== headerA) fail("undo", trial, `after the kill, undo -n says: ${pending}`);
    const after = snapshot();
    same("undo", trial, "after the undo", new Map([...after].filter(([p]) => !TEMP.test(p))), stateA);
    writeKanonHome("a");
    const diff = run(["diff"]).stdout;
    if (diff !== "No changes.\n") fail("undo", trial, `diff after the undo:\n${diff.slice(0, 500)}`);
    if (trial % 10 === 0) process.stdout.write(`undo: ${trial} trials, ${failures} failures\n`);
  }
  const applies = readdirSync(join(state, "kanon/roots"))
    .flatMap((r) => readdirSync(join(state, "kanon/roots", r, "applies")))
    .filter((n) => !n.startsWith(".") && !n.endsWith(".undone"));
  results.undo = {
    trials: TRIALS,
    undo_ms: Math.round(undoMs),
    history_entries_left: applies.length,
    ...counts,
  };
}

if (PHASES.includes("import")) {
  // A machine with many skills to import, and a Kanon home that `import --write --force` replaces.
  const machine = join(base, "machine");
  const kimport = join(base, "kanon-home-import");
  const env = { PATH: process.env.PATH, HOME: machine };
  mkdirSync(join(machine, ".claude"), { recursive: true });
  writeFileSync(join(machine, ".claude/CLAUDE.md"), "Be brief.\n");
  writeFileSync(join(machine, ".claude.json"), '{"mcpServers": {"docs": {"command": "docs"}}}\n');
  for (let i = 0; i < SKILLS; i++) {
    const dir = join(machine, ".claude/skills", `imported-${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "SKILL.md"), `---\nname: imported-${i}\ndescription: d\n---\nImported ${i}.\n`);
    writeFileSync(join(dir, "notes.md"), `${i}\n`.repeat(50));
  }
  const seedKh = () => {
    rmSync(kimport, { recursive: true, force: true });
    mkdirSync(join(kimport, "skills/mine"), { recursive: true });
    writeFileSync(join(kimport, "kanon.yaml"), "# my home\nversion: 1\n");
    writeFileSync(join(kimport, "skills/mine/SKILL.md"), "---\nname: mine\ndescription: d\n---\n");
    // One of the machine's skills is in the home already, with other bytes: --force replaces it.
    mkdirSync(join(kimport, "skills/imported-0"), { recursive: true });
    writeFileSync(join(kimport, "skills/imported-0/SKILL.md"), "mine, not imported\n");
  };
  const imp = (...args) => {
    const r = spawnSync(process.execPath, [kanon, "--home", kimport, "--agent", "claude", ...args], {
      env,
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(`kanon ${args.join(" ")} exited ${r.status}: ${r.stderr}`);
    return r;
  };
  const killedImport = (delay) =>
    new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        [kanon, "--home", kimport, "--agent", "claude", "import", "--write", "--force"],
        { env, stdio: "ignore" },
      );
      const timer = setTimeout(() => child.kill("SIGKILL"), delay);
      child.on("exit", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  seedKh();
  const homeOld = snapshot(kimport);
  const t0 = performance.now();
  imp("import", "--write", "--force");
  const importMs = performance.now() - t0;
  const homeNew = snapshot(kimport);
  imp("undo", "--yes");
  same("import", 0, "undo of the first import", snapshot(kimport), homeOld);
  const counts = { nothing_written: 0, between_renames: 0, all_written: 0, undone_by_next_undo: 0 };
  for (let trial = 1; trial <= TRIALS; trial++) {
    await killedImport(Math.random() * importMs * 1.2);
    const now = snapshot(kimport);
    const { fromCount, toCount } = wholly("import", trial, now, homeOld, homeNew);
    if (toCount === 0) counts.nothing_written++;
    else if (fromCount > 0) counts.between_renames++;
    else counts.all_written++;
    if (imp("undo", "-n").stdout.startsWith("Undo the import of ")) {
      counts.undone_by_next_undo++;
      imp("undo", "--yes");
    } else {
      // Killed before its history entry: nothing was written; a finished import and its undo put
      // the home back (and the import sweeps what the killed one left).
      imp("import", "--write", "--force");
      imp("undo", "--yes");
    }
    const after = snapshot(kimport);
    same("import", trial, "after the undo", new Map([...after].filter(([p]) => !TEMP.test(p))), homeOld);
    if ([...after.keys()].some((p) => TEMP.test(p))) fail("import", trial, "temporary files remain");
    if (trial % 10 === 0) process.stdout.write(`import: ${trial} trials, ${failures} failures\n`);
  }
  results.import = { trials: TRIALS, home_files: homeNew.size, import_ms: Math.round(importMs), ...counts };
}

console.log(JSON.stringify({ ...results, failures }, null, 1));
rmSync(base, { recursive: true, force: true });
if (existsSync(base) || failures > 0) process.exit(1);
