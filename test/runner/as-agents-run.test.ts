/**
 * Neutral hooks as the agents run them: `kanon apply` in a throwaway HOME, then the commands it wrote
 * into each agent's hook file, read back from that file (test/support/agent-hooks.ts), started as
 * the agent starts a command hook (Claude Code's exec form, the others' shells; the project as the
 * working directory; the variables the agent adds) with the stdin the agent sent in a conformance
 * run (test/fixtures/payloads/). OpenCode has no command hooks: its rendered plugin is loaded and
 * driven through OpenCode 1's entry point, and runs them itself.
 *
 * What the user's script reads (the envelope: the same keys in every agent), what the agent reads
 * back (its own context form, bounded at a line boundary), a hook whose program is missing (exit 0,
 * nothing printed, a line in runner.log), and Kimi Code's SessionStart context carried to the first
 * prompt.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { AGENTS } from "../../src/agents/index.js";
import { ENVELOPE_KEYS } from "../../src/core/hooks/envelope.js";
import {
  type AgentCall,
  type CommandAgent,
  type HookRun,
  hookSandbox,
  openCode1,
  runEvent,
} from "../support/agent-hooks.js";

/** Every character a shell treats specially inside double quotes, and a space, in the project's name. */
const h = hookSandbox('the "pro$ject" `id` a\\b');
const { s, project } = h;
const out = join(s.work, "envelopes");

/** 400 lines of 50 characters (the newline included): 20,000 characters. */
const BIG = `seq -f 'line %05g xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' 1 400`;
/** The project directory as a hook reads it, in both of its spellings (the agents replace either as text). */
const PROJECT_DIR = `printf '%s\\n%s' "\${CLAUDE_PROJECT_DIR}" "$CLAUDE_PROJECT_DIR"`;
const HOME = `version: 1
agents: [claude, codex, opencode, gemini, kimi]
hooks_envelope: neutral
hooks:
  - name: start
    event: SessionStart
    command: cat > '${out}'/"$KANON_AGENT"-start.json; echo "started in $KANON_AGENT"
  - name: prompt
    event: UserPromptSubmit
    command: cat > '${out}'/"$KANON_AGENT"-prompt.json; echo "prompted in $KANON_AGENT"
  - name: big
    event: UserPromptSubmit
    targets: [claude]
    command: ${BIG}
  - name: missing
    event: UserPromptSubmit
    targets: [claude]
    command: /nonexistent/kanon-hook --flag
  - name: missing-exec
    event: UserPromptSubmit
    targets: [claude]
    command: /nonexistent/kanon-hook
    args: [--flag]
  - name: project-dir
    event: SessionStart
    targets: [claude, gemini]
    command: ${PROJECT_DIR}
  - name: project-dir-native
    event: SessionStart
    targets: [claude, gemini]
    envelope: native
    command: ${PROJECT_DIR}
`;

beforeAll(async () => {
  mkdirSync(out);
  // kanon warns of an unset ${VAR} in a hook's command: this one the agents set.
  const apply = await h.apply(HOME, [], { CLAUDE_PROJECT_DIR: "/set" });
  expect(apply, apply.stderr).toMatchObject({ status: 0, stderr: "" });
});

const manifest = (id: string) => AGENTS.find((a) => a.manifest.id === id)!.manifest;
/** The agent's own name of a neutral event. */
const native = (agent: string, event: string) => manifest(agent).hooks.events[event]!.native;
const hooksOf = (agent: CommandAgent) => h.hooks(agent);

/** The agent's recorded stdin for `event`, in this project, for `session` (the recorded one by default). */
const call = (agent: string, event: string, session?: string): AgentCall =>
  h.call(agent, event, session ? { session_id: session } : {});

/** Every hook of the neutral `event` of `agent`, as the agent runs them (SessionStart: a new session). */
function run(agent: CommandAgent, event: string, session?: string): Promise<HookRun[]> {
  return runEvent(agent, hooksOf(agent), native(agent, event), "startup", call(agent, event, session));
}

const envelope = (agent: string, hook: string) =>
  JSON.parse(readFileSync(join(out, `${agent}-${hook}.json`), "utf8")) as Record<string, unknown>;
const byName = (runs: HookRun[], name: string) => runs.find((r) => r.name === name)!;
const codePoints = (t: string) => [...t].length;

/** The context a reply carries in the agent's channel for the event (the manifest's), or null. */
function contextIn(agent: string, event: string, stdout: string): string | null {
  const channel = manifest(agent).hooks.events[event]!.envelope?.context;
  if (channel === "stdout") return stdout;
  const reply = JSON.parse(stdout) as { hookSpecificOutput: Record<string, unknown> };
  expect(Object.keys(reply)).toEqual(["hookSpecificOutput"]);
  expect(reply.hookSpecificOutput.hookEventName).toBe(native(agent, event));
  return reply.hookSpecificOutput.additionalContext as string;
}

describe("Claude Code", () => {
  let start: HookRun[];
  let prompt: HookRun[];
  beforeAll(async () => {
    start = await run("claude", "SessionStart");
    prompt = await run("claude", "UserPromptSubmit");
  });

  it("runs kanon's runner from settings.json: a shell command in shell form, a hook with args in exec form", () => {
    const hooks = hooksOf("claude").filter((h) => h.name !== null);
    expect(hooks.map((h) => [h.event, h.name, h.exec])).toEqual([
      ["SessionStart", "start", false],
      ["SessionStart", "project-dir", false],
      ["UserPromptSubmit", "prompt", false],
      ["UserPromptSubmit", "big", false],
      ["UserPromptSubmit", "missing", false],
      ["UserPromptSubmit", "missing-exec", true],
    ]);
    const runner = [process.execPath, join(s.home, ".local/share/kanon/hook-runner.mjs")];
    for (const h of hooks) {
      if (h.exec) expect(h.argv.slice(0, 2)).toEqual(runner);
      else expect(h.argv[2]!.startsWith(runner.map((w) => `'${w}'`).join(" "))).toBe(true);
    }
  });

  it("a shell command reads the project directory from the environment, as a native hook does", () => {
    // Claude replaces ${CLAUDE_PROJECT_DIR} as text in exec-form arguments, never in shell form.
    const native = start.find((r) => r.name === null)!;
    expect(native).toMatchObject({ code: 0, stdout: `${project}\n${project}`, stderr: "" });
    expect(byName(start, "project-dir")).toMatchObject({ code: 0, stderr: "" });
    expect(contextIn("claude", "SessionStart", byName(start, "project-dir").stdout)).toBe(native.stdout);
  });

  it("gives the script the neutral envelope, with Claude's own stdin under native", () => {
    const stdin = call("claude", "SessionStart").stdin;
    expect(envelope("claude", "start")).toEqual({
      envelope: 1,
      event: "SessionStart",
      agent: "claude",
      session_id: stdin.session_id,
      cwd: project,
      transcript_path: stdin.transcript_path,
      prompt: null,
      tool: null,
      source: "startup",
      trigger: null,
      reason: null,
      native: stdin,
    });
    const p = call("claude", "UserPromptSubmit").stdin;
    expect(envelope("claude", "prompt")).toMatchObject({
      event: "UserPromptSubmit",
      agent: "claude",
      session_id: p.session_id,
      cwd: project,
      prompt: "Run the kanon conformance shell command.",
      source: null,
      native: p,
    });
  });

  it("prints the script's stdout as hookSpecificOutput.additionalContext, exit 0", () => {
    expect(byName(start, "start")).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(byName(start, "start").stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "started in claude" },
    });
    expect(JSON.parse(byName(prompt, "prompt").stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "prompted in claude" },
    });
  });

  it("bounds 20,000 characters to 4,800 at a line boundary, with kanon's closing line", () => {
    const big = byName(prompt, "big");
    expect(big.code).toBe(0);
    const context = contextIn("claude", "UserPromptSubmit", big.stdout)!;
    expect(codePoints(context)).toBeLessThanOrEqual(4800);
    const lines = context.split("\n");
    const closing = /^\[kanon: (\d+) more characters cut\]$/.exec(lines.pop()!);
    expect(closing).not.toBeNull();
    expect(lines.length).toBeGreaterThan(90);
    const line = (i: number) => `line ${String(i + 1).padStart(5, "0")} ${"x".repeat(38)}`;
    expect(lines).toEqual(lines.map((_, i) => line(i)));
    // The output's last newline is not context: 19,999 characters, every one kept or counted as cut.
    expect(lines.length * 50 + Number(closing![1])).toBe(19_999);
  });

  it("a hook whose program is missing fails open: exit 0, nothing printed, a line in runner.log", () => {
    for (const name of ["missing", "missing-exec"])
      expect(byName(prompt, name), name).toEqual({ name, code: 0, stdout: "", stderr: "" });
    // Claude blocks a prompt on exit 2 only: no hook of the event did.
    expect(prompt.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    const log = readFileSync(join(s.home, ".local/state/kanon/hooks/runner.log"), "utf8");
    expect(log).toMatch(/^\S+ claude UserPromptSubmit "missing": exited 127$/m);
    expect(log).toMatch(/^\S+ claude UserPromptSubmit "missing-exec": could not start: ENOENT$/m);
  });
});

describe("Gemini CLI", () => {
  it("a shell command reads the project directory from the environment, as a native hook does", async () => {
    // Gemini replaces $CLAUDE_PROJECT_DIR in the command, shell-quoted, when it runs the hook; when
    // its own environment has the variable too, its settings loader replaces both spellings before.
    for (const own of [{}, { CLAUDE_PROJECT_DIR: "/elsewhere" }]) {
      const c = h.call("gemini", "SessionStart", {}, own);
      const runs = await runEvent("gemini", hooksOf("gemini"), "SessionStart", "startup", c);
      const native = runs.find((r) => r.name === null)!;
      expect(native).toMatchObject({ code: 0, stdout: `${project}\n${project}`, stderr: "" });
      expect(byName(runs, "project-dir")).toMatchObject({ code: 0, stderr: "" });
      expect(contextIn("gemini", "SessionStart", byName(runs, "project-dir").stdout)).toBe(native.stdout);
    }
  });
});

describe("every agent", () => {
  /** OpenCode 1 loading the rendered plugin for the project, a session starting, one prompt. */
  async function opencode(): Promise<string[]> {
    const oc = await openCode1(h.hookFile("opencode"), project);
    const session = "ses_as_agents_run";
    oc.event("session.created", { info: { id: session } });
    await oc.prompt(session, "Run the kanon envelope shell command.");
    const system = await oc.system(session);
    await oc.dispose();
    return system;
  }

  it("the script reads the same envelope keys in all five, and the agent's context form comes back", async () => {
    // Each agent's session as it goes: its SessionStart hooks, then its prompt's (the agents side by side).
    const session = async (agent: CommandAgent): Promise<[HookRun[], HookRun[]]> => [
      await run(agent, "SessionStart"),
      await run(agent, "UserPromptSubmit"),
    ];
    const agents = ["codex", "gemini", "kimi"] as const;
    const [runs, system] = await Promise.all([Promise.all(agents.map(session)), opencode()]);
    agents.forEach((agent, i) => {
      const [[start], prompt] = runs[i]!;
      expect(start, agent).toMatchObject({ name: "start", code: 0, stderr: "" });
      // Kimi ignores SessionStart's output: the runner keeps it for the next prompt instead.
      if (agent === "kimi") expect(start!.stdout).toBe("");
      else expect(contextIn(agent, "SessionStart", start!.stdout)).toBe(`started in ${agent}`);
      expect(contextIn(agent, "UserPromptSubmit", byName(prompt, "prompt").stdout)).toBe(
        `prompted in ${agent}`,
      );
    });
    expect(system).toEqual(["started in opencode\n\nprompted in opencode"]);
    for (const agent of ["claude", "codex", "gemini", "kimi", "opencode"]) {
      for (const [hook, event] of [
        ["start", "SessionStart"],
        ["prompt", "UserPromptSubmit"],
      ] as const) {
        const e = envelope(agent, hook);
        expect(Object.keys(e), `${agent} ${event}`).toEqual([...ENVELOPE_KEYS]);
        expect(e).toMatchObject({ envelope: 1, event, agent, cwd: project, tool: null });
        expect(e.session_id, `${agent} ${event}`).toEqual(expect.any(String));
        expect(e.native).toEqual(expect.objectContaining({ session_id: e.session_id }));
        if (event === "SessionStart") expect(e).toMatchObject({ source: "startup", prompt: null });
        else
          expect(e).toMatchObject({
            source: null,
            prompt: expect.stringMatching(/^Run the kanon \w+ shell command\.$/),
          });
      }
    }
  });
});

describe("Kimi Code", () => {
  it("has the carry hook, which brings SessionStart's context to the first prompt, once", async () => {
    const carry = hooksOf("kimi").filter((h) => h.name === "kanon/carry");
    expect(carry.map((h) => h.event)).toEqual(["UserPromptSubmit"]);
    const session = "session_carry";
    const start = await run("kimi", "SessionStart", session);
    expect(start.map((r) => [r.name, r.code, r.stdout])).toEqual([["start", 0, ""]]);
    // Kimi wraps each exit-0 prompt hook's stdout in a <hook_result> user message.
    const delivered = async () =>
      (await run("kimi", "UserPromptSubmit", session))
        .filter((r) => r.code === 0 && r.stdout !== "")
        .map((r) => r.stdout);
    expect((await delivered()).sort()).toEqual(["prompted in kimi", "started in kimi"]);
    expect(await delivered()).toEqual(["prompted in kimi"]);
  });
});
