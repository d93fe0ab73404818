/**
 * Hook validation and Claude's handler types through kanon's command line: each error names the hook
 * with kanon.yaml:LINE:COL and writes nothing; unknown events warn with "did you mean" and still
 * reach Claude; each handler type renders only where the agent runs it.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandboxPerTest } from "../support/cli.js";
import { projectDirUnset } from "../support/manifests.js";

const s = sandboxPerTest((s) => mkdirSync(s.kh));
const { k, writeHome: home } = s;
const settings = () => JSON.parse(readFileSync(join(s.home, ".claude/settings.json"), "utf8"));
const nothingWritten = () =>
  expect([".claude", ".codex", ".config"].filter((d) => existsSync(join(s.home, d)))).toEqual([]);

/** Every command that validates fails with exactly `stderr` and writes nothing. */
async function rejects(stderr: string) {
  for (const cmd of [["validate"], ["render"], ["diff"], ["apply", "--yes"], ["hooks"]]) {
    expect(await k(...cmd), cmd.join(" ")).toMatchObject({ status: 1, stderr });
  }
  nothingWritten();
}

/** One row of `kanon hooks`: hook, event (a regex), agent, how it is rendered, then the other columns. */
const row = (hook: string, event: string, agent: string, rendered: string) =>
  new RegExp(`^${hook} +${event} +${agent} +${rendered.replace(/[()]/g, "\\$&")}  `, "m");

describe("hook errors name the hook with kanon.yaml:LINE:COL and write nothing", () => {
  it("a command hook without command", async () => {
    home("version: 1\nhooks:\n  - name: fmt\n    event: PostToolUse\n");
    await rejects('kanon.yaml:3:5: hook "fmt": type command requires command\n');
  });

  it("duplicate names, pointing at both", async () => {
    home(
      "version: 1\nhooks:\n  - name: fmt\n    event: Stop\n    command: a\n  - name: fmt\n    event: Stop\n    command: b\n",
    );
    await rejects('kanon.yaml:6:11: hook "fmt": duplicate name (first at kanon.yaml:3:5)\n');
  });

  it("a Go-era http hook with only command is an http hook without url", async () => {
    home(
      "version: 1\nhooks:\n  - name: audit\n    event: PostToolUse\n    type: http\n    command: https://a.example/\n",
    );
    await rejects('kanon.yaml:3:5: hook "audit": type http requires url; command is not an http field\n');
  });

  it("each type's required fields", async () => {
    home(
      "version: 1\nhooks:\n" +
        "  - {name: p, event: Stop, type: prompt}\n" +
        "  - {name: a, event: Stop, type: agent, model: m}\n" +
        "  - {name: m, event: Stop, type: mcp_tool, server: s}\n",
    );
    await rejects(
      'kanon.yaml:3:5: hook "p": type prompt requires prompt\n' +
        'kanon.yaml:4:5: hook "a": type agent requires prompt\n' +
        'kanon.yaml:5:5: hook "m": type mcp_tool requires tool\n',
    );
  });

  it("a field of another type, an unknown type, a bad shell", async () => {
    home(
      "version: 1\nhooks:\n" +
        "  - name: c\n    event: Stop\n    command: x\n    url: https://a.example/\n" +
        "  - name: t\n    event: Stop\n    type: htp\n    url: https://a.example/\n" +
        "  - name: sh\n    event: Stop\n    command: x\n    shell: zsh\n",
    );
    await rejects(
      'kanon.yaml:6:10: hook "c": url is not a field of command hooks\n' +
        'kanon.yaml:9:11: hook "t": unknown type "htp" (did you mean "http"? known: command, http, mcp_tool, prompt, agent)\n' +
        'kanon.yaml:14:12: hook "sh": shell must be bash or powershell, not "zsh"\n',
    );
  });

  it("a missing or wrong version is unsupported version N", async () => {
    home("");
    await rejects('kanon.yaml:1:1: unsupported version 0 (kanon.yaml needs "version: 1")\n');
    home("hooks: []\n");
    await rejects('kanon.yaml:1:1: unsupported version 0 (kanon.yaml needs "version: 1")\n');
    home("version: 2\n");
    await rejects("kanon.yaml:1:10: unsupported version 2\n");
  });
});

describe("events kanon does not know", () => {
  for (const [event, col, hint] of [
    ["pretooluse", 12, "PreToolUse"],
    ["PreToolUse2", 12, "PreToolUse"],
    ["sessionstart", 12, "SessionStart"],
  ] as const) {
    it(`${event}: a warning with its position and "did you mean ${hint}", still written for Claude`, async () => {
      home(`version: 1\nhooks:\n  - name: guard\n    event: ${event}\n    command: ./guard.sh\n`);
      const warning = `warning: kanon.yaml:4:${col}: hook "guard": unknown event "${event}"; did you mean "${hint}"?\n`;
      const r = await k("apply", "--yes");
      expect(r.status).toBe(0);
      expect(r.stderr).toBe(
        warning +
          `warning: hook "guard" is not rendered for codex: event "${event}" is not supported\n` +
          `warning: hook "guard" is not rendered for opencode: event "${event}" is not supported\n`,
      );
      expect(Object.keys(settings().hooks)).toEqual([event]);
      expect((await k("validate")).stderr).toContain(warning);

      const hooks = await k("hooks");
      expect(hooks.status).toBe(0);
      expect(hooks.stderr).toBe(warning);
      for (const [agent, rendered] of [
        ["codex", "left out"],
        ["claude", "passed through"],
        ["opencode", "left out"],
      ])
        expect(hooks.stdout).toMatch(row("guard", event, agent!, rendered!));
      expect(hooks.stdout).toContain(`guard → claude: note: kanon does not know event "${event}"`);
      expect(await k("hooks", "--strict")).toMatchObject({
        status: 1,
        stderr: `${warning}3 hook rendering(s) differ from kanon.yaml as written\n`,
      });
    });
  }

  it("an event name that is the hook's name is located at the name", async () => {
    home("version: 1\nhooks:\n  - name: Stopp\n    command: x\n    targets: [claude]\n");
    expect((await k("validate")).stderr).toBe(
      'warning: kanon.yaml:3:11: hook "Stopp": unknown event "Stopp"; did you mean "Stop"?\n',
    );
  });

  it("a neutral event Claude lacks (Interrupt) is left out of Claude, and an error when Claude is named", async () => {
    home("version: 1\nhooks:\n  - name: int\n    event: Interrupt\n    command: ./on-interrupt.sh\n");
    const r = await k("apply", "--yes");
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      'warning: hook "int" is not rendered for claude: event "Interrupt" is not supported\n',
    );
    expect(existsSync(join(s.home, ".claude/settings.json"))).toBe(false);
    expect(JSON.parse(readFileSync(join(s.home, ".codex/hooks.json"), "utf8")).hooks.Interrupt).toHaveLength(
      1,
    );
    const table = (await k("hooks")).stdout;
    expect(table).toMatch(row("int", "Interrupt", "codex", "as written (gated)"));
    expect(table).toMatch(row("int", "Interrupt", "claude", "left out"));
    home("version: 1\nhooks:\n  - name: int\n    event: Interrupt\n    command: x\n    targets: [claude]\n");
    expect(await k("validate")).toMatchObject({
      status: 1,
      stderr: 'kanon.yaml:3:5: hook "int" targets claude but event "Interrupt" is not supported for claude\n',
    });
  });
});

describe("enabled: false", () => {
  it("skips the hook everywhere, without an unknown-key warning", async () => {
    home(
      "version: 1\nhooks:\n  - name: on\n    event: Stop\n    command: a\n  - name: off\n    event: Stop\n    command: b\n    enabled: false\n",
    );
    const r = await k("apply", "--yes");
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(settings().hooks.Stop.map((g: { hooks: { command: string }[] }) => g.hooks[0]!.command)).toEqual([
      "a",
    ]);
    expect((await k("hooks")).stdout).toMatch(/^off +Stop +- +disabled +- +- +-$/m);
  });
});

describe("Claude's handler types", () => {
  const TYPES =
    "version: 1\nhooks:\n" +
    "  - name: audit\n    event: PostToolUse\n    type: http\n    url: https://audit.example/\n    headers: {Authorization: Bearer $TOKEN}\n    allowed_env_vars: [TOKEN]\n" +
    "  - name: judge\n    event: Stop\n    type: prompt\n    prompt: Done?\n    model: fast\n" +
    "  - name: check\n    event: SubagentStop\n    type: agent\n    prompt: Run the tests.\n    timeout: 60\n" +
    "  - name: lint\n    event: PostToolUse\n    type: mcp_tool\n    server: linter\n    tool: lint\n    input: {path: '${tool_input.file_path}', fix: true}\n";

  it("render into Claude's settings with Claude's field names and are left out of the others", async () => {
    home(TYPES);
    const r = await k("apply", "--yes");
    expect(r.status).toBe(0);
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      'warning: hook "audit" is not rendered for codex: type "http" is not supported',
      'warning: hook "audit" is not rendered for opencode: type "http" is not supported',
      'warning: hook "judge" is not rendered for codex: type "prompt" is not supported',
      'warning: hook "judge" is not rendered for opencode: type "prompt" is not supported',
      'warning: hook "check" is not rendered for codex: type "agent" is not supported',
      'warning: hook "check" is not rendered for opencode: event "SubagentStop" is not supported',
      'warning: hook "lint" is not rendered for codex: type "mcp_tool" is not supported',
      'warning: hook "lint" is not rendered for opencode: type "mcp_tool" is not supported',
    ]);
    const hooks = settings().hooks;
    expect(hooks.PostToolUse.map((g: { hooks: unknown[] }) => g.hooks[0])).toEqual([
      {
        allowedEnvVars: ["TOKEN"],
        headers: { Authorization: "Bearer $TOKEN" },
        type: "http",
        url: "https://audit.example/",
      },
      {
        input: { fix: true, path: "${tool_input.file_path}" },
        server: "linter",
        tool: "lint",
        type: "mcp_tool",
      },
    ]);
    expect(hooks.Stop[0].hooks[0]).toEqual({ model: "fast", prompt: "Done?", type: "prompt" });
    expect(hooks.SubagentStop[0].hooks[0]).toEqual({ prompt: "Run the tests.", timeout: 60, type: "agent" });
    expect(existsSync(join(s.home, ".codex/hooks.json"))).toBe(false);
    expect(await k("hooks", "--agent", "claude", "--strict")).toMatchObject({ status: 0 });
  });

  it("if on an event where Claude never evaluates it is left out, not written to a hook that never runs", async () => {
    home(
      "version: 1\nhooks:\n  - name: done\n    event: Stop\n    command: ./done.sh\n    if: Bash(git *)\n    targets: [claude]\n",
    );
    await rejects(
      'kanon.yaml:3:5: hook "done" targets claude but field "if" on Stop is not supported for claude (Claude Code honours it only on PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, PermissionDenied, and never runs the hook elsewhere)\n',
    );
  });

  it("an explicit target that cannot run the type is an error naming it", async () => {
    home(
      "version: 1\nhooks:\n  - name: judge\n    event: Stop\n    type: prompt\n    prompt: Done?\n    targets: [codex]\n",
    );
    await rejects(
      'kanon.yaml:3:5: hook "judge" targets codex but type "prompt" is not supported for codex\n',
    );
  });

  it("a command field an agent lacks leaves the hook out there; a cosmetic one is dropped", async () => {
    home(
      "version: 1\nhooks:\n" +
        "  - name: push\n    event: PreToolUse\n    command: ./guard.sh\n    if: Bash(git push *)\n" +
        "  - name: hello\n    event: SessionStart\n    command: ./hello.sh\n    status_message: Saying hello\n",
    );
    const r = await k("apply", "--yes");
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      'warning: hook "push" is not rendered for codex: field "if" is not supported (for type "command")',
      'warning: hook "push" is not rendered for opencode: field "if" is not supported (for type "command")',
    ]);
    expect(settings().hooks.PreToolUse[0].hooks[0]).toEqual({
      command: "./guard.sh",
      if: "Bash(git push *)",
      type: "command",
    });
    const codex = JSON.parse(readFileSync(join(s.home, ".codex/hooks.json"), "utf8"));
    expect(codex.hooks.SessionStart[0].hooks[0]).toEqual({
      command: "./hello.sh",
      statusMessage: "Saying hello",
      type: "command",
    });
    expect((await k("hooks")).stdout).toContain(
      "hello → opencode: translated: status_message dropped: OpenCode shows no hook status",
    );
  });
});

describe("Gemini CLI and Kimi Code run command hooks only", () => {
  const HOME =
    "version: 1\nagents: [claude, gemini, kimi]\nhooks:\n" +
    "  - {name: audit, event: PostToolUse, type: http, url: 'https://audit.example/'}\n" +
    "  - {name: lint, event: PostToolUse, type: mcp_tool, server: linter, tool: lint}\n" +
    "  - {name: judge, event: Stop, type: prompt, prompt: Done?}\n" +
    "  - {name: push, event: PreToolUse, command: ./guard.sh, if: Bash(git push *)}\n" +
    "  - {name: hello, event: SessionStart, command: ./hello.sh, status_message: Saying hello}\n";

  it("leave out the other types and the fields they lack, with a warning each; drop status_message", async () => {
    home(HOME);
    const r = await k("apply", "--yes");
    expect(r.status).toBe(0);
    expect(r.stderr.trimEnd().split("\n")).toEqual(
      [
        ["audit", 'type "http"'],
        ["lint", 'type "mcp_tool"'],
        ["judge", 'type "prompt"'],
        ["push", 'field "if"'],
      ].flatMap(([hook, what]) =>
        ["gemini", "kimi"].map(
          (agent) =>
            `warning: hook "${hook}" is not rendered for ${agent}: ${what} is not supported${what!.startsWith("field") ? ' (for type "command")' : ""}`,
        ),
      ),
    );
    const geminiSettings = JSON.parse(readFileSync(join(s.home, ".gemini/settings.json"), "utf8"));
    expect(geminiSettings.hooks).toEqual({
      SessionStart: [{ hooks: [{ command: "./hello.sh", name: "kanon:hello", type: "command" }] }],
    });
    expect(readFileSync(join(s.home, ".kimi-code/config.toml"), "utf8")).toBe(
      "[[hooks]] # kanon: hello\ncommand = './hello.sh'\nevent = 'SessionStart'\n",
    );
    const hooks = (await k("hooks")).stdout;
    for (const name of ["audit", "lint", "judge", "push"])
      for (const [agent, rendered] of [
        ["claude", "as written"],
        ["gemini", "left out"],
        ["kimi", "left out"],
      ])
        expect(hooks).toMatch(row(name, "\\S+", agent!, rendered!));
    expect(hooks).toMatch(row("hello", "SessionStart", "claude", "as written"));
    expect(hooks).toMatch(row("hello", "SessionStart", "gemini", "translated (gated)"));
    expect(hooks).toMatch(row("hello", "SessionStart", "kimi", "translated"));
    expect(hooks).toContain(
      "hello → kimi: translated: status_message dropped: Kimi Code shows no hook status",
    );
  });

  it("an explicit target is an error naming the type or field", async () => {
    home(
      "version: 1\nhooks:\n" +
        "  - {name: audit, event: PostToolUse, type: http, url: 'https://a.example/', targets: [gemini]}\n" +
        "  - {name: lint, event: PostToolUse, type: mcp_tool, server: s, tool: t, targets: [kimi]}\n" +
        "  - {name: push, event: PreToolUse, command: x, shell: bash, targets: [gemini, kimi]}\n",
    );
    await rejects(
      'kanon.yaml:3:5: hook "audit" targets gemini but type "http" is not supported for gemini\n' +
        'kanon.yaml:4:5: hook "lint" targets kimi but type "mcp_tool" is not supported for kimi\n' +
        'kanon.yaml:5:5: hook "push" targets gemini but field "shell" is not supported for gemini (for type "command")\n' +
        'kanon.yaml:5:5: hook "push" targets kimi but field "shell" is not supported for kimi (for type "command")\n',
    );
  });

  it("their native event names suggest the neutral one", async () => {
    home("version: 1\nhooks:\n  - {name: g, event: BeforeTool, command: x, targets: [claude]}\n");
    expect((await k("validate")).stderr).toBe(
      'warning: kanon.yaml:3:22: hook "g": unknown event "BeforeTool"; did you mean "PreToolUse"?\n',
    );
    home("version: 1\nhooks:\n  - {name: g, event: afteragent, command: x, targets: [claude]}\n");
    expect((await k("validate")).stderr).toBe(
      'warning: kanon.yaml:3:22: hook "g": unknown event "afteragent"; did you mean "Stop"?\n',
    );
  });
});

describe("a hook that uses a variable only some agents set for their hooks", () => {
  const GUARD =
    "version: 1\nagents: [codex, claude, opencode, gemini, kimi]\nhooks:\n  - name: guard\n    event: PreToolUse\n    matcher: Bash\n    command: '\"${CLAUDE_PROJECT_DIR}\"/hooks/guard.sh'\n";
  const why = (agent: string) => `(${projectDirUnset(agent)})`;

  it("is left out, with one warning each, for the agents that do not set it, wherever kanon runs", async () => {
    home(GUARD);
    const expected =
      `warning: hook "guard" is not rendered for codex: variable $CLAUDE_PROJECT_DIR is not supported ${why("codex")}\n` +
      `warning: hook "guard" is not rendered for opencode: variable $CLAUDE_PROJECT_DIR is not supported ${why("opencode")}\n` +
      `warning: hook "guard" is not rendered for kimi: variable $CLAUDE_PROJECT_DIR is not supported ${why("kimi")}\n`;
    // Outside Claude, and inside it (where kanon's own environment has the variable).
    for (const env of [{}, { CLAUDE_PROJECT_DIR: s.work }]) {
      const r = await s.run(["--home", s.kh, "apply", "--yes"], { env });
      expect(r).toMatchObject({ status: 0, stderr: expected });
    }
    expect(readFileSync(join(s.home, ".claude/settings.json"), "utf8")).toContain(
      '"command": "\\"${CLAUDE_PROJECT_DIR}\\"/hooks/guard.sh"',
    );
    expect(existsSync(join(s.home, ".codex/hooks.json"))).toBe(false);
  });

  it("gives the reason in kanon hooks and its --json", async () => {
    home(GUARD);
    const table = (await k("hooks")).stdout;
    expect(table).toMatch(row("guard", "PreToolUse", "codex", "left out"));
    expect(table).toMatch(row("guard", "PreToolUse", "gemini", "translated (gated)"));
    expect(table).toContain(
      `guard → codex: left out: variable $CLAUDE_PROJECT_DIR is not supported ${why("codex")}\n`,
    );
    const decisions = JSON.parse((await k("hooks", "--json")).stdout).hooks;
    expect(decisions.find((d: { agent: string }) => d.agent === "kimi")).toMatchObject({
      hook: "guard",
      outcome: "omitted",
      explicit: false,
      missing: {
        capability: "variable $CLAUDE_PROJECT_DIR",
        detail: why("kimi").slice(1, -1),
      },
    });
  });

  it("is an error naming the hook with kanon.yaml:LINE:COL for an agent its targets name", async () => {
    home(`${GUARD}    targets: [claude, gemini, codex]\n`);
    await rejects(
      `kanon.yaml:4:5: hook "guard" targets codex but variable $CLAUDE_PROJECT_DIR is not supported for codex ${why("codex")}\n`,
    );
  });
});
