/**
 * The ownership record: what leaves kanon.yaml leaves the disk, the user's own entries survive, and
 * nothing kanon did not write is lost (backups, `kanon undo`).
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listFiles, ROOT, sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();
const { k, writeHome, read, write, exists } = s;
const stateDir = () => join(s.home, ".local/state/kanon");

const TWO_SERVERS = `version: 1
mcp:
  servers:
    github:
      command: github-mcp
    tracker:
      url: https://mcp.tracker.example/mcp
`;
const ONE_SERVER = `version: 1
mcp:
  servers:
    tracker:
      url: https://mcp.tracker.example/mcp
`;
const HOOK = `version: 1
hooks:
  - name: guard
    event: PreToolUse
    matcher: Bash
    command: /usr/local/bin/guard
`;

describe("removal", () => {
  it("takes a removed MCP server out of every agent's file in user scope, and nothing else", async () => {
    writeHome(TWO_SERVERS);
    write(".codex/config.toml", "model = 'gpt-5.5'\n\n[mcp_servers.mine]\ncommand = 'mine'\n");
    expect((await k("apply", "--yes")).status).toBe(0);
    writeHome(ONE_SERVER);
    const diff = (await k("diff")).stdout;
    expect(diff).toContain('-    "github": {');
    expect(diff).toContain("-[mcp_servers.github]");
    expect((await k("status")).stdout).toContain("3 change(s), 0 conflict(s).\n");
    expect((await k("apply", "--yes")).stdout).toBe("Applied 3 file change(s).\n");
    for (const f of [".claude.json", ".codex/config.toml", ".config/opencode/opencode.json"]) {
      expect(read(f)).not.toContain("github");
      expect(read(f)).toContain("tracker");
    }
    expect(read(".codex/config.toml")).toBe(
      "model = 'gpt-5.5'\n\n[mcp_servers.mine]\ncommand = 'mine'\n\n[mcp_servers.tracker]\nurl = 'https://mcp.tracker.example/mcp'\n",
    );
    expect((await k("diff")).stdout).toBe("No changes.\n");
  });

  it("takes out a server that is disabled or narrowed away, in project scope", async () => {
    const project = join(s.work, "project");
    mkdirSync(project);
    writeHome(TWO_SERVERS);
    expect((await k("--project", project, "apply", "--yes")).status).toBe(0);
    expect(readFileSync(join(project, ".mcp.json"), "utf8")).toContain("github");
    writeHome(`${TWO_SERVERS}      enabled: false\n`.replace("tracker:", "tracker:\n      targets: [codex]"));
    expect((await k("--project", project, "apply", "--yes")).status).toBe(0);
    const mcp = JSON.parse(readFileSync(join(project, ".mcp.json"), "utf8"));
    expect(mcp.mcpServers).toEqual({ github: { command: "github-mcp", type: "stdio" } });
    expect(readFileSync(join(project, ".codex/config.toml"), "utf8")).not.toContain("tracker");
    expect(readFileSync(join(project, "opencode.json"), "utf8")).not.toContain("tracker");
  });

  it("removes instructions, a skill and the last hook in project scope", async () => {
    const project = join(s.work, "project");
    mkdirSync(project);
    writeFileSync(join(project, "README.md"), "mine\n");
    writeHome(`${HOOK}instructions:\n  files: [a.md]\n`, {
      "a.md": "a\n",
      "skills/s/SKILL.md": "---\nname: s\n---\n",
    });
    expect((await k("--project", project, "apply", "--yes")).status).toBe(0);
    expect(listFiles(project)).toContain(".opencode/plugins/kanon-hooks.js");
    rmSync(s.kh, { recursive: true });
    writeHome("version: 1\n");
    expect((await k("--project", project, "apply", "--yes")).status).toBe(0);
    // The hook files kanon created go with their last hook, and so do the folders it made for them.
    expect(listFiles(project)).toEqual(["README.md"]);
    expect(readdirSync(project)).toEqual(["README.md"]);
    expect((await k("--project", project, "diff")).stdout).toBe("No changes.\n");
  });

  it("deletes a removed skill's files and folders, keeping a file the user added with a warning", async () => {
    writeHome("version: 1\n", { "skills/old/SKILL.md": "---\nname: old\n---\n", "skills/old/a/b.md": "b\n" });
    expect((await k("--agent", "claude", "apply", "--yes")).stdout).toBe("Applied 2 file change(s).\n");
    write(".claude/skills/old/mine.md", "mine\n");
    rmSync(join(s.kh, "skills/old"), { recursive: true });
    const diff = await k("--agent", "claude", "diff");
    expect(diff.stdout).toBe(
      `DELETE ${join(s.home, ".claude/skills/old/SKILL.md")} (claude)\nDELETE ${join(s.home, ".claude/skills/old/a/b.md")} (claude)\n`,
    );
    const apply = await k("--agent", "claude", "apply", "--yes");
    expect(apply.stderr).toBe(
      `warning: kept ${join(s.home, ".claude/skills/old/mine.md")}: kanon did not write it (so ${join(s.home, ".claude/skills/old")} stays)\n`,
    );
    expect(listFiles(join(s.home, ".claude"))).toEqual(["skills/old/mine.md"]);
    rmSync(join(s.home, ".claude/skills/old/mine.md"));
    writeHome("version: 1\n", { "skills/new/SKILL.md": "---\nname: new\n---\n" });
    await k("--agent", "claude", "apply", "--yes");
    rmSync(join(s.kh, "skills/new"), { recursive: true });
    await k("--agent", "claude", "apply", "--yes");
    // The folders kanon created go once empty.
    expect(exists(".claude/skills/new")).toBe(false);
  });

  it("removes the last hook from every agent, and the OpenCode plugin", async () => {
    writeHome(HOOK);
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(exists(".config/opencode/plugins/kanon-hooks.js")).toBe(true);
    writeHome("version: 1\n");
    const diff = (await k("diff")).stdout;
    expect(diff).toContain(`DELETE ${join(s.home, ".config/opencode/plugins/kanon-hooks.js")} (opencode)`);
    expect(diff).toContain(`DELETE ${join(s.home, ".claude/settings.json")} (claude)`);
    expect(diff).toContain(`DELETE ${join(s.home, ".codex/hooks.json")} (codex)`);
    expect((await k("status")).stdout).toContain(
      `  pending deletion: ${join(s.home, ".config/opencode/plugins/kanon-hooks.js")} (opencode)\n`,
    );
    expect((await k("apply", "--yes")).status).toBe(0);
    // kanon created both hook files and nothing else is in them: they go, not `{"hooks": {}}`.
    expect(exists(".claude/settings.json")).toBe(false);
    expect(exists(".codex/hooks.json")).toBe(false);
    expect(exists(".config/opencode/plugins/kanon-hooks.js")).toBe(false);
    expect((await k("diff")).stdout).toBe("No changes.\n");
    // undo brings them back from the backup.
    expect((await k("undo", "--yes")).status).toBe(0);
    expect(JSON.parse(read(".codex/hooks.json")).hooks.PreToolUse).toHaveLength(1);
  });

  it("keeps a hook file kanon created once the user put something of theirs in it", async () => {
    writeHome(HOOK);
    expect((await k("apply", "--yes")).status).toBe(0);
    const hooks = JSON.parse(read(".codex/hooks.json"));
    write(".codex/hooks.json", JSON.stringify({ ...hooks, mine: true }, null, 2));
    write(".claude/settings.json", `// mine\n${read(".claude/settings.json")}`);
    writeHome("version: 1\n");
    const diff = (await k("diff")).stdout;
    expect(diff).not.toContain(`DELETE ${join(s.home, ".claude/settings.json")}`);
    expect(diff).not.toContain(`DELETE ${join(s.home, ".codex/hooks.json")}`);
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(JSON.parse(read(".codex/hooks.json"))).toEqual({ hooks: {}, mine: true });
    expect(read(".claude/settings.json")).toMatch(/^\/\/ mine\n/);
    expect((await k("diff")).stdout).toBe("No changes.\n");
  });

  it("keeps a hook file kanon did not create, even when only an empty hooks key is left", async () => {
    write(".codex/hooks.json", '{\n  "hooks": {}\n}\n');
    writeHome(HOOK);
    expect((await k("--agent", "codex", "apply", "--yes")).status).toBe(0);
    writeHome("version: 1\n");
    expect((await k("--agent", "codex", "apply", "--yes")).status).toBe(0);
    expect(JSON.parse(read(".codex/hooks.json"))).toEqual({ hooks: {} });
  });

  it("leaves the files of agents a command does not manage", async () => {
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "a\n" });
    await k("apply", "--yes");
    writeHome("version: 1\n");
    expect((await k("--agent", "claude", "apply", "--yes")).stdout).toBe("Applied 1 file change(s).\n");
    expect(exists(".claude/CLAUDE.md")).toBe(false);
    expect(exists(".codex/AGENTS.md")).toBe(true);
    expect((await k("--agent", "codex", "diff")).stdout).toBe(
      `DELETE ${join(s.home, ".codex/AGENTS.md")} (codex)\n`,
    );
  });

  it("keeps a project AGENTS.md that OpenCode still renders when `--agent codex` drops it", async () => {
    const project = join(s.work, "project");
    mkdirSync(project);
    const p = (...args: string[]) => k("--project", project, ...args);
    const agentsMd = join(project, "AGENTS.md");
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "a\n" });
    expect((await p("apply", "--yes")).status).toBe(0);
    // Codex no longer gets the instructions; OpenCode still renders the same AGENTS.md.
    writeHome("version: 1\ninstructions:\n  files:\n    - { path: a.md, targets: [opencode, claude] }\n", {
      "a.md": "a\n",
    });
    expect((await p("--agent", "codex", "diff")).stdout).toBe("No changes.\n");
    expect((await p("--agent", "codex", "apply", "--yes")).stdout).toBe("No changes.\n");
    expect(readFileSync(agentsMd, "utf8")).toBe("a\n");
    expect((await p("diff")).stdout).toBe("No changes.\n");
    // Gone from kanon.yaml: `--agent codex` leaves OpenCode's share, OpenCode's apply deletes it.
    writeHome("version: 1\n");
    expect((await p("--agent", "codex", "diff")).stdout).toBe("No changes.\n");
    expect((await p("--agent", "opencode", "diff")).stdout).toBe(`DELETE ${agentsMd} (opencode)\n`);
    expect((await p("--agent", "opencode", "apply", "--yes")).status).toBe(0);
    expect(existsSync(agentsMd)).toBe(false);
  });

  it("deletes a shared project AGENTS.md only when no agent that rendered it renders it any more", async () => {
    const project = join(s.work, "project");
    mkdirSync(project);
    const p = (...args: string[]) => k("--project", project, ...args);
    const agentsMd = join(project, "AGENTS.md");
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "a\n" });
    expect((await p("apply", "--yes")).status).toBe(0);
    writeHome("version: 1\n");
    expect((await p("--agent", "opencode", "apply", "--yes")).stdout).toBe("No changes.\n");
    expect(existsSync(agentsMd)).toBe(true);
    expect((await p("diff")).stdout).toContain(`DELETE ${agentsMd} (codex)\n`);
    expect((await p("apply", "--yes")).status).toBe(0);
    expect(existsSync(agentsMd)).toBe(false);
  });

  it("reports deletions in diff --json and status --json", async () => {
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "a\n" });
    await k("--agent", "codex", "apply", "--yes");
    writeHome("version: 1\n");
    const diff = JSON.parse((await k("--agent", "codex", "diff", "--json")).stdout);
    expect(diff.files).toEqual([
      {
        agent: "codex",
        path: join(s.home, ".codex/AGENTS.md"),
        action: "delete",
        mode: "0644",
        replaces: null,
        removed: [],
        diff: `DELETE ${join(s.home, ".codex/AGENTS.md")} (codex)`,
      },
    ]);
    expect(JSON.parse((await k("--agent", "codex", "status", "--json")).stdout).drift).toEqual({
      changes: 1,
      conflicts: 0,
    });
  });
});

const USER_CLAUDE_SETTINGS = `{
  "hooks": {
    "PreToolUse": [
      { "matcher": "Edit", "hooks": [ { "type": "command", "command": "my-edit-check" } ] }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "say done" }] }]
  },
  "theme": "dark"
}
`;
const USER_CODEX_HOOKS = `{
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "my-bash-check" } ] }
    ]
  }
}
`;

describe("the user's hooks", () => {
  it("keeps the user's Claude and Codex handlers, in place, across first apply, removal and the last hook", async () => {
    write(".claude/settings.json", USER_CLAUDE_SETTINGS);
    write(".codex/hooks.json", USER_CODEX_HOOKS);
    writeHome(`${HOOK}  - name: second\n    event: PreToolUse\n    matcher: Bash\n    command: second\n`);
    expect((await k("apply", "--yes")).status).toBe(0);
    const claude = JSON.parse(read(".claude/settings.json"));
    expect(claude.hooks.PreToolUse.map((g: { hooks: { command: string }[] }) => g.hooks[0]!.command)).toEqual(
      ["my-edit-check", "/usr/local/bin/guard", "second"],
    );
    expect(claude.hooks.Stop).toEqual([{ hooks: [{ type: "command", command: "say done" }] }]);
    expect(claude.theme).toBe("dark");
    // The user's lines are untouched.
    expect(read(".claude/settings.json")).toContain(
      '      { "matcher": "Edit", "hooks": [ { "type": "command", "command": "my-edit-check" } ] },\n',
    );
    const codex = JSON.parse(read(".codex/hooks.json"));
    expect(codex.hooks.PreToolUse[0].hooks[0].command).toBe("my-bash-check");
    expect(codex.hooks.PreToolUse).toHaveLength(3);

    writeHome(HOOK);
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(JSON.parse(read(".codex/hooks.json")).hooks.PreToolUse).toHaveLength(2);

    writeHome("version: 1\n");
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(read(".claude/settings.json")).toBe(USER_CLAUDE_SETTINGS);
    expect(read(".codex/hooks.json")).toBe(USER_CODEX_HOOKS);
  });

  it("replaces a changed hook in place, ahead of the user's later handlers", async () => {
    writeHome(HOOK);
    await k("--agent", "codex", "apply", "--yes");
    const hooks = JSON.parse(read(".codex/hooks.json"));
    hooks.hooks.PreToolUse.push({ hooks: [{ type: "command", command: "mine" }] });
    write(".codex/hooks.json", JSON.stringify(hooks, null, 2));
    writeHome(HOOK.replace("/usr/local/bin/guard", "/usr/local/bin/guard2"));
    await k("--agent", "codex", "apply", "--yes");
    const after = JSON.parse(read(".codex/hooks.json")).hooks.PreToolUse;
    expect(after.map((g: { hooks: { command: string }[] }) => g.hooks[0]!.command)).toEqual([
      "/usr/local/bin/guard2",
      "mine",
    ]);
  });

  it("adopts entries on disk equal to what kanon renders, without writing them twice", async () => {
    writeHome(`${HOOK}mcp:\n  servers:\n    github:\n      command: github-mcp\n`);
    write(
      ".claude/settings.json",
      '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/guard"}]}]}}\n',
    );
    write(".claude.json", '{"mcpServers": {"github": {"type": "stdio", "command": "github-mcp"}}}\n');
    expect((await k("--agent", "claude", "diff")).stdout).toBe("No changes.\n");
    expect((await k("--agent", "claude", "apply", "--yes")).stdout).toBe("No changes.\n");
    const record = readFileSync(
      join(stateDir(), "roots", readdirSync(join(stateDir(), "roots"))[0]!, "record.json"),
      "utf8",
    );
    expect(record).toContain(".claude/settings.json");
    // Adopted, so kanon takes them out when they leave kanon.yaml.
    writeHome("version: 1\n");
    await k("--agent", "claude", "apply", "--yes");
    expect(JSON.parse(read(".claude/settings.json"))).toEqual({ hooks: {} });
    expect(JSON.parse(read(".claude.json"))).toEqual({ mcpServers: {} });
  });
});

describe("backups and undo", () => {
  it("backs up content kanon did not write, marks it before writing, and undo brings it back", async () => {
    write(".codex/AGENTS.md", "my own codex notes\n");
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "shared\n" });
    const path = join(s.home, ".codex/AGENTS.md");
    expect((await k("--agent", "codex", "diff")).stdout).toContain(
      `${path} (codex): not written by kanon\n--- ${path}`,
    );
    expect((await k("--agent", "codex", "status")).stdout).toContain(
      `1 change(s), 1 conflict(s).\n  out of date, not written by kanon: ${path} (codex)\n`,
    );
    const prompt = await k("--agent", "codex", "apply");
    expect(prompt.stdout).toContain(
      `These files hold content kanon did not write or that changed since; apply saves a backup first:\n  ${path} (codex): not written by kanon\nApply these changes? [y/N] `,
    );
    const apply = await k("--agent", "codex", "apply", "--yes");
    const saved = /^Saved .*: backup in (.*)$/m.exec(apply.stdout)![1]!;
    expect(saved.startsWith(stateDir())).toBe(true);
    expect(readFileSync(saved, "utf8")).toBe("my own codex notes\n");
    expect(read(".codex/AGENTS.md")).toBe("shared\n");
    expect((await k("--agent", "codex", "undo", "-n")).stdout).toContain(`  restore ${path} (codex)\n`);
    expect(read(".codex/AGENTS.md")).toBe("shared\n");
    expect((await k("--agent", "codex", "undo", "--yes")).stdout).toContain("Undid 1 file change(s).\n");
    expect(read(".codex/AGENTS.md")).toBe("my own codex notes\n");
    expect((await k("undo", "--yes")).stdout).toBe("Nothing to undo.\n");
  });

  it("marks a hand edit, backs it up, and undo removes the files an apply created", async () => {
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "shared\n" });
    await k("--agent", "claude", "apply", "--yes");
    write(".claude/CLAUDE.md", "shared\nmy edit\n");
    const path = join(s.home, ".claude/CLAUDE.md");
    expect((await k("--agent", "claude", "diff")).stdout).toContain(
      `${path} (claude): changed since kanon last wrote it\n`,
    );
    expect((await k("--agent", "claude", "status")).stdout).toContain(`  hand-edited: ${path} (claude)\n`);
    expect(JSON.parse((await k("--agent", "claude", "diff", "--json")).stdout).files[0].replaces).toBe(
      "edited",
    );
    expect((await k("--agent", "claude", "apply", "--yes")).stdout).toMatch(
      new RegExp(`^Saved ${path} \\(claude\\): changed since kanon last wrote it: backup in `),
    );
    await k("--agent", "claude", "undo", "--yes");
    expect(read(".claude/CLAUDE.md")).toBe("shared\nmy edit\n");
    // The first apply wrote "shared": with the edit back, undoing it would lose the edit.
    expect((await k("--agent", "claude", "undo", "--yes")).status).toBe(1);
    write(".claude/CLAUDE.md", "shared\n");
    expect((await k("--agent", "claude", "undo", "--yes")).stdout).toContain(`  remove  ${path} (claude)\n`);
    expect(exists(".claude/CLAUDE.md")).toBe(false);
    expect(exists(".claude")).toBe(false);
  });

  it("refuses to undo when a file changed since the apply, naming it and writing nothing", async () => {
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "shared\n" });
    await k("apply", "--yes");
    write(".claude/CLAUDE.md", "changed again\n");
    const r = await k("undo", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^cannot undo the apply of .*: changed since then: .*\.claude\/CLAUDE\.md; nothing was restored \(it holds edits made after it: keep them and stop here, or run kanon undo --force to undo it anyway, saving what is there now first\)\n$/,
    );
    expect(exists(".codex/AGENTS.md")).toBe(true);
    expect(read(".claude/CLAUDE.md")).toBe("changed again\n");
  });

  it("asks before undoing", async () => {
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "shared\n" });
    await k("--agent", "codex", "apply", "--yes");
    const r = await s.run(["--home", s.kh, "undo"], { input: "n\n" });
    expect(r.stdout).toMatch(/Undo these changes\? \[y\/N\] Undo cancelled\.\n$/);
    expect(exists(".codex/AGENTS.md")).toBe(true);
  });
});

describe("the record", () => {
  it("lives in XDG_STATE_HOME, keyed by destination root, never in the project or the Kanon home", async () => {
    const project = join(s.work, "project");
    mkdirSync(project);
    const state = join(s.work, "state");
    writeHome(TWO_SERVERS);
    expect(
      (
        await s.run(["--home", s.kh, "--project", project, "apply", "--yes"], {
          env: { XDG_STATE_HOME: state },
        })
      ).status,
    ).toBe(0);
    expect(listFiles(project)).toEqual([".codex/config.toml", ".mcp.json", "opencode.json"]);
    expect(listFiles(s.kh)).toEqual(["kanon.yaml"]);
    expect(exists(".local")).toBe(false);
    const roots = readdirSync(join(state, "kanon/roots"));
    expect(roots).toHaveLength(1);
    expect(roots[0]).toMatch(/^project-[0-9a-f]{12}$/);
    const record = JSON.parse(readFileSync(join(state, "kanon/roots", roots[0]!, "record.json"), "utf8"));
    expect(record.version).toBe(1);
    expect(record.root).toBe(project);
    expect(Object.keys(record.entries).sort()).toEqual(
      [".codex/config.toml", ".mcp.json", "opencode.json"].map((f) => join(project, f)),
    );
  });

  it("is not rewritten by an apply that changes nothing (hook handlers of several events)", async () => {
    const example = join(s.work, "example");
    cpSync(join(ROOT, "examples/home"), example, { recursive: true });
    expect((await s.run(["--home", example, "apply", "--yes"])).status).toBe(0);
    const state = () =>
      Object.fromEntries(listFiles(stateDir()).map((f) => [f, readFileSync(join(stateDir(), f), "utf8")]));
    const before = state();
    expect((await s.run(["--home", example, "apply", "--yes"])).stdout).toBe("No changes.\n");
    expect(state()).toEqual(before);
  });

  it("reconciles the record from the history after an apply killed before it wrote the record", async () => {
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "a\n" });
    await k("--agent", "codex", "apply", "--yes");
    const record = join(stateDir(), "roots", readdirSync(join(stateDir(), "roots"))[0]!, "record.json");
    const before = readFileSync(record, "utf8");
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", {
      "a.md": "a\n",
      "skills/s/SKILL.md": "---\nname: s\n---\n",
    });
    await k("--agent", "codex", "apply", "--yes");
    writeFileSync(record, before); // as if killed after the renames, before the record
    rmSync(s.kh, { recursive: true });
    writeHome("version: 1\n");
    expect((await k("--agent", "codex", "apply", "--yes")).stdout).toBe("Applied 2 file change(s).\n");
    expect(listFiles(s.home).filter((f) => !f.startsWith(".local/"))).toEqual([]);
  });

  it("a failed apply leaves no history entry behind", async () => {
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "a\n" });
    write(".codex", "a file where a directory should be\n");
    expect((await k("--agent", "codex", "apply", "--yes")).status).toBe(1);
    expect((await k("--agent", "codex", "undo", "--yes")).stdout).toBe("Nothing to undo.\n");
  });

  it("warns about a corrupt record and behaves as on a new machine", async () => {
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "a\n" });
    await k("--agent", "codex", "apply", "--yes");
    const root = join(stateDir(), "roots", readdirSync(join(stateDir(), "roots"))[0]!);
    writeFileSync(join(root, "record.json"), "{not json");
    writeHome("version: 1\n");
    const r = await k("--agent", "codex", "diff");
    expect(r.stdout).toBe("No changes.\n");
    expect(r.stderr).toMatch(
      /^warning: the kanon record .*record\.json is unusable: not JSON .*; treating this machine as new\n$/,
    );
    expect((await k("--agent", "codex", "apply", "--yes")).status).toBe(0);
    expect(JSON.parse(readFileSync(join(root, "record.json"), "utf8")).version).toBe(1);
  });

  it("refuses a record from a newer kanon and never rewrites it", async () => {
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "a\n" });
    await k("--agent", "codex", "apply", "--yes");
    const root = join(stateDir(), "roots", readdirSync(join(stateDir(), "roots"))[0]!);
    const newer = JSON.stringify({ version: 2, root: s.home, files: {}, entries: {}, dirs: [] });
    writeFileSync(join(root, "record.json"), newer);
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "b\n" });
    const r = await k("--agent", "codex", "apply", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `${join(root, "record.json")} was written by a newer kanon (record format 2, this kanon reads 1); upgrade kanon — the record is left as it is\n`,
    );
    expect(readFileSync(join(root, "record.json"), "utf8")).toBe(newer);
    expect(read(".codex/AGENTS.md")).toBe("a\n");
  });

  it("an unwritable state directory is an error naming it, and no destination file is written", async () => {
    const state = join(s.work, "state");
    mkdirSync(state);
    chmodSync(state, 0o500);
    writeHome("version: 1\ninstructions:\n  files: [a.md]\n", { "a.md": "a\n" });
    const r = await s.run(["--home", s.kh, "apply", "--yes"], { env: { XDG_STATE_HOME: state } });
    chmodSync(state, 0o700);
    if (process.getuid?.() === 0) return; // root writes anywhere
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^cannot write the kanon state directory ${state}/kanon/roots/home-[0-9a-f]{12}: permission denied; nothing was written\\n$`,
      ),
    );
    expect(listFiles(s.home)).toEqual([]);
  });
});

describe("removal from Gemini CLI and Kimi Code files", () => {
  const BOTH = `version: 1
agents: [gemini, kimi]
mcp:
  servers:
    github:
      command: github-mcp
    tracker:
      command: tracker-mcp
hooks:
  - name: guard
    event: PreToolUse
    matcher: Bash
    command: /usr/local/bin/guard
`;
  it("takes kanon's servers, hook groups and [[hooks]] tables out, keeping the user's", async () => {
    writeHome(BOTH);
    write(
      ".gemini/settings.json",
      '{\n  "theme": "dark",\n  "hooks": {\n    "BeforeTool": [\n      { "hooks": [{ "type": "command", "command": "mine", "name": "mine" }] }\n    ]\n  }\n}\n',
    );
    write(".kimi-code/config.toml", "default_model = 'k2'\n\n[[hooks]]\nevent = 'Stop'\ncommand = 'mine'\n");
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(read(".gemini/settings.json")).toContain("kanon:guard");
    expect(read(".kimi-code/config.toml")).toContain("# kanon: guard");
    // One server and the hook leave kanon.yaml.
    writeHome(
      "version: 1\nagents: [gemini, kimi]\nmcp:\n  servers:\n    tracker:\n      command: tracker-mcp\n",
    );
    expect((await k("diff")).stdout).toContain("guard");
    expect((await k("apply", "--yes")).status).toBe(0);
    const gemini = read(".gemini/settings.json");
    expect(gemini).not.toContain("github");
    expect(gemini).not.toContain("kanon:guard");
    expect(gemini).toContain("tracker");
    expect(gemini).toContain('"theme": "dark"');
    expect(gemini).toContain('"name": "mine"');
    const kimi = read(".kimi-code/config.toml");
    // The blank line kanon put before its tables stays.
    expect(kimi.trimEnd()).toBe("default_model = 'k2'\n\n[[hooks]]\nevent = 'Stop'\ncommand = 'mine'");
    expect(read(".kimi-code/mcp.json")).not.toContain("github");
    expect(read(".kimi-code/mcp.json")).toContain("tracker");
    expect((await k("diff")).stdout).toBe("No changes.\n");
  });

  it("deletes the settings.json, config.toml and mcp.json kanon created once its last entry goes", async () => {
    writeHome(BOTH);
    expect((await k("apply", "--yes")).status).toBe(0);
    writeHome("version: 1\nagents: [gemini, kimi]\n");
    const diff = (await k("diff")).stdout;
    for (const [f, agent] of [
      [".gemini/settings.json", "gemini"],
      [".kimi-code/config.toml", "kimi"],
      [".kimi-code/mcp.json", "kimi"],
    ])
      expect(diff).toContain(`DELETE ${join(s.home, f!)} (${agent})`);
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(listFiles(join(s.home, ".gemini"))).toEqual([]);
    expect(listFiles(join(s.home, ".kimi-code"))).toEqual([]);
    expect((await k("diff")).stdout).toBe("No changes.\n");
  });
});
