/**
 * `kanon init --force` over an existing home: every file it replaces is copied into kanon's state
 * directory first and the output names each copy; a file that already holds the starter is left
 * alone, and so is every file init does not write; a failure on the way changes nothing.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { STARTER_CONFIG, STARTER_INSTRUCTIONS } from "../../src/cli/commands/init.js";
import { sandboxEnv, sandboxPerTest, snapshot } from "../support/cli.js";

const s = sandboxPerTest();
const OTHER = {
  "kanon.yaml": "version: 1\n# my own home\n",
  "instructions/shared.md": "# Mine\n",
  ".gitignore": "node_modules/\n",
};
const UNTOUCHED = {
  "instructions/testing.md": "# Testing\n",
  "skills/review/SKILL.md": "---\nname: review\n---\n",
  "hooks/guard.sh": "#!/bin/sh\n",
  "notes.txt": "notes\n",
};
const backups = () => join(s.home, ".local/state/kanon/backups");

function git(...args: string[]): string {
  const r = spawnSync("git", ["-C", s.kh, ...args], { env: sandboxEnv(s.home), encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** Every entry below `dir` but git's files: path → mode and bytes, a symlink's target, or `folder`. */
const tree = (dir: string) => snapshot(dir, { skip: /^\.git\//, folders: true });

/** `Saved the <rel> it replaces… in <copy>` lines: rel → copy. */
function copies(stdout: string): Record<string, string> {
  return Object.fromEntries(
    [...stdout.matchAll(/^Saved the (\S+) it replaces.* in (\S+)$/gm)].map((m) => [m[1]!, m[2]!]),
  );
}

describe("kanon init --force over an existing home", () => {
  it("copies each file it replaces, names each copy, commits nothing in a repository, and leaves the rest", async () => {
    s.writeHome(OTHER["kanon.yaml"], { ...OTHER, ...UNTOUCHED });
    git("init", "--quiet");
    git("add", "--all");
    git("commit", "--quiet", "-m", "my home");
    const head = git("rev-parse", "HEAD");
    const r = await s.k("init", "--force");
    expect(r).toMatchObject({ status: 0, stderr: "" });
    const saved = copies(r.stdout);
    expect(Object.keys(saved).sort()).toEqual(Object.keys(OTHER).sort());
    for (const [rel, text] of Object.entries(OTHER)) {
      expect(saved[rel]!.startsWith(`${backups()}/`)).toBe(true);
      expect(readFileSync(saved[rel]!, "utf8")).toBe(text);
      expect(statSync(saved[rel]!).mode & 0o777).toBe(0o600);
    }
    expect(s.readHome("kanon.yaml")).toBe(STARTER_CONFIG);
    expect(s.readHome("instructions/shared.md")).toBe(STARTER_INSTRUCTIONS);
    expect(s.readHome(".gitignore")).toBe(".kanon/\n");
    for (const [rel, text] of Object.entries(UNTOUCHED)) expect(s.readHome(rel)).toBe(text);
    // The user's repository: no commit made for them, and the output says so.
    expect(git("rev-parse", "HEAD")).toBe(head);
    expect(r.stdout).toContain(`Not committed: ${s.kh} was a git repository already`);
    expect(git("status", "--porcelain").split("\n").filter(Boolean).sort()).toEqual([
      " M .gitignore",
      " M instructions/shared.md",
      " M kanon.yaml",
    ]);
  });

  it("leaves a file that already holds the starter as it is: not replaced, not copied", async () => {
    s.writeHome(OTHER["kanon.yaml"], { "instructions/shared.md": STARTER_INSTRUCTIONS });
    const shared = join(s.kh, "instructions/shared.md");
    utimesSync(shared, new Date("2001-01-01"), new Date("2001-01-01"));
    const before = statSync(shared);
    const r = await s.k("init", "--force", "--no-git");
    expect(r.status).toBe(0);
    expect(Object.keys(copies(r.stdout))).toEqual(["kanon.yaml"]);
    expect(statSync(shared).mtimeMs).toBe(before.mtimeMs);
    expect(statSync(shared).ino).toBe(before.ino);
    // A starter over a starter copies nothing.
    expect((await s.k("init", "--force", "--no-git")).stdout).not.toContain("Saved");
  });

  it("--no-git: no repository is made, and each copy is still named", async () => {
    s.writeHome(OTHER["kanon.yaml"], OTHER);
    const r = await s.k("init", "--force", "--no-git");
    expect(r.status).toBe(0);
    const saved = copies(r.stdout);
    expect(Object.keys(saved).sort()).toEqual(Object.keys(OTHER).sort());
    for (const [rel, text] of Object.entries(OTHER)) expect(readFileSync(saved[rel]!, "utf8")).toBe(text);
    expect(existsSync(join(s.kh, ".git"))).toBe(false);
    expect(r.stdout).not.toContain("ommit");
  });

  it("replaces a symlinked starter file by the file, leaving its target alone, and keeps the link", async () => {
    const notes = join(s.work, "notes.md");
    writeFileSync(notes, "# My notes, shared with other tools\n");
    s.writeHome(OTHER["kanon.yaml"]);
    mkdirSync(join(s.kh, "instructions"));
    symlinkSync(notes, join(s.kh, "instructions/shared.md"));
    const r = await s.k("init", "--force", "--no-git");
    expect(r.status).toBe(0);
    expect(readFileSync(notes, "utf8")).toBe("# My notes, shared with other tools\n");
    expect(lstatSync(join(s.kh, "instructions/shared.md")).isFile()).toBe(true);
    expect(s.readHome("instructions/shared.md")).toBe(STARTER_INSTRUCTIONS);
    const copy = copies(r.stdout)["instructions/shared.md"]!;
    expect(r.stdout).toContain(
      `Saved the instructions/shared.md it replaces, a symlink to ${notes} (that file is left as it is), in ${copy}\n`,
    );
    expect(readlinkSync(copy)).toBe(notes);
  });
});

describe("a failure on the way changes nothing", () => {
  /** Name, what is in the way, the error, and whether $XDG_STATE_HOME is the file `<work>/state`. */
  const cases: [string, () => void, (kh: string) => string, boolean?][] = [
    [
      "a file where init makes a folder",
      () => writeFileSync(join(s.kh, "hooks"), "not a folder\n"),
      (kh) => `cannot create the folder ${kh}/hooks: a file is in the way; nothing was changed`,
    ],
    [
      "a folder where init writes a file",
      () => mkdirSync(join(s.kh, "instructions/shared.md"), { recursive: true }),
      (kh) => `cannot write ${kh}/instructions/shared.md: it is a directory; nothing was changed`,
    ],
    [
      "a state directory it cannot write the copies into",
      () => writeFileSync(join(s.work, "state"), "a file\n"),
      (kh) =>
        `cannot save a copy of ${kh}/kanon.yaml in ${join(s.work, "state")}/kanon/backups: not a directory; nothing was changed`,
      true,
    ],
  ];
  for (const [name, arrange, message, stateIsFile] of cases) {
    it(name, async () => {
      s.writeHome(OTHER["kanon.yaml"], { ".gitignore": OTHER[".gitignore"], "notes.txt": "notes\n" });
      arrange();
      const before = tree(s.kh);
      const vars = stateIsFile ? { XDG_STATE_HOME: join(s.work, "state") } : {};
      const r = await s.run(["--home", s.kh, "init", "--force", "--no-git"], { env: vars });
      expect(r.status).toBe(1);
      expect(r.stderr.replace(/(backups)\/[^:]*/, "$1")).toBe(`${message(s.kh)}\n`);
      expect(tree(s.kh)).toEqual(before);
      expect(existsSync(backups())).toBe(false);
      expect(r.stdout).toBe("");
    });
  }

  it("a home it cannot write in: the error names the file, not the temporary one beside it", async () => {
    if (process.getuid?.() === 0) return; // root writes anywhere
    s.writeHome(OTHER["kanon.yaml"]);
    for (const dir of ["instructions", "skills", "hooks", ".kanon"]) mkdirSync(join(s.kh, dir));
    chmodSync(s.kh, 0o555);
    try {
      const before = tree(s.kh);
      const r = await s.run(["--home", s.kh, "init", "--force", "--no-git"]);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(`cannot write ${s.kh}/kanon.yaml: permission denied; nothing was changed\n`);
      expect(tree(s.kh)).toEqual(before);
      expect(existsSync(backups())).toBe(false);
    } finally {
      chmodSync(s.kh, 0o755);
    }
  });
});
