/**
 * Neutral hooks in the OpenCode plugin: their command is kanon's runner, which answers
 * `{"context": …}`; the plugin puts that text into the system prompt of the session's requests,
 * through experimental.chat.system.transform (OpenCode 1) and ctx.session.hook("context") (OpenCode 2,
 * the mock host of v2-host.ts). SessionStart and PostCompact context stands; prompt and tool context
 * is this turn's; Stop's waits for the next prompt.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { PluginHook } from "../../../src/agents/opencode/plugin.js";
import { loadPlugin, recordingPerTest, removeTempDirs, sq } from "./helpers.js";
import { V2Host } from "./v2-host.js";

afterAll(removeTempDirs);
const t = recordingPerTest();

/** A stand-in for the runner: prints its reply (the real one is tested in test/runner/). */
const neutral = (event: string, context: string, over: Partial<PluginHook> = {}): PluginHook => ({
  ...t.hook(event),
  name: `${event}-${context}`,
  command: `cat > /dev/null; printf '%s' ${sq(JSON.stringify({ context }))}`,
  neutral: true,
  ...over,
});

const tick = () => new Promise((r) => setTimeout(r, 30));

describe("OpenCode 1", () => {
  async function v1(hooks: PluginHook[]) {
    const { plugin } = await loadPlugin(hooks);
    const h = (await plugin.server({ directory: t.dir })) as Record<
      string,
      (...a: unknown[]) => Promise<void>
    >;
    const system = async (sessionID: string) => {
      const out = { system: ["base"] };
      await h["experimental.chat.system.transform"]!({ sessionID, model: {} }, out);
      return out.system;
    };
    const prompt = (sessionID: string) =>
      h["chat.message"]!({ sessionID }, { message: {}, parts: [{ type: "text", text: "hi" }] });
    const event = (type: string, properties: object) =>
      (h.event as unknown as (a: unknown) => void)({ event: { type, properties } });
    return { h, system, prompt, event };
  }

  it("registers the system transform only when a hook is neutral", async () => {
    const native = await loadPlugin([t.hook("SessionStart")]);
    const hooks = await native.plugin.server({ directory: t.dir });
    expect(Object.keys(hooks)).not.toContain("experimental.chat.system.transform");
    const { h } = await v1([neutral("PreToolUse", "x")]);
    expect(Object.keys(h)).toEqual(
      expect.arrayContaining(["experimental.chat.system.transform", "chat.message"]),
    );
  });

  it("SessionStart's context stands in every request of its session, and no other", async () => {
    const { system, prompt, event } = await v1([neutral("SessionStart", "anchor")]);
    event("session.created", { info: { id: "ses_1" } });
    await prompt("ses_1");
    expect(await system("ses_1")).toEqual(["base", "anchor"]);
    await prompt("ses_1");
    expect(await system("ses_1")).toEqual(["base", "anchor"]);
    expect(await system("ses_other")).toEqual(["base"]);
  });

  it("a prompt hook's context goes with this turn; Stop's with the next prompt", async () => {
    const { system, prompt, event, h } = await v1([
      neutral("UserPromptSubmit", "now"),
      neutral("Stop", "later"),
    ]);
    await prompt("ses_1");
    expect(await system("ses_1")).toEqual(["base", "now"]);
    event("session.status", { sessionID: "ses_1", status: { type: "idle" } });
    await h.dispose!();
    await tick();
    expect(await system("ses_1")).toEqual(["base", "now"]);
    await prompt("ses_1");
    expect(await system("ses_1")).toEqual(["base", "later\n\nnow"]);
  });

  it("a tool hook's context reaches the turn's next request", async () => {
    const { system, prompt, h } = await v1([neutral("PostToolUse", "tool said")]);
    await prompt("ses_1");
    await h["tool.execute.after"]!(
      { tool: "bash", sessionID: "ses_1", callID: "c", args: {} },
      { output: "" },
    );
    expect(await system("ses_1")).toEqual(["base", "tool said"]);
  });

  it("a failed or non-JSON reply delivers nothing", async () => {
    const { system, prompt } = await v1([
      neutral("UserPromptSubmit", "x", { command: "cat > /dev/null; echo plain text" }),
      neutral("UserPromptSubmit", "y", { name: "failing", command: "cat > /dev/null; exit 1" }),
    ]);
    await prompt("ses_1");
    expect(await system("ses_1")).toEqual(["base"]);
  });
});

describe("OpenCode 2 (mock host)", () => {
  async function v2(hooks: PluginHook[]) {
    const { plugin } = await loadPlugin(hooks);
    const host = new V2Host(t.dir);
    await host.activate(V2Host.decode({ default: plugin }));
    const context = async (sessionID: string, kind = "primary") =>
      (await host.trigger("session", "context", { sessionID, kind, system: [], messages: [] })).system;
    const prompt = (sessionID: string) =>
      host.trigger("session", "prompt", {
        sessionID,
        messageID: "m",
        prompt: { text: "hi" },
        delivery: "queue",
      });
    return { host, context, prompt };
  }

  it('pushes the context into ctx.session.hook("context") for the agent\'s own requests', async () => {
    const { host, context, prompt } = await v2([
      neutral("SessionStart", "anchor"),
      neutral("UserPromptSubmit", "p"),
    ]);
    expect([...host.callbacks.keys()]).toEqual(expect.arrayContaining(["session.context", "session.prompt"]));
    host.emit("session.created", { info: { id: "ses_2" } });
    await tick();
    await prompt("ses_2");
    expect(await context("ses_2")).toEqual([{ type: "text", text: "anchor\n\np" }]);
    // Title, compaction and generate requests share the session but are not the agent's.
    expect(await context("ses_2", "title")).toEqual([]);
  });

  it("registers a prompt hook for the turns when no native hook needs one", async () => {
    const { host, context, prompt } = await v2([neutral("PreToolUse", "t")]);
    expect([...host.callbacks.keys()].sort()).toEqual([
      "session.context",
      "session.prompt",
      "tool.execute.before",
    ]);
    await prompt("ses_3");
    await host.trigger("tool", "execute.before", { tool: "shell", sessionID: "ses_3", id: "c", input: {} });
    expect(await context("ses_3")).toEqual([{ type: "text", text: "t" }]);
    await prompt("ses_3");
    expect(await context("ses_3")).toEqual([]);
  });
});
