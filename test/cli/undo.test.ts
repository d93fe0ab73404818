/**
 * `kanon undo` takes back the newest apply or import of its scope, one step per run, with the same
 * safety rules for both; an apply killed half-way leaves no folder behind once the next apply or
 * undo ran (the kill is real: SIGKILL right before a chosen rename, see test/support/kill-at.cjs).
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listFiles, ROOT, sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();
const { k, write, exists } = s;
const yaml = () => join(s.kh, "kanon.yaml");
const readHome = (rel: string) => readFileSync(join(s.kh, rel), "utf8");

/** Claude Code on this machine: instructions, a skill with a script, a server and a hook. */
function claudeMachine(server = "docs-mcp") {
  write(".claude/CLAUDE.md", "Be brief.\n");
  write(".claude/skills/review/SKILL.md", "---\nname: review\ndescription: Review\n---\nReview it.\n");
  write(".claude/skills/review/scripts/run.sh", "#!/bin/sh\necho review\n");
  chmodSync(join(s.home, ".claude/skills/review/scripts/run.sh"), 0o755);
  write(".claude.json", JSON.stringify({ mcpServers: { docs: { command: server } } }));
  write(
    ".claude/settings.json",
    JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "/bin/notify" }] }] } }),
  );
}
const claude = (...args: string[]) => k("--agent", "claude", ...args);

/** A home with comments, odd spacing and a mode of its own: merge normalises some of it, undo none. */
const HOME_YAML = `# my Kanon home
version: 1

mcp:
  servers:
    # the one from work
    github:
      command: github-mcp   # pinned
      targets: [claude]
`;

describe("undo of an import", () => {
  it("import --write, then undo: the empty home is empty again; -n and the prompt write nothing", async () => {
    claudeMachine();
    mkdirSync(s.kh);
    const r = await claude("import", "--write");
    expect(r.status).toBe(0);
    expect(listFiles(s.kh)).toEqual([
      "instructions/imported.md",
      "kanon.yaml",
      "skills/review/SKILL.md",
      "skills/review/scripts/run.sh",
    ]);
    const dry = await k("undo", "-n");
    expect(dry.stdout).toMatch(/^Undo the import of \d{4}-\d\d-\d\dT[\d:.]+Z:\n/);
    for (const f of listFiles(s.kh)) expect(dry.stdout).toContain(`  remove  ${join(s.kh, f)}\n`);
    expect(dry.stdout).toMatch(/Dry run: would undo 4 file change\(s\); nothing written\.\n$/);
    expect((await s.run(["--home", s.kh, "undo"], { input: "n\n" })).stdout).toMatch(
      /Undo these changes\? \[y\/N\] Undo cancelled\.\n$/,
    );
    expect(listFiles(s.kh)).toHaveLength(4);

    const undo = await k("undo", "--yes");
    expect(undo.stdout).toMatch(/Undid 4 file change\(s\)\.\n$/);
    // The folders the import made went with their files; the home itself was there before.
    expect(readdirSync(s.kh)).toEqual([]);
    expect((await k("undo", "--yes")).stdout).toBe("Nothing to undo.\n");
  });

  it("a home the import created goes too, and nothing is written into it or the machine's files", async () => {
    claudeMachine();
    const before = listFiles(s.home);
    expect((await claude("import", "--write")).status).toBe(0);
    expect((await k("undo", "--yes")).status).toBe(0);
    expect(existsSync(s.kh)).toBe(false);
    expect(listFiles(s.home).filter((f) => !f.startsWith(".local/state/"))).toEqual(before);
  });

  it("import --merge, then undo: kanon.yaml comes back byte for byte, mode included", async () => {
    claudeMachine();
    s.writeHome(HOME_YAML);
    chmodSync(yaml(), 0o600);
    const r = await claude("import", "--merge", "--write");
    expect(r.stdout).toContain(`Merged imported config into ${yaml()}\n`);
    const merged = readHome("kanon.yaml");
    expect(merged).toContain("    docs:\n      command: docs-mcp\n");
    expect(merged).toContain("command: github-mcp # pinned"); // the merge normalised the spacing
    expect(statSync(yaml()).mode & 0o777).toBe(0o600);
    const undo = await k("undo", "--yes");
    expect(undo.stdout).toContain(`  restore ${yaml()}\n`);
    expect(undo.stdout).toContain(`  remove  ${join(s.kh, "skills/review/SKILL.md")}\n`);
    expect(readHome("kanon.yaml")).toBe(HOME_YAML);
    expect(statSync(yaml()).mode & 0o777).toBe(0o600);
    expect(listFiles(s.kh)).toEqual(["kanon.yaml"]);
  });

  it("import --write --force, then undo: the replaced kanon.yaml and skill files come back", async () => {
    claudeMachine();
    s.writeHome(HOME_YAML, { "skills/review/SKILL.md": "my own review skill\n" });
    expect((await claude("import", "--write", "--force")).status).toBe(0);
    expect(readHome("skills/review/SKILL.md")).toContain("Review it.");
    expect((await k("undo", "--yes")).status).toBe(0);
    expect(readHome("kanon.yaml")).toBe(HOME_YAML);
    expect(readHome("skills/review/SKILL.md")).toBe("my own review skill\n");
    expect(listFiles(s.kh)).toEqual(["kanon.yaml", "skills/review/SKILL.md"]);
  });

  it("a file edited since the import is protected: undo names it and restores nothing", async () => {
    claudeMachine();
    s.writeHome(HOME_YAML);
    await claude("import", "--merge", "--write");
    const edited = `${readHome("kanon.yaml")}# mine, after the import\n`;
    writeFileSync(yaml(), edited);
    const r = await k("undo", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^cannot undo the import of .*: changed since then: ${yaml()}; nothing was restored \\(it holds`,
      ),
    );
    expect(readHome("kanon.yaml")).toBe(edited);
    expect(existsSync(join(s.kh, "skills/review/SKILL.md"))).toBe(true);
    // Put back as the import left it, it can be undone.
    writeFileSync(yaml(), edited.replace("# mine, after the import\n", ""));
    expect((await k("undo", "--yes")).status).toBe(0);
    expect(readHome("kanon.yaml")).toBe(HOME_YAML);
  });

  it("a kanon.yaml that is a symlink stays one: undo restores its target", async () => {
    claudeMachine();
    const dotfiles = join(s.work, "dotfiles");
    mkdirSync(dotfiles);
    writeFileSync(join(dotfiles, "kanon.yaml"), HOME_YAML);
    mkdirSync(s.kh);
    symlinkSync("../dotfiles/kanon.yaml", yaml());
    expect((await claude("import", "--merge", "--write")).status).toBe(0);
    expect((await k("undo", "--yes")).status).toBe(0);
    expect(lstatSync(yaml()).isSymbolicLink()).toBe(true);
    expect(readlinkSync(yaml())).toBe("../dotfiles/kanon.yaml");
    expect(readFileSync(join(dotfiles, "kanon.yaml"), "utf8")).toBe(HOME_YAML);
  });
});

describe("applies and imports share one history, newest first", () => {
  it("undo takes back the apply, then the import before it, then the apply before that", async () => {
    claudeMachine();
    s.writeHome(HOME_YAML);
    expect((await claude("apply", "--yes")).status).toBe(0); // apply 1: github
    const afterApply1 = readFileSync(join(s.home, ".claude.json"), "utf8");
    expect((await claude("import", "--merge", "--write")).status).toBe(0); // import: docs, review, …
    write(".claude/CLAUDE.md", "Changed.\n");
    expect((await claude("apply", "--yes")).status).toBe(0); // apply 2: CLAUDE.md as imported
    expect(s.read(".claude/CLAUDE.md")).toBe("Be brief.\n");

    const first = await k("undo", "--yes");
    expect(first.stdout).toMatch(/^Undo the apply of /);
    expect(first.stdout).toContain(`${join(s.home, ".claude/CLAUDE.md")} (claude)\n`);
    // The imported docs server is as Claude has it (no `type`, which Claude takes as stdio): apply 2
    // left .claude.json alone.
    expect(first.stdout).not.toContain(".claude.json");
    expect(s.read(".claude/CLAUDE.md")).toBe("Changed.\n");
    expect(readFileSync(join(s.home, ".claude.json"), "utf8")).toBe(afterApply1);
    expect((await claude("diff", "--stat")).stdout).not.toBe("No changes.\n"); // the import is still there

    const second = await k("undo", "--yes");
    expect(second.stdout).toMatch(/^Undo the import of /);
    expect(readHome("kanon.yaml")).toBe(HOME_YAML);
    expect((await claude("diff")).stdout).toBe("No changes.\n");

    const third = await k("undo", "--yes");
    expect(third.stdout).toMatch(/^Undo the apply of /);
    expect(JSON.parse(readFileSync(join(s.home, ".claude.json"), "utf8")).mcpServers).toEqual({
      docs: { command: "docs-mcp" },
    });
    expect((await k("undo", "--yes")).stdout).toBe("Nothing to undo.\n");
  });

  it("an import with --project is undone in that project's scope", async () => {
    const project = join(s.work, "project");
    mkdirSync(join(project, ".claude"), { recursive: true });
    writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { docs: { command: "d" } } }));
    s.writeHome(HOME_YAML);
    expect((await claude("--project", project, "import", "--merge", "--write")).status).toBe(0);
    expect(readHome("kanon.yaml")).toContain("docs:");
    expect((await k("undo", "--yes")).stdout).toBe("Nothing to undo.\n");
    expect((await k("--project", project, "undo", "--yes")).status).toBe(0);
    expect(readHome("kanon.yaml")).toBe(HOME_YAML);
  });
});

/** Runs the built kanon, killed with SIGKILL right before its first rename to a path matching `at`. */
const killedAt = (at: string, ...args: string[]) =>
  s.spawn(["--home", s.kh, ...args], {
    env: { NODE_OPTIONS: `--require ${join(ROOT, "test/support/kill-at.cjs")}`, KANON_KILL_AT: at },
  });

/** Folders below $HOME (outside the state directory) with nothing in them. */
const emptyDirs = () =>
  readdirSync(s.home, { recursive: true, withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(e.parentPath, e.name))
    .filter((d) => !d.startsWith(join(s.home, ".local")) && readdirSync(d).length === 0)
    .map((d) => d.slice(s.home.length + 1));

const SKILL = "---\nname: review\ndescription: Review\n---\nReview it.\n";
const WITH_SKILL = "version: 1\nskills:\n  - name: review\n    targets: [claude]\n";
const WITHOUT_SKILL = "version: 1\nskills:\n  - name: review\n    enabled: false\n";

describe("an apply killed half-way leaves no folder behind", () => {
  async function killMidApply() {
    write(".claude/settings.json", "{}\n"); // the user's: ~/.claude is not kanon's
    s.writeHome(WITH_SKILL, { "skills/review/SKILL.md": SKILL, "skills/review/scripts/run.sh": "echo\n" });
    const r = killedAt("/\\.claude/skills/review/", "--agent", "claude", "apply", "--yes");
    expect(r.status).toBe(-1); // killed
    // What the kill left: the folders it made, holding only its temporary files.
    const left = readdirSync(join(s.home, ".claude/skills/review"), { recursive: true }).map(String);
    expect(left.some((f) => /\.kanon-\d+-[0-9a-f]{12}\.tmp$/.test(f))).toBe(true);
    expect(exists(".claude/skills/review/SKILL.md")).toBe(false);
  }

  it("the next apply, with the skill switched off, removes its folders and temporary files", async () => {
    await killMidApply();
    s.writeHome(WITHOUT_SKILL);
    const r = await k("--agent", "claude", "apply", "--yes");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Removed [1-9]\d* temporary file\(s\) left by an interrupted apply\.\n/);
    expect(exists(".claude/skills")).toBe(false);
    expect(exists(".claude/settings.json")).toBe(true);
    expect(emptyDirs()).toEqual([]);
  });

  it("undo takes back as much as it wrote: what landed is removed, the rest was never there", async () => {
    write(".claude/settings.json", "{}\n");
    s.writeHome(WITH_SKILL, { "skills/review/SKILL.md": SKILL, "skills/review/scripts/run.sh": "echo\n" });
    // Killed after SKILL.md was renamed into place, before scripts/run.sh was.
    expect(killedAt("/scripts/run\\.sh$", "--agent", "claude", "apply", "--yes").status).toBe(-1);
    expect(s.read(".claude/skills/review/SKILL.md")).toBe(SKILL);
    expect(exists(".claude/skills/review/scripts/run.sh")).toBe(false);
    const undo = await k("undo", "--yes");
    expect(undo.status).toBe(0);
    expect(undo.stdout).toContain(`  remove  ${join(s.home, ".claude/skills/review/SKILL.md")} (claude)\n`);
    expect(undo.stdout).not.toContain("run.sh");
    expect(undo.stdout).toMatch(/Undid 1 file change\(s\)\.\n$/);
    expect(exists(".claude/skills")).toBe(false);
    expect(emptyDirs()).toEqual([]);
  });

  it("undo removes them too, and the record goes back", async () => {
    await killMidApply();
    const undo = await k("undo", "--yes");
    expect(undo.status).toBe(0);
    expect(undo.stdout).toContain("temporary file(s) left by an interrupted apply.\n");
    expect(exists(".claude/skills")).toBe(false);
    expect(emptyDirs()).toEqual([]);
    expect((await k("--agent", "claude", "diff", "--stat")).stdout).toContain("2 to create");
  });

  it("a folder the user made in one of them is kept, with the folders above it, and named", async () => {
    await killMidApply();
    mkdirSync(join(s.home, ".claude/skills/review/mine"));
    s.writeHome(WITHOUT_SKILL);
    const r = await k("--agent", "claude", "apply", "--yes");
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      `warning: kept ${join(s.home, ".claude/skills/review/mine")}: kanon did not write it (so ${join(s.home, ".claude/skills/review")} stays)\n`,
    );
    expect(emptyDirs()).toEqual([".claude/skills/review/mine"]);
    expect(readdirSync(join(s.home, ".claude/skills/review"))).toEqual(["mine"]);
  });

  it("when the same skill is applied again, its folders stay and hold it", async () => {
    await killMidApply();
    expect((await k("--agent", "claude", "apply", "--yes")).status).toBe(0);
    expect(readFileSync(join(s.home, ".claude/skills/review/SKILL.md"), "utf8")).toBe(SKILL);
    // Then dropped: the folders the killed apply made are kanon's and go.
    s.writeHome(WITHOUT_SKILL);
    expect((await k("--agent", "claude", "apply", "--yes")).status).toBe(0);
    expect(exists(".claude/skills")).toBe(false);
    expect(emptyDirs()).toEqual([]);
  });
});

describe("an apply killed before a symlinked co-owned file was written", () => {
  it("is reconciled at the link's path: the next apply replaces kanon's old hook, it does not keep it", async () => {
    mkdirSync(join(s.home, ".claude"), { recursive: true });
    mkdirSync(join(s.home, "dotfiles"));
    writeFileSync(join(s.home, "dotfiles/settings.json"), '{\n  "theme": "dark"\n}\n');
    symlinkSync("../dotfiles/settings.json", join(s.home, ".claude/settings.json"));
    const hook = (v: string) =>
      `version: 1\nhooks:\n  - name: guard\n    event: PreToolUse\n    matcher: Bash\n    command: /bin/guard-${v}\n`;
    s.writeHome(hook("a"));
    expect((await k("--agent", "claude", "apply", "--yes")).status).toBe(0);
    s.writeHome(hook("b"));
    expect(killedAt("/dotfiles/settings\\.json$", "--agent", "claude", "apply", "--yes").status).toBe(-1);
    expect(s.read(".claude/settings.json")).toContain("/bin/guard-a");
    expect((await k("--agent", "claude", "apply", "--yes")).status).toBe(0);
    const settings = s.read(".claude/settings.json");
    expect(settings).toContain("/bin/guard-b");
    expect(settings).not.toContain("/bin/guard-a");
    expect(settings).toContain('"theme": "dark"');
    expect(lstatSync(join(s.home, ".claude/settings.json")).isSymbolicLink()).toBe(true);
    expect((await k("--agent", "claude", "diff")).stdout).toBe("No changes.\n");
  });
});
