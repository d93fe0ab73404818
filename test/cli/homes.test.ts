/**
 * Agent homes that move: CODEX_HOME, CLAUDE_CONFIG_DIR, XDG_CONFIG_HOME (OpenCode), GEMINI_CLI_HOME
 * and KIMI_CODE_HOME, through kanon's command line: apply, diff, undo, import and status find the files
 * where the agent reads them, and nothing lands in the default place.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codexHookTrust } from "../../src/agents/codex/trust.js";
import { listFiles, sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();

const HOME_YAML = `version: 1
agents: [codex, claude, opencode, gemini, kimi]
instructions:
  files: [instructions/shared.md]
mcp:
  servers:
    docs:
      command: docs-mcp
      args: [--stdio]
hooks:
  - name: guard
    event: PreToolUse
    matcher: Bash
    command: /usr/local/bin/guard
`;

function writeHome(yaml = HOME_YAML): void {
  s.writeHome(yaml, {
    "instructions/shared.md": "# Shared\n",
    "skills/review/SKILL.md": "---\nname: review\ndescription: Review code\n---\nReview.\n",
  });
}

/** Each agent's variable, where it points in the test, and the files kanon renders there. */
const AGENT_HOMES = [
  {
    agent: "codex",
    variable: "CODEX_HOME",
    dir: "codex-home",
    files: ["AGENTS.md", "config.toml", "hooks.json"],
    // ~/.agents/skills is not Codex's home: it stays.
    stays: [".agents/skills/review/SKILL.md"],
    defaultDir: ".codex",
  },
  {
    agent: "claude",
    variable: "CLAUDE_CONFIG_DIR",
    dir: "claude-config",
    files: [".claude.json", "CLAUDE.md", "settings.json", "skills/review/SKILL.md"],
    stays: [],
    defaultDir: ".claude",
  },
  {
    agent: "opencode",
    variable: "XDG_CONFIG_HOME",
    dir: "xdg",
    files: [
      "opencode/AGENTS.md",
      "opencode/opencode.json",
      "opencode/plugins/kanon-hooks.js",
      "opencode/skills/review/SKILL.md",
    ],
    stays: [],
    defaultDir: ".config",
  },
  {
    agent: "gemini",
    variable: "GEMINI_CLI_HOME",
    dir: "gemini-home",
    files: [".gemini/GEMINI.md", ".gemini/settings.json", ".gemini/skills/review/SKILL.md"],
    stays: [],
    defaultDir: ".gemini",
  },
  {
    agent: "kimi",
    variable: "KIMI_CODE_HOME",
    dir: "kimi-home",
    files: ["AGENTS.md", "config.toml", "mcp.json", "skills/review/SKILL.md"],
    stays: [],
    defaultDir: ".kimi-code",
  },
] as const;

describe.each(AGENT_HOMES)("$variable", ({ agent, variable, dir, files, stays, defaultDir }) => {
  const moved = () => join(s.work, dir);
  const k = (env: Record<string, string>, ...args: string[]) =>
    s.run(["--home", s.kh, "--agent", agent, ...args], { env });

  it(`applies ${agent}'s files under it, nothing under ~/${defaultDir}; diff is then clean; undo removes them`, async () => {
    writeHome();
    const env = { [variable]: moved() };
    const applied = await k(env, "apply", "--yes");
    expect(applied).toMatchObject({ status: 0, stderr: "" });
    expect(listFiles(moved())).toEqual(files);
    expect(s.exists(defaultDir)).toBe(false);
    for (const rel of stays) expect(s.exists(rel), rel).toBe(true);
    // Claude's global config moves with CLAUDE_CONFIG_DIR; ~/.claude.json is not written.
    expect(s.exists(".claude.json")).toBe(false);
    expect(await k(env, "diff")).toMatchObject({ status: 0, stdout: "No changes.\n" });
    expect((await k(env, "undo", "--yes")).status).toBe(0);
    expect(listFiles(moved())).toEqual([]);
  });

  it("takes an empty value as unset", async () => {
    writeHome();
    expect(await k({ [variable]: "" }, "apply", "--yes")).toMatchObject({
      status: 0,
      // Kimi Code itself reads config.toml and mcp.json from its working directory then.
      stderr:
        agent === "kimi"
          ? "warning: KIMI_CODE_HOME is set but empty: kanon takes it as unset, while Kimi Code reads config.toml and mcp.json from the directory it runs in\n"
          : "",
    });
    expect(s.exists(defaultDir)).toBe(true);
  });
});

describe("a moved home in the ownership record", () => {
  it("moves kanon's files back when the variable is unset, and keeps the user's own file there", async () => {
    writeHome();
    const codexHome = join(s.work, "codex-home");
    const k = (env: Record<string, string>, ...args: string[]) =>
      s.run(["--home", s.kh, "--agent", "codex", ...args], { env });
    expect((await k({ CODEX_HOME: codexHome }, "apply", "--yes")).status).toBe(0);
    writeFileSync(join(codexHome, "notes.md"), "mine\n");
    const diff = (await k({}, "diff")).stdout;
    expect(diff).toContain(`DELETE ${join(codexHome, "AGENTS.md")} (codex)`);
    expect(diff).toContain(`+++ ${join(s.home, ".codex/AGENTS.md")}`);
    expect((await k({}, "apply", "--yes")).status).toBe(0);
    expect(listFiles(codexHome)).toEqual(["notes.md"]);
    expect(listFiles(join(s.home, ".codex"))).toEqual(["AGENTS.md", "config.toml", "hooks.json"]);
  });
});

describe("a relative value", () => {
  it("is taken from the current directory, with a warning", async () => {
    writeHome();
    const r = await s.run(["--home", s.kh, "--agent", "kimi", "apply", "--yes"], {
      env: { KIMI_CODE_HOME: "rel/kimi" },
    });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      `warning: KIMI_CODE_HOME is a relative path (rel/kimi): kanon uses ${join(s.work, "rel/kimi")}, while Kimi Code resolves it from the directory it runs in\n`,
    );
    expect(existsSync(join(s.work, "rel/kimi/AGENTS.md"))).toBe(true);
  });
});

describe("import from a moved home", () => {
  it("reads each agent's files where its variable puts them", async () => {
    const env = {
      CODEX_HOME: join(s.work, "codex-home"),
      CLAUDE_CONFIG_DIR: join(s.work, "claude-config"),
      KIMI_CODE_HOME: join(s.work, "kimi-home"),
      GEMINI_CLI_HOME: join(s.work, "gemini-home"),
      XDG_CONFIG_HOME: join(s.work, "xdg"),
    };
    const put = (path: string, content: string) => {
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, content);
    };
    put(join(env.CODEX_HOME, "config.toml"), '[mcp_servers.codex-srv]\ncommand = "codex-mcp"\n');
    put(
      join(env.CLAUDE_CONFIG_DIR, ".claude.json"),
      '{"mcpServers":{"claude-srv":{"command":"claude-mcp"}}}\n',
    );
    put(join(env.CLAUDE_CONFIG_DIR, "CLAUDE.md"), "# Moved rules\n");
    put(join(env.KIMI_CODE_HOME, "mcp.json"), '{"mcpServers":{"kimi-srv":{"command":"kimi-mcp"}}}\n');
    put(
      join(env.GEMINI_CLI_HOME, ".gemini/settings.json"),
      '{"mcpServers":{"gemini-srv":{"command":"gemini-mcp"}}}\n',
    );
    put(
      join(env.XDG_CONFIG_HOME, "opencode/opencode.json"),
      '{"mcp":{"opencode-srv":{"type":"local","command":["opencode-mcp"]}}}\n',
    );
    // The defaults hold other servers, which import must not read.
    s.write(".codex/config.toml", '[mcp_servers.stale]\ncommand = "stale"\n');
    s.write(".claude.json", '{"mcpServers":{"stale-claude":{"command":"stale"}}}\n');
    s.write(".gemini/settings.json", '{"mcpServers":{"stale-gemini":{"command":"stale"}}}\n');
    s.write(".config/opencode/opencode.json", '{"mcp":{"stale-oc":{"type":"local","command":["stale"]}}}\n');
    const r = await s.run(["--home", s.kh, "import"], { env });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("codex-srv:");
    expect(r.stdout).toContain("claude-srv:");
    expect(r.stdout).toContain("kimi-srv:");
    expect(r.stdout).toContain("gemini-srv:");
    expect(r.stdout).toContain("opencode-srv:");
    expect(r.stdout).not.toContain("stale");
    const written = await s.run(["--home", s.kh, "import", "--write"], { env });
    expect(written.status).toBe(0);
    expect(readFileSync(join(s.kh, "instructions/imported.md"), "utf8")).toBe("# Moved rules\n");
  });
});

describe("status reads the agents' own state from the moved home", () => {
  const HOOK =
    "version: 1\nhooks:\n  - name: guard\n    event: PreToolUse\n    matcher: Bash\n    command: /bin/guard\n";

  it("Codex hook reviews from $CODEX_HOME/config.toml", async () => {
    s.writeHome(HOOK);
    const codexHome = join(s.work, "codex-home");
    const env = { CODEX_HOME: codexHome };
    const k = (...args: string[]) => s.run(["--home", s.kh, "--agent", "codex", ...args], { env });
    expect((await k("apply", "--yes")).status).toBe(0);
    expect((await k("status")).stdout).toContain("guard (PreToolUse): new: not reviewed yet");
    const hooksPath = join(codexHome, "hooks.json");
    const entry = codexHookTrust({ hooks: readFileSync(hooksPath, "utf8"), hooksPath }).entries[0]!;
    const trust = `[hooks.state."${entry.id}"]\ntrusted_hash = "${entry.hash}"\n`;
    // The same review in ~/.codex is not the one Codex reads.
    s.write(".codex/config.toml", trust);
    expect((await k("status")).stdout).toContain("will skip");
    writeFileSync(join(codexHome, "config.toml"), trust);
    expect((await k("status")).stdout).not.toContain("will skip");
  });

  it("Codex hook reviews keyed by CODEX_HOME's real path, as Codex keys them", async () => {
    s.writeHome(HOOK);
    const real = join(s.work, "codex-real");
    mkdirSync(real);
    symlinkSync(real, join(s.work, "codex-link"));
    const env = { CODEX_HOME: join(s.work, "codex-link") };
    const k = (...args: string[]) => s.run(["--home", s.kh, "--agent", "codex", ...args], { env });
    expect((await k("apply", "--yes")).status).toBe(0);
    const hooksPath = join(real, "hooks.json");
    const entry = codexHookTrust({ hooks: readFileSync(hooksPath, "utf8"), hooksPath }).entries[0]!;
    writeFileSync(join(real, "config.toml"), `[hooks.state."${entry.id}"]\ntrusted_hash = "${entry.hash}"\n`);
    expect((await k("status")).stdout).not.toContain("will skip");
  });

  it("Gemini folder trust from $GEMINI_CLI_HOME/.gemini", async () => {
    s.writeHome(HOOK);
    const geminiHome = join(s.work, "gemini-home");
    const project = join(s.work, "p");
    mkdirSync(project);
    const k = (...args: string[]) =>
      s.run(["--home", s.kh, "--agent", "gemini", "--project", project, ...args], {
        env: { GEMINI_CLI_HOME: geminiHome },
      });
    expect((await k("apply", "--yes")).status).toBe(0);
    // Project files never move.
    expect(existsSync(join(project, ".gemini/settings.json"))).toBe(true);
    expect((await k("status")).stdout).toContain("folder not trusted yet");
    const rules = JSON.stringify({ [project]: "TRUST_FOLDER" });
    s.write(".gemini/trustedFolders.json", rules);
    expect((await k("status")).stdout).toContain("folder not trusted yet");
    mkdirSync(join(geminiHome, ".gemini"), { recursive: true });
    writeFileSync(join(geminiHome, ".gemini/trustedFolders.json"), rules);
    expect((await k("status")).stdout).not.toContain("will skip");
  });
});
