/**
 * The runner's translation in (native stdin → envelope) and out (reply → the agent's channel), for
 * each agent, from native payloads recorded in conformance runs (test/fixtures/payloads/, paths
 * replaced by /home/u/work), through the tables kanon generates from the manifests.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AGENTS } from "../../src/agents/index.js";
import { ENVELOPE_KEYS } from "../../src/core/hooks/envelope.js";
import { runnerTable } from "../../src/runner/file.js";
import { buildEnvelope, deliver, parseArgs } from "../../src/runner/runner.js";
import { ROOT } from "../support/cli.js";

const table = (id: string) => runnerTable(AGENTS.find((a) => a.manifest.id === id)!.manifest);
const payloads = (id: string): Record<string, Record<string, unknown>> =>
  JSON.parse(readFileSync(join(ROOT, "test/fixtures/payloads", `${id}.json`), "utf8"));

const PROJECT = "/home/u/work/project";

describe("the envelope from recorded native payloads", () => {
  // What each agent's recording says, as the envelope must say it.
  const prompts: Record<string, string> = {
    claude: "Run the kanon conformance shell command.",
    codex: "Run the kanon conformance shell command.",
    gemini: "Run the kanon conformance shell command.",
    opencode: "Run the kanon envelope shell command.",
    kimi: "Run the kanon conformance shell command.",
  };
  for (const id of ["claude", "codex", "gemini", "opencode", "kimi"]) {
    it(`${id}: the same keys, null for what it does not send, the tool as Bash`, () => {
      const recorded = payloads(id);
      for (const [event, native] of Object.entries(recorded)) {
        const e = buildEnvelope(id, event, native, table(id), "/elsewhere");
        expect(Object.keys(e), `${id} ${event}`).toEqual([...ENVELOPE_KEYS]);
        expect(e).toMatchObject({ envelope: 1, event, agent: id, cwd: PROJECT, native });
        expect(e.session_id).toBe(native.session_id);
        expect(e.transcript_path).toBe(native.transcript_path ?? null);
        expect(e.prompt).toBe(event === "UserPromptSubmit" || native.prompt ? prompts[id] : null);
        if (event === "PreToolUse" || event === "PostToolUse") {
          expect(e.tool?.name, `${id} ${event}`).toBe("Bash");
          expect(e.tool?.input).toEqual(native.tool_input);
          if (event === "PostToolUse") expect(e.tool?.output).not.toBeNull();
          else expect(e.tool?.output).toBeNull();
        } else expect(e.tool).toBeNull();
        expect(e.source).toBe(event === "SessionStart" ? "startup" : null);
        expect(e.trigger).toBeNull();
      }
    });
  }

  it("kimi: the prompt's content parts become one text, and there is no transcript", () => {
    const native = payloads("kimi").UserPromptSubmit!;
    expect(native.prompt).toEqual([{ type: "text", text: prompts.kimi }]);
    expect(buildEnvelope("kimi", "UserPromptSubmit", native, table("kimi"), "/x").transcript_path).toBeNull();
  });

  it("gemini: SessionStart's context that headless Gemini CLI puts before the prompt is taken off", () => {
    const native = {
      ...payloads("gemini").UserPromptSubmit,
      prompt: "<hook_context>where we are\n</hook_context>\n\nRun it.",
    };
    expect(buildEnvelope("gemini", "UserPromptSubmit", native, table("gemini"), "/x").prompt).toBe("Run it.");
  });

  it("codex: an edit (apply_patch) is Edit; an MCP tool keeps its name; a missing cwd is the runner's", () => {
    const e = buildEnvelope(
      "codex",
      "PreToolUse",
      { session_id: "s", tool_name: "apply_patch", tool_input: {} },
      table("codex"),
      "/runner/cwd",
    );
    expect(e.tool?.name).toBe("Edit");
    expect(e.cwd).toBe("/runner/cwd");
    const mcp = buildEnvelope("codex", "PreToolUse", { tool_name: "mcp__x__y" }, table("codex"), "/");
    expect(mcp.tool?.name).toBe("mcp__x__y");
    expect(mcp.session_id).toBeNull();
  });

  it("gemini and opencode: their own tool names are the neutral ones", () => {
    expect(
      buildEnvelope("gemini", "PreToolUse", payloads("gemini").PreToolUse, table("gemini"), "/").tool?.name,
    ).toBe("Bash");
    expect(payloads("gemini").PreToolUse!.tool_name).toBe("run_shell_command");
    expect(payloads("opencode").PreToolUse!.tool_name).toBe("bash");
    const shell = buildEnvelope("opencode", "PreToolUse", { tool_name: "shell" }, table("opencode"), "/");
    expect(shell.tool?.name).toBe("Bash");
  });

  it("every event of every agent's manifest, any stdin: the same keys, in the same order (property)", () => {
    // Each agent's stdin keys (its table's fields) with values of any JSON type, plus keys of any name.
    const stdin = (fields: string[]) =>
      fc.oneof(
        fc.dictionary(fc.constantFrom(...fields, "hook_event_name", "extra"), fc.jsonValue({ maxDepth: 2 })),
        fc.jsonValue({ maxDepth: 2 }),
      );
    for (const { manifest } of AGENTS) {
      const fields = Object.values(manifest.hooks.envelope.fields);
      fc.assert(
        fc.property(
          fc.constantFrom(...Object.keys(manifest.hooks.events)),
          stdin(fields),
          (event, native) => {
            const e = buildEnvelope(manifest.id, event, native, table(manifest.id), "/runner");
            expect(Object.keys(e)).toEqual([...ENVELOPE_KEYS]);
            expect(e).toMatchObject({ envelope: 1, event, agent: manifest.id, native });
            expect(typeof e.cwd).toBe("string");
          },
        ),
        { numRuns: 100 },
      );
    }
  });

  it("a payload that is not an object gives nulls and keeps it as native", () => {
    const e = buildEnvelope("claude", "Stop", null, table("claude"), "/cwd");
    expect(e).toMatchObject({ session_id: null, cwd: "/cwd", tool: null, native: null });
  });
});

describe("the reply through each agent's channel", () => {
  const o = (agent: string, event: string, ...more: string[]) =>
    parseArgs([agent, event, "h", "--max", "4800", "--timeout", "60", ...more, "--sh", "true"]);
  const env = (agent: string, event: string) =>
    buildEnvelope(agent, event, { session_id: "s-1" }, table(agent), "/p");
  const send = (agent: string, event: string, reply: object, ...more: string[]) => {
    const kept: string[] = [];
    const out = deliver(o(agent, event, ...more), table(agent), env(agent, event), reply, (_o, _e, c) =>
      kept.push(c),
    );
    return { ...out, kept };
  };
  const additional = (native: string, context: string) =>
    JSON.stringify({ hookSpecificOutput: { hookEventName: native, additionalContext: context } });

  it("claude and codex: additionalContext under the native event's name", () => {
    for (const agent of ["claude", "codex"]) {
      expect(send(agent, "SessionStart", { context: "hi" }).stdout).toBe(additional("SessionStart", "hi"));
      expect(send(agent, "UserPromptSubmit", { context: "p" }).stdout).toBe(
        additional("UserPromptSubmit", "p"),
      );
      // A neutral PostCompact is rendered on SessionStart (compact): the reply names SessionStart.
      expect(send(agent, "PostCompact", { context: "c" }).stdout).toBe(additional("SessionStart", "c"));
    }
  });

  it("gemini: additionalContext on BeforeAgent; kept for the next prompt on BeforeTool", () => {
    expect(send("gemini", "UserPromptSubmit", { context: "p" }).stdout).toBe(additional("BeforeAgent", "p"));
    const tool = send("gemini", "PreToolUse", { context: "t" });
    expect(tool).toMatchObject({ stdout: "", code: 0, kept: ["t"] });
  });

  it("kimi: plain stdout on UserPromptSubmit; SessionStart and PostCompact are kept for the next prompt", () => {
    expect(send("kimi", "UserPromptSubmit", { context: "p" }).stdout).toBe("p");
    expect(send("kimi", "SessionStart", { context: "s" })).toMatchObject({ stdout: "", kept: ["s"] });
    expect(send("kimi", "PostCompact", { context: "c" })).toMatchObject({ stdout: "", kept: ["c"] });
  });

  it("opencode: a JSON reply for kanon's plugin, on every event (Stop's too: the plugin keeps it)", () => {
    for (const event of ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop"])
      expect(send("opencode", event, { context: "x" })).toMatchObject({
        stdout: '{"context":"x"}',
        kept: [],
      });
  });

  it("SessionEnd context is not delivered anywhere, and says so", () => {
    const out = send("claude", "SessionEnd", { context: "bye" });
    expect(out).toMatchObject({ stdout: "", kept: [] });
    expect(out.notes).toEqual(["context not delivered: claude takes no context at SessionEnd"]);
  });

  it("an async hook's context is kept for the next prompt: the agent does not wait for it", () => {
    expect(send("claude", "SessionStart", { context: "a" }, "--async")).toMatchObject({
      stdout: "",
      kept: ["a"],
    });
  });

  it("blocks with exit 2 and the reason on stderr where the event can block", () => {
    const out = send("claude", "PreToolUse", { decision: "block", reason: "no", context: "" }, "--block");
    expect(out).toMatchObject({ stdout: "", stderr: "no\n", code: 2 });
    const why = send("kimi", "UserPromptSubmit", { decision: "block", reason: "" }, "--block");
    expect(why.stderr).toBe('Blocked by kanon hook "h".\n');
  });

  it("where the event cannot block, delivers the context and notes the refused block", () => {
    const out = send("claude", "SessionStart", { decision: "block", reason: "r", context: "c" }, "--block");
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(additional("SessionStart", "c"));
    expect(out.notes).toEqual(["asked to block, which claude cannot do at SessionStart"]);
  });

  it("bounds the context to --max; Codex's multi-byte text fits whole where kanon raised its limit", () => {
    const cjk = `${"漢".repeat(99)}\n`.repeat(40); // 4,000 characters, 12,000 bytes: 3,000 tokens
    const low = send("codex", "SessionStart", { context: cjk }, "--max", "2400");
    const delivered = JSON.parse(low.stdout).hookSpecificOutput.additionalContext as string;
    expect([...delivered].length).toBeLessThanOrEqual(2400);
    expect(delivered).toMatch(/^(漢{99}\n)+\[kanon: \d+ more characters cut\]$/);
    // Above Codex's 2,500 tokens: kanon writes additionalContextLimit = --max, so 4,000 characters fit.
    const raised = send("codex", "SessionStart", { context: cjk }, "--max", "4800");
    expect(JSON.parse(raised.stdout).hookSpecificOutput.additionalContext).toBe(cjk);
  });
});
