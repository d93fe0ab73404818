import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { listFiles, sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();
const { k, writeHome } = s;

describe("init", () => {
  it("scaffolds the starter home and refuses to overwrite it without --force", async () => {
    const first = await k("init");
    expect(first.status).toBe(0);
    expect(first.stdout.startsWith(`Initialized ${s.kh}\n`)).toBe(true);
    // Without its comments, the starter is the Go original's, byte for byte.
    const yaml = readFileSync(join(s.kh, "kanon.yaml"), "utf8");
    expect(
      yaml
        .split("\n")
        .filter((l) => !l.trimStart().startsWith("#"))
        .join("\n"),
    ).toBe(
      "version: 1\ninstructions:\n  files:\n    - instructions/shared.md\nskills: []\nmcp:\n  servers: {}\nhooks: []\n",
    );
    expect(readFileSync(join(s.kh, "instructions/shared.md"), "utf8")).toBe(
      "# Shared Agent Instructions\n\nKeep changes focused and explain tradeoffs clearly.\n",
    );
    expect(readFileSync(join(s.kh, ".gitignore"), "utf8")).toBe(".kanon/\n");
    for (const d of ["skills", "hooks", ".kanon", ".git"])
      expect(statSync(join(s.kh, d)).isDirectory()).toBe(true);
    const again = await k("init");
    expect(again.status).toBe(1);
    expect(again.stderr).toBe(`${join(s.kh, "kanon.yaml")} already exists; pass --force to overwrite\n`);
    expect((await k("init", "--force")).status).toBe(0);
  });

  it("skips git init with --no-git", async () => {
    expect((await k("init", "--no-git")).status).toBe(0);
    expect(existsSync(join(s.kh, ".git"))).toBe(false);
  });
});

describe("validate, render, diff, apply on a new home", () => {
  beforeEach(async () => {
    expect((await k("init")).status).toBe(0);
  });

  it("validates", async () => {
    expect(await k("validate")).toMatchObject({ status: 0, stdout: "kanon.yaml is valid.\n", stderr: "" });
  });

  it("renders instructions for every agent", async () => {
    const r = await k("render");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        `==> [claude] ${join(s.home, ".claude/CLAUDE.md")}`,
        "# Shared Agent Instructions\n\nKeep changes focused and explain tradeoffs clearly.\n",
        `==> [codex] ${join(s.home, ".codex/AGENTS.md")}`,
        "# Shared Agent Instructions\n\nKeep changes focused and explain tradeoffs clearly.\n",
        `==> [opencode] ${join(s.home, ".config/opencode/AGENTS.md")}`,
        "# Shared Agent Instructions\n\nKeep changes focused and explain tradeoffs clearly.\n",
      ].join("\n"),
    );
  });

  it("renders one agent with --agent and rejects an unknown agent", async () => {
    expect((await k("--agent", "codex", "render")).stdout).toContain("==> [codex]");
    expect((await k("--agent", "codex", "render")).stdout).not.toContain("==> [claude]");
    expect(await k("render", "--agent", "nope")).toMatchObject({
      status: 1,
      stderr: 'unsupported agent "nope" (known agents: all, codex, claude, opencode, gemini, kimi)\n',
    });
  });

  it("diffs as git-style hunks, applies after a yes, then has no changes", async () => {
    const diff = await k("diff");
    expect(diff.stdout).toContain(
      `--- /dev/null\n+++ ${join(s.home, ".claude/CLAUDE.md")}\n@@ -0,0 +1,3 @@\n+# Shared Agent Instructions\n+\n+Keep changes`,
    );
    expect(diff.stdout).not.toContain("\u001b[");
    const apply = await s.run(["--home", s.kh, "apply"], { input: "y\n" });
    expect(apply.stdout).toContain("Apply these changes? [y/N] Applied 3 file change(s).\n");
    expect(readFileSync(join(s.home, ".codex/AGENTS.md"), "utf8")).toContain("Keep changes focused");
    expect((await k("diff")).stdout).toBe("No changes.\n");
    expect((await k("apply", "--yes")).stdout).toBe("No changes.\n");
  });

  it("cancels on anything but y or yes, including no input at all", async () => {
    for (const input of ["", "n\n", "nope\n"]) {
      const r = await s.run(["--home", s.kh, "apply"], { input });
      expect(r.status).toBe(0);
      expect(r.stdout.endsWith("Apply these changes? [y/N] Apply cancelled.\n")).toBe(true);
    }
    expect(listFiles(s.home)).toEqual([]);
    expect((await s.run(["--home", s.kh, "apply"], { input: " YES \n" })).stdout).toContain(
      "Applied 3 file change(s).",
    );
  });

  it("dry-runs without writing", async () => {
    const r = await k("apply", "-n");
    expect(r.stdout).toContain("+++ ");
    expect(r.stdout.endsWith("Dry run: would apply 3 file change(s); nothing written.\n")).toBe(true);
    expect((await k("apply", "--dry-run")).status).toBe(0);
    expect(listFiles(s.home)).toEqual([]);
  });

  it("prints No target files. when nothing renders", async () => {
    writeFileSync(join(s.kh, "kanon.yaml"), "version: 1\n");
    expect((await k("render")).stdout).toBe("No target files.\n");
    expect((await k("diff")).stdout).toBe("No changes.\n");
  });

  it("shows git status and drift", async () => {
    // init committed the starter files; an untracked file shows as uncommitted.
    expect((await k("status")).stdout).toContain("Git status: clean\n");
    writeFileSync(join(s.kh, "notes.md"), "x\n");
    const before = await k("status");
    expect(before.stdout).toContain("Uncommitted changes in the home:\n?? notes.md\n");
    expect(before.stdout).toContain("3 change(s), 0 conflict(s).\n");
    await k("apply", "--yes");
    expect((await k("status")).stdout).toContain("No rendered file drift.\n");
  });

  it("answers --json for render, diff and status", async () => {
    const render = JSON.parse((await k("render", "--json")).stdout);
    expect(render.files.map((f: { agent: string }) => f.agent)).toEqual(["claude", "codex", "opencode"]);
    expect(render.warnings).toEqual([]);
    const diff = JSON.parse((await k("diff", "--json")).stdout);
    expect(diff.files[0]).toMatchObject({
      agent: "claude",
      action: "create",
      path: join(s.home, ".claude/CLAUDE.md"),
    });
    const status = JSON.parse((await k("status", "--json")).stdout);
    expect(status.drift).toEqual({ changes: 3, conflicts: 0 });
  });
});

describe("status without a git home", () => {
  it("says why git status is unavailable and still reports drift", async () => {
    writeHome("version: 1\n");
    const r = await k("status");
    expect(r.stderr).toBe(
      `Git status unavailable: ${s.kh} is not a git repository; run "git init" there, or "kanon init <repo>" to clone your Kanon home\n`,
    );
    expect(r.stdout).toBe("No rendered file drift.\n");
  });

  it("is silent about drift when the home has no kanon.yaml", async () => {
    mkdirSync(s.kh);
    expect(await k("status")).toMatchObject({ status: 0, stdout: "" });
  });
});

describe("bad input: one line naming the object, exit 1, nothing written", () => {
  it("a missing kanon.yaml", async () => {
    const r = await k("render");
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `open ${join(s.kh, "kanon.yaml")}: no such file or directory (run "kanon init" to create a Kanon home, or pass --home)\n`,
    );
  });

  it("a YAML syntax error, with position", async () => {
    writeHome("version: 1\nhooks: [\n");
    const r = await k("validate");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^kanon\.yaml:\d+:\d+: /);
  });

  it("a wrong type", async () => {
    writeHome("version: 1\nhooks:\n  - name: a\n    timeout: soon\n");
    expect((await k("validate")).stderr).toBe(
      'kanon.yaml:4:14: hooks[0].timeout: expected an integer, got string "soon"\n',
    );
  });

  it("an unknown key is a warning, not an error", async () => {
    writeHome("version: 1\nhoksx: []\n");
    expect(await k("validate")).toMatchObject({
      status: 0,
      stdout: "kanon.yaml is valid.\n",
      stderr: 'warning: kanon.yaml:2:1: unknown key "hoksx" is ignored; did you mean "hooks"?\n',
    });
  });

  it("a misspelt section is an error, so it never empties the real one", async () => {
    writeHome("version: 1\nhoks: []\n");
    expect(await k("validate")).toMatchObject({
      status: 1,
      stdout: "",
      stderr: 'kanon.yaml:2:1: unknown key "hoks"; did you mean "hooks"?\n',
    });
  });

  it("missing instructions and skills, unknown targets, unsupported version: every error, one per line", async () => {
    writeHome(
      "version: 2\ninstructions:\n  files: [instructions/missing.md, '']\nskills:\n  - name: ghost\n  - name: ''\nmcp:\n  servers:\n    empty: {}\n    t:\n      command: x\n      targets: [vim]\nhooks:\n  - name: ''\n  - name: h\n    targets: [emacs]\n",
    );
    const r = await k("validate");
    expect(r.status).toBe(1);
    expect(r.stderr.split("\n")).toEqual([
      "kanon.yaml:1:10: unsupported version 2",
      `kanon.yaml:3:11: instruction "instructions/missing.md": stat ${join(s.kh, "instructions/missing.md")}: no such file or directory`,
      "kanon.yaml:3:36: instruction path cannot be empty",
      `kanon.yaml:5:5: skill "ghost": stat ${join(s.kh, "skills/ghost/SKILL.md")}: no such file or directory`,
      "kanon.yaml:6:5: skill name cannot be empty",
      'kanon.yaml:9:12: mcp server "empty" requires url or command',
      'kanon.yaml:12:17: mcp server "t" has unsupported target "vim"',
      "kanon.yaml:14:5: hook name cannot be empty",
      'kanon.yaml:16:15: hook "h" has unsupported target "emacs"',
      'kanon.yaml:15:5: hook "h": type command requires command',
      "",
    ]);
  });

  it("an unparsable co-owned destination: error names the file and nothing is written", async () => {
    writeHome("version: 1\ninstructions:\n  files: [a.md]\nmcp:\n  servers:\n    x:\n      command: y\n", {
      "a.md": "A\n",
    });
    mkdirSync(join(s.home, ".codex"));
    writeFileSync(join(s.home, ".codex/config.toml"), "mcp_servers = [\n");
    const r = await k("apply", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`cannot parse ${join(s.home, ".codex/config.toml")} for merge`);
    expect(listFiles(s.home)).toEqual([".codex/config.toml"]);
    expect(readFileSync(join(s.home, ".codex/config.toml"), "utf8")).toBe("mcp_servers = [\n");
  });

  it("a directory where a file should be", async () => {
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "A\n" });
    mkdirSync(join(s.home, ".claude/CLAUDE.md"), { recursive: true });
    const r = await k("apply", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`cannot write ${join(s.home, ".claude/CLAUDE.md")}: a directory is in the way\n`);
    expect(listFiles(s.home)).toEqual([]);
  });

  it("a file where a directory should be: nothing is written", async () => {
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "A\n" });
    writeFileSync(join(s.home, ".config"), "not a directory");
    const r = await k("apply", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `cannot write ${join(s.home, ".config/opencode/AGENTS.md")}: a parent of it is a file, not a directory\n`,
    );
    expect(listFiles(s.home)).toEqual([".config"]);
  });
});

describe("destination safety", () => {
  const mcpHome = () =>
    writeHome(
      "version: 1\nmcp:\n  servers:\n    github:\n      command: github-mcp\n      args: [stdio]\n      targets: [claude]\n",
    );

  it("keeps a 0600 ~/.claude.json at 0600 and every unmanaged byte", async () => {
    mcpHome();
    const original =
      '{\n    "numStartups": 12,\n    "mcpServers": {\n        "private": {"command": "mine"}\n    },\n    "theme": "dark"\n}\n';
    writeFileSync(join(s.home, ".claude.json"), original, { mode: 0o600 });
    chmodSync(join(s.home, ".claude.json"), 0o600);
    expect((await k("apply", "--yes")).status).toBe(0);
    const after = readFileSync(join(s.home, ".claude.json"), "utf8");
    expect(statSync(join(s.home, ".claude.json")).mode & 0o777).toBe(0o600);
    expect(
      after.startsWith(
        '{\n    "numStartups": 12,\n    "mcpServers": {\n        "private": {"command": "mine"},',
      ),
    ).toBe(true);
    expect(after.endsWith('    },\n    "theme": "dark"\n}\n')).toBe(true);
    expect(JSON.parse(after).mcpServers.github).toEqual({
      type: "stdio",
      command: "github-mcp",
      args: ["stdio"],
    });
    expect((await k("diff")).stdout).toBe("No changes.\n");
  });

  it("updates a symlinked destination at its target", async () => {
    mcpHome();
    const real = join(s.work, "dotfiles-claude.json");
    writeFileSync(real, '{"theme": "light"}\n');
    symlinkSync(real, join(s.home, ".claude.json"));
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(lstatSync(join(s.home, ".claude.json")).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, "utf8"))).toMatchObject({
      theme: "light",
      mcpServers: { github: { command: "github-mcp" } },
    });
  });

  it("shows and repairs a changed mode of a kanon-owned file", async () => {
    writeHome("version: 1\n", {
      "skills/tool/SKILL.md": "---\nname: tool\n---\n",
      "skills/tool/run.sh": "#!/bin/sh\n",
    });
    chmodSync(join(s.kh, "skills/tool/run.sh"), 0o755);
    expect((await k("apply", "--yes")).status).toBe(0);
    const script = join(s.home, ".claude/skills/tool/run.sh");
    expect(statSync(script).mode & 0o777).toBe(0o755);
    chmodSync(script, 0o644);
    expect((await k("--agent", "claude", "diff")).stdout).toBe(
      `--- ${script}\n+++ ${script}\nold mode 100644\nnew mode 100755\n`,
    );
    await k("apply", "--yes");
    expect(statSync(script).mode & 0o777).toBe(0o755);
  });

  it("leaves no temporary files behind", async () => {
    mcpHome();
    await k("apply", "--yes");
    expect(listFiles(s.home).filter((f) => f.includes(".kanon-"))).toEqual([]);
  });
});

describe("help, version and schema", () => {
  it("prints help and version", async () => {
    const help = (await s.run(["--help"])).stdout;
    expect(help).toContain("Manage coding-agent settings");
    // Every folder of the home that kanon reads is named (the sections of src/source/).
    for (const folder of ["instructions/", "skills/", "commands/", "agents/", "hooks/"])
      expect(help).toContain(folder);
    expect((await s.run(["apply", "--help"])).stdout).toContain("--dry-run");
    expect((await s.run(["--version"])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it("prints the JSON Schema of kanon.yaml", async () => {
    const schema = JSON.parse((await s.run(["schema"])).stdout);
    expect(schema.properties.hooks.items.properties.event.type).toBe("string");
  });
});
