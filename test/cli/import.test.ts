/**
 * `kanon import` against realistic machines in a temporary HOME: the reference's import tests
 * (§6 core/import_test) as CLI tests, the inverse-of-render promise on a machine kanon applied and
 * the user edited, --merge, and every warning and error a user can reach.
 */
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { cleanupTemp, createRepo, skillMd } from "../providers/helpers.js";
import { listFiles, ROOT, sandboxPerTest } from "../support/cli.js";
import { projectDirUnset } from "../support/manifests.js";

const s = sandboxPerTest();
const { k, writeFiles: machine } = s;
const warnings = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("warning: "));
const snapshot = (dir: string) =>
  Object.fromEntries(listFiles(dir).map((f) => [f, readFileSync(join(dir, f), "latin1")]));
/** A home applied to the sandbox's $HOME (or `project`): what kanon wrote, for import to read back. */
const applied = async (yaml: string, project?: string) => {
  const home = join(s.work, "h");
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "kanon.yaml"), yaml);
  const scope = project ? ["--project", project] : [];
  expect((await s.run(["--home", home, ...scope, "apply", "--yes"])).status).toBe(0);
};

describe("import on a machine kanon applied and the user edited", () => {
  beforeEach(async () => {
    const example = join(s.work, "example");
    cpSync(join(ROOT, "examples/home"), example, { recursive: true });
    expect((await s.run(["--home", example, "apply", "--yes"])).status).toBe(0);
    // The user's own settings in the files kanon shares with the agents.
    const add = (rel: string, edit: (t: string) => string) => s.write(rel, edit(s.read(rel)));
    add(
      ".codex/config.toml",
      (t) => `# my Codex settings\nmodel = "gpt-5" # pinned\n\n[profiles.fast]\nmodel = "mini"\n\n${t}`,
    );
    add(".claude.json", (t) =>
      t.replace("{", '{\n  "numStartups": 3,\n  "claudeCodeFirstTokenDate": "2026-01-01",'),
    );
    add(".claude/settings.json", (t) => t.replace("{", '{\n  "permissions": { "allow": ["Bash(ls:*)"] },'));
    add(".config/opencode/opencode.json", (t) => t.replace("{", '{\n  // my model\n  "model": "x/y",'));
  });

  it("--write, then diff says No changes. and apply changes no byte", async () => {
    const before = snapshot(s.home);
    const r = await k("import", "--write");
    expect(r.stderr).toBe(
      [
        'warning: skipped unsupported codex config field "model"',
        'warning: skipped unsupported codex profiles field "fast"',
        'warning: skipped unsupported claude json field "numStartups"',
        'warning: skipped unsupported claude json field "claudeCodeFirstTokenDate"',
        'warning: skipped unsupported claude settings field "permissions"',
        'warning: skipped unsupported opencode config field "model"',
        "",
      ].join("\n"),
    );
    expect(r.status).toBe(0);
    // A new home is offered the git set-up kanon init does (asked on a terminal; here, told how).
    expect(r.stdout).toBe(
      `Wrote imported config to ${join(s.kh, "kanon.yaml")}\n${s.kh} is not a git repository yet: kanon import --write --git makes it one as kanon init does, or run git init there and commit, to keep it for your other machines.\n`,
    );
    const yaml = s.readHome("kanon.yaml");
    expect(yaml).toContain(
      "  - name: guard-rm\n    event: PreToolUse\n    matcher: Bash\n    command: /usr/local/bin/guard\n    args: [--deny, rm -rf /]\n    timeout: 10\n",
    );
    expect(yaml).toContain(
      "  - name: printf\n    event: Notification\n    command: printf '\\a'\n    targets: [claude]\n",
    );
    expect((await k("diff")).stdout).toBe("No changes.\n");
    expect((await k("apply", "--yes")).status).toBe(0);
    // The import's own history entry (for kanon undo) is all that is new under $HOME.
    const after = snapshot(s.home);
    const history = Object.keys(after).filter((f) => /\/applies\/[^/]*-import\//.test(f));
    expect(history).toHaveLength(1);
    for (const f of history) delete after[f];
    expect(after).toEqual(before);
    expect(statSync(join(s.kh, "skills/review/SKILL.md")).isFile()).toBe(true);
  });

  it("project scope: --project reads the project's files; diff --project then says No changes.", async () => {
    const example = join(s.work, "example");
    const project = join(s.work, "project");
    expect((await s.run(["--home", example, "--project", project, "apply", "--yes"])).status).toBe(0);
    expect((await k("--project", project, "import", "--write")).status).toBe(0);
    expect(s.readHome("kanon.yaml")).toContain("  - name: guard-rm\n");
    expect((await k("--project", project, "diff")).stdout).toBe("No changes.\n");
  });

  it("the preview prints the would-be kanon.yaml and writes nothing", async () => {
    const r = await k("import");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^version: 1\ninstructions:\n {2}files:\n {4}- instructions\/imported.md\ncommands:\n {2}- name: explain\n {4}targets: \[claude, opencode\]\nmcp:\n/,
    );
    expect(r.stdout).toContain("metadata:\n  generated_by: kanon import\n");
    expect(existsSync(s.kh)).toBe(false);
    expect((await k("add")).stdout).toBe(r.stdout);
  });
});

describe("the reference's import behaviour", () => {
  it("keep policy: plaintext kept, each warning names its path; the result validates", async () => {
    machine({
      ".codex/config.toml":
        '[mcp_servers.github]\ncommand = "gh-mcp"\n[mcp_servers.github.env]\nTOKEN = "ghp_abc123"\n',
      ".claude/settings.json": JSON.stringify({ api_key: "Bearer xyz", claudeCodeFirstTokenDate: "2026" }),
    });
    const r = await k("import", "--write", "--secret-policy", "keep");
    expect(r.status).toBe(0);
    expect(warnings(r.stderr)).toEqual([
      "warning: kept possible plaintext secret at codex.config.mcp_servers.github.env.TOKEN because secret policy is keep",
      "warning: kept possible plaintext secret at claude.settings.api_key because secret policy is keep",
      'warning: skipped unsupported claude settings field "api_key"',
      'warning: skipped unsupported claude settings field "claudeCodeFirstTokenDate"',
    ]);
    expect(s.readHome("kanon.yaml")).toContain("TOKEN: ghp_abc123");
    expect((await k("validate")).stdout).toBe("kanon.yaml is valid.\n");
  });

  it("a Claude-only import of a server with an API_KEY env gives exactly one warning", async () => {
    machine({
      ".claude.json": JSON.stringify({ mcpServers: { x: { command: "x", env: { API_KEY: "plain" } } } }),
      ".codex/config.toml": 'approval_policy = "never"\n',
    });
    const r = await k("--agent", "claude", "import", "--secret-policy", "keep");
    expect(warnings(r.stderr)).toEqual([
      "warning: kept possible plaintext secret at claude.claude_json.mcpServers.x.env.API_KEY because secret policy is keep",
    ]);
  });

  it("policies: unsupported secret and instruction policies, hook names", async () => {
    expect(await k("import", "--secret-policy", "redact")).toMatchObject({
      status: 1,
      stderr: 'unsupported secret policy "redact"; use store, env, keep\n',
    });
    expect(await k("import", "--instruction-policy", "newest")).toMatchObject({
      status: 1,
      stderr: 'unsupported instruction policy "newest"\n',
    });
    expect((await k("import", "--hook-names", "short")).stderr).toBe(
      'unsupported hook names "short"; use command or go\n',
    );
  });

  it("--write refuses an existing kanon.yaml without --force and touches nothing", async () => {
    machine({ ".claude/CLAUDE.md": "Rules\n" });
    s.writeHome("version: 1\n");
    const r = await k("import", "--write");
    expect(r).toMatchObject({
      status: 1,
      stderr: `${join(s.kh, "kanon.yaml")} already exists; re-run import with --force to replace it\n`,
    });
    expect(listFiles(s.kh)).toEqual(["kanon.yaml"]);
    expect((await k("import", "--write", "--force")).status).toBe(0);
    expect(s.readHome("instructions/imported.md")).toBe("Rules\n");
    expect(s.readHome("kanon.yaml")).toContain("instructions/imported.md");
  });

  describe("instructions", () => {
    beforeEach(() =>
      machine({
        ".codex/AGENTS.md": "Codex rules\n",
        ".claude/CLAUDE.md": "Claude rules\n",
        ".config/opencode/AGENTS.md": "OpenCode rules\n",
      }),
    );
    it("differing files: auto fails naming every policy", async () => {
      expect(await k("import")).toMatchObject({
        status: 1,
        stderr:
          "agent instruction files differ; rerun with --instruction-policy codex, claude, opencode, merge, per-agent, or skip\n",
      });
    });
    it("merge joins every text; an agent policy picks its text; skip imports none", async () => {
      await k("import", "--write", "--instruction-policy", "merge");
      expect(s.readHome("instructions/imported.md")).toBe("Codex rules\n\nClaude rules\n\nOpenCode rules\n");
      expect((await k("import", "--write", "--force", "--instruction-policy", "opencode")).status).toBe(0);
      expect(s.readHome("instructions/imported.md")).toBe("OpenCode rules\n");
      expect((await k("import", "--instruction-policy", "skip")).stdout).not.toContain("instructions");
    });
    it("per-agent keeps each agent's text for that agent, and diff says No changes.", async () => {
      s.write(".config/opencode/AGENTS.md", "Codex rules\n");
      const r = await k("import", "--write", "--instruction-policy", "per-agent");
      expect(r.status).toBe(0);
      expect(s.readHome("kanon.yaml")).toContain(
        "instructions:\n  files:\n    - path: instructions/codex.md\n      targets: [codex, opencode]\n    - path: instructions/claude.md\n      targets: [claude]\n",
      );
      expect((await k("diff")).stdout).toBe("No changes.\n");
    });
    it("a policy naming an agent without a file", async () => {
      expect((await k("--agent", "codex", "import", "--instruction-policy", "claude")).stderr).toBe(
        'instruction policy "claude" selected but Claude Code CLAUDE.md was not found\n',
      );
    });
  });

  it("an identical skill in three roots is one skill for every agent; its files are copied with their modes", async () => {
    for (const root of [".agents/skills", ".claude/skills", ".config/opencode/skills"])
      machine({
        [`${root}/review/SKILL.md`]: "---\nname: review\n---\nReview.\n",
        [`${root}/review/run.sh`]: "#!/bin/sh\n",
      });
    for (const root of [".agents/skills", ".claude/skills", ".config/opencode/skills"])
      chmodSync(join(s.home, root, "review/run.sh"), 0o755);
    const r = await k("import", "--write");
    expect(r.stdout).toContain("Wrote");
    expect(s.readHome("kanon.yaml")).not.toContain("skills:");
    expect(listFiles(join(s.kh, "skills"))).toEqual(["review/SKILL.md", "review/run.sh"]);
    expect(statSync(join(s.kh, "skills/review/run.sh")).mode & 0o777).toBe(0o755);
    expect((await k("diff")).stdout).toBe("No changes.\n");
  });

  it("a skill that differs between agents keeps both, once each", async () => {
    machine({
      ".agents/skills/review/SKILL.md": "codex version\n",
      ".claude/skills/review/SKILL.md": "claude version\n",
      ".config/opencode/skills/review/SKILL.md": "claude version\n",
    });
    const r = await k("import");
    expect(r.stdout).toContain(
      "skills:\n  - name: review\n    targets: [codex]\n  - name: claude-review\n    targets: [claude, opencode]\n",
    );
    expect(warnings(r.stderr)).toEqual([
      `warning: skill "review" in ${join(s.home, ".claude/skills")} differs from one already imported; imported as "claude-review"`,
    ]);
  });

  it("Codex and Claude settings: one MCP server for both, hooks, unsupported fields warned", async () => {
    machine({
      ".codex/config.toml": [
        'approval_policy = "never"',
        'sandbox_mode = "workspace-write"',
        '[projects."/src"]',
        'trust_level = "trusted"',
        "[mcp_servers.github]",
        'command = "github-mcp"',
        'env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }',
        "",
      ].join("\n"),
      ".codex/hooks.json": JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: "Bash|Edit", hooks: [{ type: "command", command: "/bin/guard" }] }],
        },
      }),
      ".claude.json": JSON.stringify({
        autoUpdates: false,
        projects: {},
        mcpServers: {
          github: { type: "stdio", command: "github-mcp", env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" } },
        },
      }),
      ".claude/settings.json": JSON.stringify({
        theme: "dark",
        permissions: {},
        hooks: {
          PreToolUse: [{ matcher: "Bash|Edit", hooks: [{ type: "command", command: "/bin/guard" }] }],
          PostToolUse: [
            { matcher: "Write", hooks: [{ type: "command", command: "npx prettier --write", timeout: 30 }] },
          ],
        },
      }),
    });
    const r = await k("import");
    expect(r.stdout).toBe(
      [
        "version: 1",
        "mcp:",
        "  servers:",
        "    github:",
        "      command: github-mcp",
        "      env:",
        "        GITHUB_TOKEN: ${GITHUB_TOKEN}",
        "      targets: [codex, claude]",
        "hooks:",
        "  - name: guard",
        "    event: PreToolUse",
        "    matcher: Bash|Edit",
        "    command: /bin/guard",
        "    targets: [codex, claude]",
        "  - name: prettier",
        "    event: PostToolUse",
        "    matcher: Write",
        "    command: npx prettier --write",
        "    timeout: 30",
        "    targets: [claude]",
        "metadata:",
        "  generated_by: kanon import",
        "",
      ].join("\n"),
    );
    expect(warnings(r.stderr)).toEqual([
      'warning: skipped unsupported codex config field "approval_policy"',
      'warning: skipped unsupported codex config field "sandbox_mode"',
      'warning: skipped unsupported codex config field "projects"',
      'warning: skipped unsupported claude json field "autoUpdates"',
      'warning: skipped unsupported claude json field "projects"',
      'warning: skipped unsupported claude settings field "theme"',
      'warning: skipped unsupported claude settings field "permissions"',
      'warning: mcp server "github" for codex: env.GITHUB_TOKEN will be written as env_vars (Codex CLI does not expand ${GITHUB_TOKEN} in config.toml)',
    ]);
    expect((await k("import", "--hook-names", "go")).stdout).toContain("  - name: codex-PreToolUse-1\n");
  });

  it("OpenCode servers: command list, {env:}, milliseconds, bearer, env headers; enabled stays OpenCode's", async () => {
    machine({
      ".config/opencode/opencode.jsonc": `{
  // comments and trailing commas are fine
  "model": "anthropic/claude",
  "mcp": {
    "local": { "type": "local", "command": ["ctx", "--stdio"], "environment": { "TOKEN": "{env:CTX_TOKEN}" }, "timeout": 5500 },
    "remote": {
      "type": "remote",
      "url": "https://mcp.example.com",
      "headers": { "Authorization": "Bearer {env:MCP_TOKEN}", "X-Env": "{env:X_ENV}", "X-Public": "yes" },
      "enabled": false,
    },
  },
}`,
      ".codex/config.toml":
        '[mcp_servers.remote]\nurl = "https://mcp.example.com"\nbearer_token_env_var = "MCP_TOKEN"\n[mcp_servers.remote.env_http_headers]\nX-Env = "X_ENV"\n[mcp_servers.remote.http_headers]\nX-Public = "yes"\n',
    });
    const r = await k("import", "--write");
    expect(warnings(r.stderr)).toEqual([
      'warning: skipped unsupported opencode config field "model"',
      'warning: mcp server "local" for opencode: timeout will change to 6000',
    ]);
    expect(s.readHome("kanon.yaml")).toContain(
      [
        "      command: ctx",
        "      args: [--stdio]",
        "      env:",
        "        TOKEN: ${CTX_TOKEN}",
        "      startup_timeout_sec: 6",
        "      targets: [opencode]",
      ].join("\n"),
    );
    expect(s.readHome("kanon.yaml")).toContain(
      [
        "    remote:",
        "      url: https://mcp.example.com",
        "      headers:",
        "        X-Public: yes",
        "      env_headers:",
        "        X-Env: X_ENV",
        "      bearer_token_env_var: MCP_TOKEN",
        "      opencode_enabled: false",
        "      targets: [codex, opencode]",
        "    local:",
      ].join("\n"),
    );
    expect((await k("validate")).stdout).toBe("kanon.yaml is valid.\n");
    const render = (await k("render")).stdout;
    expect(render).toContain('"enabled": false');
    expect(render).toContain("[mcp_servers.remote]");
  });

  it("OpenCode alone reads Claude's CLAUDE.md and the shared .agents/skills", async () => {
    machine({ ".claude/CLAUDE.md": "Claude rules\n", ".agents/skills/review/SKILL.md": "r\n" });
    const r = await k("--agent", "opencode", "import", "--write");
    expect(r.status).toBe(0);
    expect(s.readHome("instructions/imported.md")).toBe("Claude rules\n");
    expect(s.readHome("kanon.yaml")).toContain(
      "instructions:\n  files:\n    - instructions/imported.md\nskills:\n  - name: review\n    targets: [opencode]\n",
    );
  });

  it("a Claude ${AUTHORIZATION} header becomes an env header and renders back the same", async () => {
    machine({
      ".claude.json": JSON.stringify({
        mcpServers: {
          api: { type: "http", url: "https://x", headers: { Authorization: "${AUTHORIZATION}" } },
        },
      }),
    });
    expect((await k("import", "--write")).status).toBe(0);
    expect(s.readHome("kanon.yaml")).toContain("      env_headers:\n        Authorization: AUTHORIZATION\n");
    expect((await k("--agent", "claude", "render")).stdout).toContain('"Authorization": "${AUTHORIZATION}"');
  });
});

describe("hooks through the manifests", () => {
  it("kanon's own OpenCode plugin comes back as the neutral hooks; other plugins are listed", async () => {
    await applied(
      "version: 1\nhooks:\n  - name: fmt\n    event: PostToolUse\n    matcher: Edit|Write\n    command: fmt\n    args: [-w]\n    timeout: 20\n    targets: [opencode]\n  - name: shells\n    event: PreToolUse\n    matcher: Bash\n    command: guard\n    targets: [opencode]\n",
    );
    machine({ ".config/opencode/plugins/mine.js": "export default {}\n" });
    const r = await k("import");
    expect(r.stdout).toContain(
      "hooks:\n  - name: fmt\n    event: PostToolUse\n    matcher: Edit|Write\n    command: fmt\n    args: [-w]\n    timeout: 20\n    targets: [opencode]\n  - name: shells\n    event: PreToolUse\n    matcher: Bash\n    command: guard\n    targets: [opencode]\n",
    );
    expect(warnings(r.stderr)).toEqual([
      `warning: kept your plugin ${join(s.home, ".config/opencode/plugins/mine.js")} where it is: OpenCode runs it, and kanon imports hooks only from the kanon-hooks.js it generates`,
    ]);
  });

  it("a hook with no neutral form is reported with agent, event and why, and left out", async () => {
    machine({
      ".codex/hooks.json": JSON.stringify({
        hooks: {
          Interrupt: [{ hooks: [{ type: "command", command: "a" }] }],
          PreToolUse: [{ matcher: "(?<=x)y", hooks: [{ type: "command", command: "b" }] }],
        },
      }),
    });
    const r = await k("--agent", "codex", "import");
    expect(warnings(r.stderr)).toEqual([
      'warning: left out codex hook "PreToolUse" (b): matcher "(?<=x)y" is not supported (it uses lookaround or backreferences, which Rust regex does not support)',
    ]);
    expect(r.stdout).toContain("  - name: a\n    event: Interrupt\n    command: a\n    targets: [codex]\n");
  });

  it("a hook that uses a variable its agent does not set is left out, saying why; Claude's own is kept", async () => {
    const command = '"$CLAUDE_PROJECT_DIR"/hooks/guard.sh';
    const hook = { hooks: { Stop: [{ hooks: [{ type: "command", command }] }] } };
    machine({ ".codex/hooks.json": JSON.stringify(hook), ".claude/settings.json": JSON.stringify(hook) });
    const r = await k("import");
    expect(warnings(r.stderr)).toEqual([
      `warning: left out codex hook "Stop" (${command}): variable $CLAUDE_PROJECT_DIR is not supported (${projectDirUnset("codex")})`,
    ]);
    expect(r.stdout).toContain(`    command: '${command}'\n    targets: [claude]\n`);
  });

  it("bad hook entries are warnings naming the event and the entry", async () => {
    machine({
      ".claude/settings.json": JSON.stringify({
        hooks: {
          Stop: "x",
          PreToolUse: [
            7,
            { hooks: "x" },
            {
              hooks: [
                1,
                { command: 5 },
                { type: "command", command: "s", statusMessage: 5 },
                { type: "command", command: "ok", url: "u" },
              ],
            },
          ],
        },
      }),
    });
    const r = await k("--agent", "claude", "import");
    expect(warnings(r.stderr)).toEqual([
      'warning: left claude hook event "Stop" raw because it is not a list',
      'warning: left claude hook event "PreToolUse" item raw because it is not an object',
      'warning: left claude hook event "PreToolUse" item raw because hooks is not a list',
      'warning: claude hook event "PreToolUse" has 4 handlers in one group; kanon writes each as its own group',
      'warning: left claude hook event "PreToolUse" handler raw because it is not an object',
      'warning: left claude hook event "PreToolUse" handler raw because command is not a string',
      'warning: left claude hook event "PreToolUse" handler raw because statusMessage is not a string',
      'warning: skipped unsupported claude hook "PreToolUse" field "url"',
    ]);
    expect(r.stdout).toContain("  - name: ok\n");
  });
});

describe("bad input", () => {
  it("an unparsable native file is a warning naming it, and import goes on", async () => {
    machine({
      ".codex/config.toml": "mcp_servers = [\n",
      ".claude.json": "{ not json",
      ".config/opencode/opencode.json": "[]",
      ".claude/CLAUDE.md": "Rules\n",
      ".claude.json.bak": "",
    });
    const r = await k("import");
    expect(r.status).toBe(0);
    const w = warnings(r.stderr);
    expect(w).toHaveLength(3);
    expect(w[0]).toMatch(new RegExp(`^warning: could not parse ${join(s.home, ".codex/config.toml")}: `));
    expect(w[1]).toMatch(new RegExp(`^warning: could not parse ${join(s.home, ".claude.json")}: `));
    expect(w[2]).toBe(
      `warning: could not parse ${join(s.home, ".config/opencode/opencode.json")}: top level is not an object`,
    );
    expect(r.stdout).toContain("instructions/imported.md");
  });

  it("non-object servers and servers without command or url are left out with a warning", async () => {
    machine({
      ".claude.json": JSON.stringify({ mcpServers: { a: 1, b: { env: {} }, c: { command: "c", extra: 1 } } }),
    });
    expect(warnings((await k("--agent", "claude", "import")).stderr)).toEqual([
      'warning: left MCP server "a" raw for claude because it is not an object',
      'warning: left MCP server "b" raw for claude because it has no command or url',
      'warning: skipped unsupported claude mcp server "c" field "extra"',
    ]);
  });

  it("symlinked skill folders, symlinks inside a skill and huge files skip the skill with a warning", async () => {
    const outside = join(s.work, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "SKILL.md"), "x\n");
    machine({
      ".claude/skills/ok/SKILL.md": "ok\n",
      ".claude/skills/linky/SKILL.md": "l\n",
      ".claude/skills/big/SKILL.md": "b\n",
    });
    symlinkSync(outside, join(s.home, ".claude/skills/linked"));
    symlinkSync(join(outside, "SKILL.md"), join(s.home, ".claude/skills/linky/ref.md"));
    writeFileSync(join(s.home, ".claude/skills/big/data.bin"), Buffer.alloc(10 * 1024 * 1024 + 1));
    const r = await k("--agent", "claude", "import", "--write");
    expect(warnings(r.stderr)).toEqual([
      `warning: skipped skill ${join(s.home, ".claude/skills/big")}: ${join(s.home, ".claude/skills/big/data.bin")} is larger than 10 MiB`,
      `warning: skipped skill ${join(s.home, ".claude/skills/linked")}: it is a symlink to a folder kanon does not manage; copy it into the Kanon home to import it`,
      `warning: skipped skill ${join(s.home, ".claude/skills/linky")}: ${join(s.home, ".claude/skills/linky/ref.md")} is a symlink`,
    ]);
    expect(listFiles(join(s.kh, "skills"))).toEqual(["ok/SKILL.md"]);
  });

  it("a failing import writes nothing to the Kanon home", async () => {
    machine({ ".codex/AGENTS.md": "a\n", ".claude/CLAUDE.md": "b\n" });
    expect((await k("import", "--write")).status).toBe(1);
    expect(existsSync(s.kh)).toBe(false);
  });
});

it("--merge needs an existing kanon.yaml", async () => {
  expect(await k("import", "--merge")).toMatchObject({
    status: 1,
    stderr: `${join(s.kh, "kanon.yaml")} does not exist; --merge adds to an existing home (use --write to create one)\n`,
  });
});

describe("import --merge", () => {
  const HOME_YAML = `# my Kanon home
version: 1

mcp:
  servers:
    # the one from work
    github:
      command: github-mcp   # pinned
      targets: [claude]

hooks:
- name: guard
  event: PreToolUse
  command: /bin/guard
`;
  beforeEach(() => {
    s.writeHome(HOME_YAML);
    machine({
      ".claude.json": JSON.stringify({
        mcpServers: { github: { command: "github-mcp", args: ["--new"] }, docs: { command: "docs" } },
      }),
      ".claude/settings.json": JSON.stringify({
        hooks: {
          PreToolUse: [{ hooks: [{ type: "command", command: "/bin/guard" }] }],
          Stop: [{ hooks: [{ type: "command", command: "notify" }] }],
        },
      }),
    });
  });

  // The yaml library keeps comments, key order, blank lines and the flush list style; only the
  // spaces before a trailing comment are normalised to one.
  it("previews: new entries added, differing ones shown as conflicts, comments and layout kept", async () => {
    const r = await k("--agent", "claude", "import", "--merge");
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      'conflict: mcp server "github" differs from kanon.yaml; kept kanon.yaml\'s (--force replaces it)\n  kanon.yaml: {"command":"github-mcp","targets":["claude"]}\n  imported:   {"command":"github-mcp","args":["--new"],"targets":["claude"]}\n',
    );
    expect(r.stdout).toBe(`# my Kanon home
version: 1

mcp:
  servers:
    # the one from work
    github:
      command: github-mcp # pinned
      targets: [claude]
    docs:
      command: docs
      targets: [claude]

hooks:
- name: guard
  event: PreToolUse
  command: /bin/guard
- name: notify
  event: Stop
  command: notify
  targets: [claude]
`);
    expect(s.readHome("kanon.yaml")).toBe(HOME_YAML);
  });

  it("--write writes it; --force replaces the differing entries", async () => {
    const r = await k("--agent", "claude", "import", "--merge", "--write");
    expect(r.stdout).toBe(
      `added mcp server "docs"\nadded hook "notify"\nMerged imported config into ${join(s.kh, "kanon.yaml")}\n`,
    );
    expect(s.readHome("kanon.yaml")).toContain("    docs:\n      command: docs\n");
    const f = await k("--agent", "claude", "import", "--merge", "--write", "--force");
    expect(f.stdout).toBe(
      `replaced mcp server "github"\nMerged imported config into ${join(s.kh, "kanon.yaml")}\n`,
    );
    expect(s.readHome("kanon.yaml")).toContain(
      "    github:\n      command: github-mcp\n      args: [--new]\n",
    );
    expect((await k("--agent", "claude", "import", "--merge", "--write")).stdout).toBe(
      "Nothing to import: the Kanon home already has everything found.\n",
    );
  });
});

describe("import --merge of skills", () => {
  it("skills: new ones added, the same files for more agents widen targets, different files conflict", async () => {
    s.writeHome("version: 1\nskills:\n  - name: review\n    targets: [codex]\n", {
      "skills/review/SKILL.md": "review\n",
      "skills/lint/SKILL.md": "lint, home version\n",
    });
    machine({
      ".claude/skills/review/SKILL.md": "review\n",
      ".claude/skills/lint/SKILL.md": "lint, this machine\n",
      ".claude/skills/commit/SKILL.md": "commit\n",
    });
    const r = await k("--agent", "claude", "import", "--merge", "--write");
    expect(r.stderr).toBe(
      `conflict: skill "lint" differs from skills/lint/ in the Kanon home; kept the home's (--force replaces it)\n`,
    );
    expect(r.stdout).toBe(
      `added skill entry "commit"\nset skill "review" targets to codex, claude\nMerged imported config into ${join(s.kh, "kanon.yaml")}\n`,
    );
    expect(s.readHome("kanon.yaml")).toBe(
      "version: 1\nskills:\n  - name: review\n    targets: [codex, claude]\n  - name: commit\n    targets: [claude]\n",
    );
    expect(s.readHome("skills/lint/SKILL.md")).toBe("lint, home version\n");
    expect(s.readHome("skills/commit/SKILL.md")).toBe("commit\n");
  });
});

describe("instruction files with targets", () => {
  it("render for their agents only; a plain path is every agent's; targets are validated", async () => {
    s.writeHome(
      "version: 1\ninstructions:\n  files:\n    - instructions/all.md\n    - path: instructions/claude.md\n      targets: [claude]\n",
      { "instructions/all.md": "All\n", "instructions/claude.md": "Claude only\n" },
    );
    const r = await k("render");
    expect(r.stdout).toContain(`==> [claude] ${join(s.home, ".claude/CLAUDE.md")}\nAll\n\nClaude only\n`);
    expect(r.stdout).toContain(`==> [codex] ${join(s.home, ".codex/AGENTS.md")}\nAll\n\n`);
    s.writeHome(
      "version: 1\ninstructions:\n  files:\n    - path: instructions/claude.md\n      targets: [vim]\n",
    );
    expect(await k("validate")).toMatchObject({
      status: 1,
      stderr: 'kanon.yaml:5:17: instruction "instructions/claude.md" has unsupported target "vim"\n',
    });
  });
});

describe("Gemini CLI and Kimi Code", () => {
  const HOOKS = `hooks:
  - name: guard
    event: PreToolUse
    matcher: Bash|Edit
    command: /usr/local/bin/guard
    args: [--deny, rm -rf /]
    timeout: 10
  - name: log
    event: PostToolUse
    matcher: mcp__x__y
    command: echo "$HOME" '$X' >> "\${LOG:-log}"
    targets: [gemini]
  - name: start
    event: SessionStart
    matcher: startup
    command: cat notes.md
    timeout: 5
`;

  it("Gemini and Kimi hooks and servers come back neutral; agents: lists them; diff says No changes.", async () => {
    await applied(
      `version: 1\nagents: [gemini, kimi]\nmcp:\n  servers:\n    remote:\n      url: https://mcp.example.com/mcp\n      env_headers:\n        X-Key: API_KEY\n      bearer_token_env_var: TOKEN\n      tool_timeout_sec: 30\n      enabled_tools: [search]\n    old:\n      type: sse\n      url: https://old.example.com/sse\n      startup_timeout_sec: 20\n      targets: [kimi]\n${HOOKS}`,
    );
    const r = await k("import", "--write");
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(s.readHome("kanon.yaml")).toBe(
      `version: 1
agents: [codex, claude, opencode, gemini, kimi]
mcp:
  servers:
    remote:
      url: https://mcp.example.com/mcp
      env_headers:
        X-Key: API_KEY
      bearer_token_env_var: TOKEN
      tool_timeout_sec: 30
      enabled_tools: [search]
      targets: [gemini]
    old:
      type: sse
      url: https://old.example.com/sse
      startup_timeout_sec: 20
      targets: [kimi]
hooks:
  - name: guard
    event: PreToolUse
    matcher: Bash|Edit
    command: /usr/local/bin/guard
    args: [--deny, rm -rf /]
    timeout: 10
    targets: [gemini, kimi]
  - name: start
    event: SessionStart
    matcher: startup
    command: cat notes.md
    timeout: 5
    targets: [gemini, kimi]
  - name: log
    event: PostToolUse
    matcher: mcp__x__y
    command: echo "$HOME" '$X' >> "\${LOG:-log}"
    targets: [gemini]
metadata:
  generated_by: kanon import
`,
    );
    expect((await k("diff")).stdout).toBe("No changes.\n");
    // One agent: the others keep rendering nothing of it.
    const gemini = await k("--agent", "gemini", "import");
    expect(gemini.stdout).toContain("agents: [codex, claude, opencode, gemini]\n");
    expect(gemini.stdout).not.toContain("old:");
  });

  it("project scope: Gemini's .gemini/settings.json hooks, Kimi's servers (Kimi has no project hooks)", async () => {
    const project = join(s.work, "project");
    await applied(
      `version: 1\nagents: [gemini, kimi]\nmcp:\n  servers:\n    docs:\n      command: docs-mcp\n${HOOKS.replace(/timeout: 10\n/, "timeout: 10\n    targets: [gemini]\n").replace(/timeout: 5\n/, "timeout: 5\n    targets: [gemini]\n")}`,
      project,
    );
    expect(await k("--project", project, "import", "--write")).toMatchObject({ status: 0, stderr: "" });
    const yaml = s.readHome("kanon.yaml");
    expect(yaml).toContain("    docs:\n      command: docs-mcp\n      targets: [gemini, kimi]\n");
    expect(yaml).toContain("  - name: guard\n");
    expect((await k("--project", project, "diff")).stdout).toBe("No changes.\n");
  });

  it("the user's own hooks stay where they are, each reported with its file; kanon's come back", async () => {
    await applied(`version: 1\nagents: [gemini, kimi]\n${HOOKS}`);
    const settings = join(s.home, ".gemini/settings.json");
    const doc = JSON.parse(readFileSync(settings, "utf8"));
    doc.hooks.BeforeTool.unshift({
      matcher: "write_file",
      hooks: [{ type: "command", name: "scan", command: "$GEMINI_PROJECT_DIR/scan.sh" }],
    });
    doc.hooks.AfterAgent = [{ hooks: [{ type: "command", command: "say done" }] }];
    writeFileSync(settings, JSON.stringify(doc, null, 2));
    const config = join(s.home, ".kimi-code/config.toml");
    writeFileSync(
      config,
      `default_model = "k2"\n[providers.m]\napi_key = "sk-live-1"\n\n[[hooks]]\nevent = "Stop"\ncommand = "say done"\n\n${readFileSync(config, "utf8")}`,
    );
    const r = await k("import");
    expect(warnings(r.stderr)).toEqual([
      `warning: left gemini hook "BeforeTool" ("$GEMINI_PROJECT_DIR/scan.sh") in ${settings} where it is: kanon did not write it (its name does not start with "kanon:") and would add a copy beside it`,
      `warning: left gemini hook "AfterAgent" ("say done") in ${settings} where it is: kanon did not write it (its name does not start with "kanon:") and would add a copy beside it`,
      'warning: skipped unsupported kimi config field "default_model"',
      'warning: skipped unsupported kimi config field "providers"',
      `warning: left kimi hook "Stop" ("say done") in ${config} where it is: kanon did not write it (its [[hooks]] header has no "# kanon:" comment) and would add a copy beside it`,
    ]);
    expect(r.stdout).toContain("  - name: guard\n    event: PreToolUse\n    matcher: Bash|Edit\n");
    expect(r.stdout).not.toContain("say done");
  });

  it("servers: fields kanon does not write and values it cannot read are warnings naming server and field", async () => {
    machine({
      ".gemini/settings.json": JSON.stringify({
        theme: "dark",
        mcpServers: {
          a: { command: "a", cwd: "./x", trust: true, timeout: 1500, type: "stdio" },
          b: { httpUrl: "https://b.example.com" },
          c: "x",
        },
      }),
      ".kimi-code/mcp.json": JSON.stringify({
        other: 1,
        mcpServers: { d: { command: "d", enabled: false, transport: 3, startupTimeoutMs: "5" } },
      }),
    });
    const r = await k("import");
    expect(warnings(r.stderr)).toEqual([
      'warning: skipped unsupported gemini settings field "theme"',
      'warning: skipped unsupported gemini mcp server "a" field "cwd"',
      'warning: skipped unsupported gemini mcp server "a" field "trust"',
      'warning: skipped unsupported gemini mcp server "a" field "timeout" because it is not a whole number of seconds in milliseconds',
      'warning: skipped unsupported gemini mcp server "a" field "type" because it is not "http" or "sse"',
      'warning: left MCP server "b" raw for gemini because it has no command or url',
      'warning: left MCP server "c" raw for gemini because it is not an object',
      'warning: skipped unsupported kimi mcp field "other"',
      'warning: skipped unsupported kimi mcp server "d" field "enabled"',
      'warning: skipped unsupported kimi mcp server "d" field "transport" because it is not "stdio", "http" or "sse"',
      'warning: skipped unsupported kimi mcp server "d" field "startupTimeoutMs" because it is not a whole number of seconds in milliseconds',
    ]);
    expect(r.stdout).toContain(
      "    a:\n      command: a\n      targets: [gemini]\n    d:\n      command: d\n      targets: [kimi]\n",
    );
  });

  it("files that do not parse are one warning each, and import goes on", async () => {
    machine({
      ".gemini/settings.json": "{ not json",
      ".kimi-code/config.toml": "[[hooks]\n",
      ".kimi-code/AGENTS.md": "Kimi rules\n",
    });
    const r = await k("import");
    expect(r.status).toBe(0);
    expect(warnings(r.stderr).map((w) => w.replace(/(json|toml): .*$/, "$1"))).toEqual([
      `warning: could not parse ${join(s.home, ".gemini/settings.json")}`,
      `warning: could not parse ${join(s.home, ".kimi-code/config.toml")}`,
    ]);
    expect(r.stderr).toContain(
      `could not parse ${join(s.home, ".kimi-code/config.toml")}: Unterminated table-key at 2:1\n`,
    );
    expect(r.stdout).toContain(
      "agents: [codex, claude, opencode, kimi]\ninstructions:\n  files:\n    - path: instructions/imported.md\n      targets: [kimi]\n",
    );
  });

  it("instructions: GEMINI.md and Kimi's AGENTS.md; an agent policy and per-agent name them", async () => {
    machine({
      ".gemini/GEMINI.md": "Gemini rules\n",
      ".kimi-code/AGENTS.md": "Kimi rules\n",
      ".claude/CLAUDE.md": "Claude rules\n",
    });
    expect((await k("import")).stderr).toBe(
      "agent instruction files differ; rerun with --instruction-policy codex, claude, opencode, gemini, kimi, merge, per-agent, or skip\n",
    );
    const picked = await k("import", "--instruction-policy", "gemini", "--write");
    expect(picked.status).toBe(0);
    expect(s.readHome("instructions/imported.md")).toBe("Gemini rules\n");
    const per = (await k("import", "--instruction-policy", "per-agent")).stdout;
    expect(per).toContain(
      "    - path: instructions/claude.md\n      targets: [claude]\n    - path: instructions/gemini.md\n      targets: [gemini]\n    - path: instructions/kimi.md\n      targets: [kimi]\n",
    );
  });

  it("a machine with nothing for Gemini or Kimi gets no agents: list", async () => {
    machine({ ".gemini/settings.json": JSON.stringify({ security: { auth: { selectedType: "x" } } }) });
    const r = await k("import");
    expect(r.stdout).toBe("version: 1\nmetadata:\n  generated_by: kanon import\n");
    expect(warnings(r.stderr)).toEqual(['warning: skipped unsupported gemini settings field "security"']);
  });

  it("--merge adds the agents found to the home's agents: list", async () => {
    s.writeHome("# mine\nversion: 1\n\nmcp:\n  servers:\n    a:\n      command: a\n");
    machine({ ".gemini/settings.json": JSON.stringify({ mcpServers: { g: { command: "g" } } }) });
    const r = await k("import", "--merge", "--write");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      `added gemini to agents (entries without targets render for it too)\nadded mcp server "g"\nMerged imported config into ${join(s.kh, "kanon.yaml")}\n`,
    );
    expect(s.readHome("kanon.yaml")).toBe(
      "# mine\nversion: 1\nagents: [codex, claude, opencode, gemini]\n\nmcp:\n  servers:\n    a:\n      command: a\n    g:\n      command: g\n      targets: [gemini]\n",
    );
  });
});

describe("git skill providers", () => {
  afterAll(() => cleanupTemp());

  it("skills exactly as the home's pinned provider renders them come back as its entry, not as copies", async () => {
    const repo = createRepo(
      { "review/SKILL.md": skillMd("review"), "lint/SKILL.md": skillMd("lint"), "lint/run.sh": "lint\n" },
      { name: "team-skills" },
    );
    s.writeHome(
      `version: 1\nagents: [claude, opencode, gemini]\nskills:\n  - git:\n      url: ${repo.url}\n      ref: main\n`,
    );
    expect((await k("lock")).status).toBe(0);
    expect((await k("apply", "--yes")).status).toBe(0);
    // Gemini's copy of one child was edited: for Gemini the provider is no longer what is on disk.
    s.write(".gemini/skills/team-skills-lint/run.sh", "lint --fix\n");
    machine({ ".claude/skills/mine/SKILL.md": skillMd("mine") });

    const r = await k("import", "--write", "--force");
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(s.readHome("kanon.yaml")).toBe(
      `version: 1
agents: [codex, claude, opencode, gemini]
skills:
  - name: mine
    targets: [claude]
  - name: team-skills-lint
    targets: [gemini]
  - name: team-skills-review
    targets: [gemini]
  - git:
      url: ${repo.url}
      ref: main
    targets: [claude, opencode]
metadata:
  generated_by: kanon import
`,
    );
    expect(listFiles(join(s.kh, "skills"))).toEqual([
      "mine/SKILL.md",
      "team-skills-lint/SKILL.md",
      "team-skills-lint/run.sh",
      "team-skills-review/SKILL.md",
    ]);
    expect((await k("diff")).stdout).toBe("No changes.\n");
  });

  it("--merge widens a provider's targets to the agents that have its skills as kanon renders them", async () => {
    const repo = createRepo({ "review/SKILL.md": skillMd("review") }, { name: "team" });
    const HOME = `# team skills\nversion: 1\nskills:\n  - git:\n      url: ${repo.url}\n      ref: main\n    targets: [claude] # for now\n`;
    s.writeHome(HOME);
    expect((await k("lock")).status).toBe(0);
    // Another home put the same provider on this machine for OpenCode too.
    await applied(
      `version: 1\nskills:\n  - git:\n      url: ${repo.url}\n      ref: main\n    targets: [claude, opencode]\n`,
    );
    expect(s.exists(".config/opencode/skills/team-review/SKILL.md")).toBe(true);

    const r = await k("import", "--merge", "--write");
    expect(r).toMatchObject({
      status: 0,
      stderr: "",
      stdout: `set skill provider "team" targets to claude, opencode\nMerged imported config into ${join(s.kh, "kanon.yaml")}\n`,
    });
    expect(s.readHome("kanon.yaml")).toBe(HOME.replace("[claude]", "[claude, opencode]"));
    // The provider's skills are not copied into the home as local skills.
    expect(listFiles(join(s.kh, "skills"))).toEqual([]);
    expect((await k("diff")).stdout).toBe("No changes.\n");
    expect((await k("import", "--merge", "--write")).stdout).toBe(
      "Nothing to import: the Kanon home already has everything found.\n",
    );

    // Every agent of the home has them: the entry needs no targets.
    await applied(`version: 1\nskills:\n  - git:\n      url: ${repo.url}\n      ref: main\n`);
    expect((await k("import", "--merge")).stdout).toBe(
      HOME.replace(" # for now\n", "\n").replace("    targets: [claude]\n", ""),
    );
    expect((await k("import", "--merge", "--write")).stdout).toBe(
      `skill provider "team" now renders for every agent\nMerged imported config into ${join(s.kh, "kanon.yaml")}\n`,
    );
  });

  it("without a home to read them from, they are local skills", async () => {
    const repo = createRepo({ "review/SKILL.md": skillMd("review") }, { name: "team" });
    await applied(
      `version: 1\nskills:\n  - git:\n      url: ${repo.url}\n      ref: main\n    targets: [claude]\n`,
    );
    expect((await k("import")).stdout).toBe(
      "version: 1\nskills:\n  - name: team:review\n    targets: [claude]\nmetadata:\n  generated_by: kanon import\n",
    );
  });

  it("a provider that does not load is a warning, and its skills are local skills", async () => {
    const url = `file://${join(s.work, "missing.git")}`;
    s.writeHome(`version: 1\nskills:\n  - git:\n      url: ${url}\n      ref: main\n`);
    machine({ ".claude/skills/x/SKILL.md": skillMd("x") });
    const r = await k("import");
    expect(r.status).toBe(0);
    expect(warnings(r.stderr)).toEqual([
      expect.stringMatching(
        /^warning: could not load the Kanon home's git skill providers \(.+\); their skills are imported as local skills$/,
      ),
    ]);
    expect(r.stdout).toContain("  - name: x\n    targets: [claude]\n");
  });
});
