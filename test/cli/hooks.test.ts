/**
 * The hook capability manifest through the CLI: the seed's reproduction config and the maintainer's
 * five untargeted hooks give exactly the results of the proposal's acceptance criteria.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codexHookTrust } from "../../src/agents/codex/trust.js";
import { pluginGoldenForm } from "../agents/opencode/helpers.js";
import { sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest((s) => mkdirSync(s.kh));
const { k, writeHome: home } = s;
const json = (rel: string) => JSON.parse(readFileSync(join(s.home, rel), "utf8"));

const REPRODUCTION = `version: 1
hooks:
  - name: notification-1
    event: Notification
    type: command
    command: bash -c 'tmux set-window-option window-status-style "bg=yellow"'
  - name: guard-bash
    event: PreToolUse
    matcher: Bash
    type: command
    command: /usr/local/bin/guard
    args: ["--deny", "rm -rf"]
  - name: opencode-only
    event: Stop
    targets: [opencode]
    type: command
    command: notify-send done
`;

describe("the seed's reproduction config", () => {
  it("warns once per omitted hook and agent from validate, render, diff and apply", async () => {
    home(REPRODUCTION);
    const expected =
      'warning: hook "notification-1" is not rendered for codex: event "Notification" is not supported\n' +
      'warning: hook "notification-1" is not rendered for opencode: event "Notification" is not supported\n';
    for (const cmd of [["validate"], ["render"], ["diff"], ["apply", "--yes"]]) {
      const r = await k(...cmd);
      expect(r.status, cmd.join(" ")).toBe(0);
      expect(r.stderr, cmd.join(" ")).toBe(expected);
    }
    expect((await k("--agent", "claude", "render")).stderr).toBe("");
  });

  it("leaves Notification out of Codex, keeps it for Claude, and quotes args into one command line", async () => {
    home(REPRODUCTION);
    expect((await k("apply", "--yes")).status).toBe(0);
    const codex = json(".codex/hooks.json");
    expect(Object.keys(codex)).toEqual(["hooks"]);
    expect(Object.keys(codex.hooks)).toEqual(["PreToolUse"]);
    expect(codex.hooks.PreToolUse[0]).toEqual({
      hooks: [{ command: "'/usr/local/bin/guard' '--deny' 'rm -rf'", type: "command" }],
      matcher: "Bash",
    });
    const claude = json(".claude/settings.json");
    expect(Object.keys(claude.hooks).sort()).toEqual(["Notification", "PreToolUse"]);
    expect(claude.hooks.PreToolUse[0].hooks[0]).toEqual({
      args: ["--deny", "rm -rf"],
      command: "/usr/local/bin/guard",
      type: "command",
    });
  });

  it("renders the hook explicitly targeted at OpenCode into the plugin, in user and project scope", async () => {
    home(REPRODUCTION);
    await k("apply", "--yes");
    const plugin = readFileSync(join(s.home, ".config/opencode/plugins/kanon-hooks.js"), "utf8");
    expect(plugin).toContain('"name":"opencode-only","event":"Stop"');
    expect(plugin).toContain('"name":"guard-bash","event":"PreToolUse"');
    expect(plugin).not.toContain("notification-1");
    // The bundle carries plugin-runtime.js as text byte for byte (pluginGoldenForm throws otherwise).
    expect(pluginGoldenForm(plugin)).toContain("// kanon:hooks-begin");
    const project = join(s.work, "project");
    expect((await k("--project", project, "apply", "--yes")).status).toBe(0);
    expect(existsSync(join(project, ".opencode/plugins/kanon-hooks.js"))).toBe(true);
  });

  it("writes no OpenCode plugin when no hook targets OpenCode", async () => {
    home("version: 1\nhooks:\n  - name: s\n    event: Stop\n    command: x\n    targets: [claude, codex]\n");
    expect((await k("render")).stdout).not.toContain("kanon-hooks.js");
  });

  it("never writes a type Codex cannot run, and fails explicit targets naming the capability", async () => {
    home(
      "version: 1\nhooks:\n  - name: audit\n    event: PostToolUse\n    type: http\n    url: https://audit.example/\n",
    );
    const implicit = await k("render");
    expect(implicit.stderr).toContain(
      'warning: hook "audit" is not rendered for codex: type "http" is not supported',
    );
    expect(implicit.stdout).not.toContain(".codex/hooks.json");
    home(
      "version: 1\nhooks:\n  - name: audit\n    event: PostToolUse\n    type: http\n    url: https://audit.example/\n    targets: [codex]\n",
    );
    expect(await k("render")).toMatchObject({
      status: 1,
      stderr: 'kanon.yaml:3:5: hook "audit" targets codex but type "http" is not supported for codex\n',
    });
    home(
      "version: 1\nhooks:\n  - name: guard\n    event: Notification\n    command: x\n    targets: [opencode]\n",
    );
    for (const cmd of ["validate", "render", "diff", "apply"]) {
      expect(await k(cmd, ...(cmd === "apply" ? ["--yes"] : []))).toMatchObject({
        status: 1,
        stderr:
          'kanon.yaml:3:5: hook "guard" targets opencode but event "Notification" is not supported for opencode\n',
      });
    }
    expect(existsSync(join(s.home, ".claude"))).toBe(false);
  });
});

describe("the maintainer's five untargeted hooks", () => {
  const FIVE = ["Stop", "Notification", "PreToolUse", "SessionEnd", "UserPromptSubmit"]
    .map((e, i) => `  - name: tmux-${i}\n    event: ${e}\n    command: tmux set -g status-right ${e}\n`)
    .join("");

  it("render for every agent that supports them, with one warning per omission", async () => {
    home(`version: 1\nhooks:\n${FIVE}`);
    const r = await k("apply", "--yes");
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      'warning: hook "tmux-1" is not rendered for codex: event "Notification" is not supported',
      'warning: hook "tmux-1" is not rendered for opencode: event "Notification" is not supported',
      'warning: hook "tmux-3" is not rendered for opencode: event "SessionEnd" is not supported',
    ]);
    expect(Object.keys(json(".claude/settings.json").hooks).sort()).toEqual([
      "Notification",
      "PreToolUse",
      "SessionEnd",
      "Stop",
      "UserPromptSubmit",
    ]);
    expect(Object.keys(json(".codex/hooks.json").hooks).sort()).toEqual([
      "PreToolUse",
      "SessionEnd",
      "Stop",
      "UserPromptSubmit",
    ]);
    const plugin = readFileSync(join(s.home, ".config/opencode/plugins/kanon-hooks.js"), "utf8");
    for (const [i, rendered] of [
      [0, true],
      [1, false],
      [2, true],
      [3, false],
      [4, true],
    ] as const) {
      expect(plugin.includes(`"name":"tmux-${i}"`), `tmux-${i}`).toBe(rendered);
    }
  });

  it("are reported by kanon hooks, with --json and --strict", async () => {
    home(`version: 1\nhooks:\n${FIVE}`);
    const table = await k("hooks");
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/^tmux-1 +Notification +codex +left out +native +not delivered +no$/m);
    expect(table.stdout).toMatch(/^tmux-1 +Notification +claude +as written +native +not delivered +no$/m);
    expect(table.stdout).toContain('tmux-1 → codex: left out: event "Notification" is not supported');
    expect(table.stdout).toContain(
      "tmux-0 → codex: gated: Codex runs a new or changed hook only after the user reviews it in /hooks",
    );
    const decisions = JSON.parse((await k("hooks", "--json")).stdout).hooks;
    expect(decisions.filter((d: { outcome: string }) => d.outcome === "omitted")).toHaveLength(3);
    const pre = decisions.find(
      (d: { hook: string; agent: string }) => d.hook === "tmux-2" && d.agent === "opencode",
    );
    expect(pre).toMatchObject({ outcome: "as-written", translations: [], explicit: false });
    const strict = await k("hooks", "--strict");
    expect(strict.status).toBe(1);
    expect(strict.stderr).toBe("3 hook rendering(s) differ from kanon.yaml as written\n");
  });
});

describe("Codex trust in kanon status", () => {
  it("lists rendered Codex hooks that Codex will skip until they are reviewed, and never writes trust", async () => {
    home(
      "version: 1\nhooks:\n  - name: guard\n    event: PreToolUse\n    matcher: Bash\n    command: /bin/guard\n",
    );
    await k("apply", "--yes");
    const before = await k("status");
    expect(before.stdout).toContain(
      "Codex CLI will skip 1 hook(s) for now:\n  guard (PreToolUse): new: not reviewed yet\n",
    );
    expect(existsSync(join(s.home, ".codex/config.toml"))).toBe(false);
    const trusted = JSON.parse((await k("status", "--json")).stdout).gated;
    expect(trusted).toEqual([
      expect.objectContaining({
        agent: "Codex CLI",
        hook: "guard",
        event: "PreToolUse",
        gate: "codex-hook-review",
      }),
    ]);
  });

  it("stays quiet for trusted hooks and names a hook changed since it was trusted", async () => {
    home(
      "version: 1\nhooks:\n  - name: guard\n    event: PreToolUse\n    matcher: Bash\n    command: /bin/guard\n",
    );
    await k("apply", "--yes");
    const hooksPath = join(s.home, ".codex/hooks.json");
    const report = codexHookTrust({ hooks: readFileSync(hooksPath, "utf8"), hooksPath });
    const entry = report.entries[0]!;
    writeFileSync(
      join(s.home, ".codex/config.toml"),
      `model = "x"\n\n[hooks.state."${entry.id}"]\ntrusted_hash = "${entry.hash}"\n`,
    );
    expect((await k("status")).stdout).not.toContain("will skip");
    home(
      "version: 1\nhooks:\n  - name: guard\n    event: PreToolUse\n    matcher: Bash\n    command: /bin/guard --strict\n",
    );
    expect((await k("status")).stdout).toContain("guard (PreToolUse): changed since it was trusted");
  });
});
