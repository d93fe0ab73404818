// `npm run kill-loop`: kill -9 `kanon apply` at random moments, TRIALS times (default 100), and
// check after each kill that every destination file is wholly the old or the new version (user
// content in co-owned files included), that nothing but kanon's own temporary files was left, and
// that the next apply removes all of them and says so. Not a unit test: it takes minutes.
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

/** Every file under HOME (through no symlink) but kanon's state directory, with its bytes and mode. */
function snapshot() {
  const files = new Map();
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (p === state) continue;
      if (e.isDirectory()) walk(p);
      else if (e.isSymbolicLink()) files.set(relative(home, p), `-> ${readFileSync(p).length}`);
      else
        files.set(
          relative(home, p),
          `${(lstatSync(p).mode & 0o777).toString(8)} ${readFileSync(p).toString("base64")}`,
        );
    }
  };
  walk(home);
  return files;
}

seedHome();
writeKanonHome("a");
run(["apply", "--yes"]);
const stateA = snapshot();
writeKanonHome("b");
const t0 = performance.now();
run(["apply", "--yes"]);
const applyMs = performance.now() - t0;
const stateB = snapshot();
const userKept = () =>
  readFileSync(join(home, ".claude.json"), "utf8").includes('"token": "secret"') &&
  readFileSync(join(home, ".codex/config.toml"), "utf8").startsWith('# mine\nmodel = "o4"  # keep\n') &&
  readFileSync(join(home, "dotfiles/settings.json"), "utf8").includes('"allow": ["Bash(ls)"]') &&
  lstatSync(join(home, ".claude/settings.json")).isSymbolicLink() &&
  (lstatSync(join(home, ".claude.json")).mode & 0o777) === 0o600;

let failures = 0;
let killedWithLitter = 0;
let littered = 0;
let mixed = 0;
const fail = (trial, message) => {
  failures++;
  console.error(`trial ${trial}: ${message}`);
};

for (let trial = 1; trial <= TRIALS; trial++) {
  const [from, to, version] = trial % 2 ? [stateB, stateA, "a"] : [stateA, stateB, "b"];
  writeKanonHome(version);
  const delay = Math.random() * applyMs * 1.2;
  await new Promise((resolve) => {
    const child = spawn(process.execPath, [kanon, "--home", kh, "apply", "--yes"], {
      env: { PATH: process.env.PATH, HOME: home },
      stdio: "ignore",
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), delay);
    child.on("exit", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  const now = snapshot();
  const temps = [...now.keys()].filter((p) => TEMP.test(p));
  let fromCount = 0;
  let toCount = 0;
  for (const [path, content] of now) {
    if (TEMP.test(path)) continue;
    const old = from.get(path);
    const fresh = to.get(path);
    if (old === fresh && content === fresh) continue;
    if (content === fresh) toCount++;
    else if (content === old) fromCount++;
    else fail(trial, `${path} is neither the old nor the new version`);
  }
  for (const path of new Set([...from.keys(), ...to.keys()]))
    if (!now.has(path) && to.has(path) && from.has(path)) fail(trial, `${path} disappeared`);
  if (!userKept()) fail(trial, "user content or a mode changed");
  if (fromCount > 0 && toCount > 0) mixed++;
  if (temps.length > 0) killedWithLitter++;
  littered += temps.length;

  const next = run(["apply", "--yes"]);
  const said = /Removed (\d+) temporary file\(s\)/.exec(next.stdout);
  if (temps.length > 0 && Number(said?.[1]) !== temps.length)
    fail(trial, `${temps.length} temporary files left, the next apply said: ${next.stdout.split("\n")[0]}`);
  const after = snapshot();
  if ([...after.keys()].some((p) => TEMP.test(p))) fail(trial, "temporary files remain after the next apply");
  for (const [path, content] of to)
    if (after.get(path) !== content) fail(trial, `${path} is not the new version after the next apply`);
  if (trial % 10 === 0) process.stdout.write(`${trial} trials, ${failures} failures\n`);
}

const files = stateB.size;
console.log(
  JSON.stringify({
    trials: TRIALS,
    destination_files: files,
    apply_ms: Math.round(applyMs),
    killed_mid_apply_with_temp_files: killedWithLitter,
    killed_between_first_and_last_rename: mixed,
    temp_files_left_and_removed_by_next_apply: littered,
    failures,
  }),
);
rmSync(base, { recursive: true, force: true });
if (existsSync(base) || failures > 0) process.exit(1);
