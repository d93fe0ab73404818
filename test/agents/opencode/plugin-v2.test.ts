/**
 * The generated plugin driven the way OpenCode 2 drives it: decoded as `{ id, setup }`, activated with
 * a context, its hooks triggered through `ctx.tool.hook` / `ctx.session.hook` and its events fed
 * through `ctx.event.subscribe()` (see v2-host.ts for what the stand-in host is based on).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PluginHook } from "../../../src/agents/opencode/plugin.js";
import { type LoadedPlugin, loadPlugin, nodeHook, recordingPerTest, removeTempDirs, sq } from "./helpers.js";
import { V2Host } from "./v2-host.js";

afterAll(removeTempDirs);

const t = recordingPerTest();
const { records, events, logged, hook } = t;

async function v2(hooks: PluginHook[]): Promise<{ host: V2Host; plugin: LoadedPlugin }> {
  const { plugin } = await loadPlugin(hooks);
  const host = new V2Host(t.dir);
  await host.activate(V2Host.decode({ default: plugin }));
  return { host, plugin };
}

/** Lets the plugin's event loop take what was emitted. */
const tick = () => new Promise((r) => setTimeout(r, 20));

const preTool = (host: V2Host, id: string, tool: string, input: object) =>
  host.trigger("tool", "execute.before", {
    tool,
    sessionID: "ses_2",
    agent: "build",
    messageID: "msg_1",
    id,
    input,
  });

describe("OpenCode 2: setup(ctx)", () => {
  it("decodes as { id, setup } with nothing else exported", async () => {
    const { plugin, text } = await loadPlugin([]);
    expect(V2Host.decode({ default: plugin }).id).toBe("kanon-hooks");
    expect(text).not.toMatch(/^export (?!default)/m);
  });

  it("registers only the hooks the table needs", async () => {
    const { host } = await v2([hook("PreToolUse")]);
    expect([...host.callbacks.keys()]).toEqual(["tool.execute.before"]);
    expect(host.streams).toHaveLength(0);
    const b = await v2([hook("Stop")]);
    expect([...b.host.callbacks.keys()]).toEqual(["session.prompt"]);
    expect(b.host.streams).toHaveLength(1);
  });

  it("PreToolUse: the shell tool arrives as shell, with OpenCode 2's input as is", async () => {
    const { host } = await v2([hook("PreToolUse", { matcher: { names: ["bash", "shell"] } })]);
    await preTool(host, "call_9", "shell", { command: "ls", workdir: "." });
    await preTool(host, "call_10", "read", { path: "x" });
    expect(records()).toEqual([
      {
        hook_event_name: "PreToolUse",
        session_id: "ses_2",
        cwd: t.dir,
        tool_name: "shell",
        tool_input: { command: "ls", workdir: "." },
        tool_use_id: "call_9",
      },
    ]);
  });

  it("runs hooks in ctx.location.directory, not process.cwd()", async () => {
    const { host } = await v2([hook("PreToolUse", { command: `pwd > ${sq(join(t.dir, "cwd.txt"))}` })]);
    await preTool(host, "c", "shell", {});
    expect(readFileSync(join(t.dir, "cwd.txt"), "utf8").trim()).toBe(t.dir);
    expect(process.cwd()).not.toBe(t.dir);
  });

  it("exit 2 rejects the call with the hook's stderr; parallel calls each get their own", async () => {
    const script = `let s="";process.stdin.on("data",(d)=>{s+=d}).on("end",()=>{const i=JSON.parse(s);if(i.tool_input.command==="ls")process.exit(0);setTimeout(()=>{process.stderr.write("no "+i.tool_input.command);process.exit(2)},i.tool_input.delay)})`;
    const { host } = await v2([hook("PreToolUse", nodeHook(script))]);
    const [a, b, c] = await Promise.allSettled([
      preTool(host, "c1", "shell", { command: "rm -rf a", delay: 150 }),
      preTool(host, "c2", "shell", { command: "curl b", delay: 0 }),
      preTool(host, "c3", "shell", { command: "ls", delay: 0 }),
    ]);
    expect(a).toMatchObject({ status: "rejected", reason: { message: "no rm -rf a" } });
    expect(b).toMatchObject({ status: "rejected", reason: { message: "no curl b" } });
    expect(c).toMatchObject({ status: "fulfilled" });
  });

  it("other failures fail open", async () => {
    const { host } = await v2([hook("PreToolUse", { name: "x", command: "exit 3" })]);
    await expect(preTool(host, "c", "shell", {})).resolves.toBeDefined();
    expect(logged()).toContain('hook "x" (PreToolUse) exited 3');
  });

  it("PostToolUse fires for completed calls only, with the result as tool_response", async () => {
    const { host } = await v2([hook("PostToolUse")]);
    const base = {
      tool: "shell",
      sessionID: "s",
      agent: "build",
      messageID: "m",
      id: "c",
      input: { command: "x" },
    };
    await host.trigger("tool", "execute.after", { ...base, status: "error", error: new Error("failed") });
    await host.trigger("tool", "execute.after", {
      ...base,
      status: "completed",
      result: { content: [], output: "ok" },
    });
    expect(records()).toEqual([
      {
        hook_event_name: "PostToolUse",
        session_id: "s",
        cwd: t.dir,
        tool_name: "shell",
        tool_input: { command: "x" },
        tool_use_id: "c",
        tool_response: { content: [], output: "ok" },
      },
    ]);
  });

  it("execute.after never throws, even when the result cannot be serialised", async () => {
    const { host } = await v2([hook("PostToolUse", { command: "exit 1" })]);
    const result: Record<string, unknown> = { n: 10n };
    result.self = result;
    await expect(
      host.trigger("tool", "execute.after", {
        tool: "read",
        sessionID: "s",
        id: "c",
        input: {},
        status: "completed",
        result,
      }),
    ).resolves.toBeDefined();
  });

  it("UserPromptSubmit reads ev.prompt.text and never rejects", async () => {
    const { host } = await v2([
      hook("UserPromptSubmit"),
      hook("UserPromptSubmit", { name: "no", command: "exit 2" }),
    ]);
    const ev = {
      sessionID: "s",
      messageID: "m",
      prompt: { text: "add tests", files: [], agents: [], skills: [] },
      delivery: "queue",
    };
    await expect(host.trigger("session", "prompt", ev)).resolves.toBe(ev);
    expect(records()).toEqual([
      { hook_event_name: "UserPromptSubmit", session_id: "s", cwd: t.dir, prompt: "add tests" },
    ]);
  });

  it("events: SessionStart, one Stop per turn whatever mix of end events arrives", async () => {
    const { host } = await v2([hook("SessionStart"), hook("Stop")]);
    host.emit("session.created", { sessionID: "s", info: { id: "s" } });
    for (const ends of [
      ["session.execution.succeeded", "session.status", "session.idle"],
      ["session.next.execution.succeeded"],
      ["session.idle"],
    ]) {
      host.emit("session.execution.started", { sessionID: "s" });
      for (const type of ends) host.emit(type, { sessionID: "s", status: { type: "idle" } });
    }
    await tick();
    await host.unload();
    // The hooks run as parallel processes: compare what ran, not the order they appended in.
    const byEvent = (a: Record<string, unknown>, b: Record<string, unknown>) =>
      String(a.hook_event_name).localeCompare(String(b.hook_event_name));
    expect(records().sort(byEvent)).toEqual([
      { hook_event_name: "SessionStart", session_id: "s", cwd: t.dir, source: "startup" },
      { hook_event_name: "Stop", session_id: "s", cwd: t.dir },
      { hook_event_name: "Stop", session_id: "s", cwd: t.dir },
      { hook_event_name: "Stop", session_id: "s", cwd: t.dir },
    ]);
  });

  it("a prompt marks a turn as running when the stream carries no start event", async () => {
    const { host } = await v2([hook("Stop")]);
    await host.trigger("session", "prompt", { sessionID: "s", prompt: { text: "x" } });
    host.emit("session.idle", { sessionID: "s" });
    host.emit("session.idle", { sessionID: "s" });
    await tick();
    await host.unload();
    expect(events()).toEqual(["Stop"]);
  });

  it("an interrupt by the user fires Interrupt, not Stop; other interruptions fire nothing", async () => {
    const { host } = await v2([hook("Stop"), hook("Interrupt")]);
    host.emit("session.execution.started", { sessionID: "s" });
    host.emit("session.execution.interrupted", { sessionID: "s", reason: "user" });
    host.emit("session.idle", { sessionID: "s" });
    host.emit("session.execution.started", { sessionID: "s" });
    host.emit("session.execution.interrupted", { sessionID: "s", reason: "superseded" });
    host.emit("session.idle", { sessionID: "s" });
    host.emit("session.execution.started", { sessionID: "s" });
    host.emit("session.execution.failed", { sessionID: "s", error: { type: "x" } });
    host.emit("session.idle", { sessionID: "s" });
    await tick();
    await host.unload();
    expect(events()).toEqual(["Interrupt"]);
  });

  it("PostCompact takes the trigger from the event, once per compaction, in either spelling", async () => {
    const { host } = await v2([hook("PostCompact")]);
    host.emit("session.compaction.started", { sessionID: "s", reason: "manual", recent: "" });
    host.emit("session.compaction.ended", { sessionID: "s", reason: "manual", text: "", recent: "" });
    host.emit("session.compacted", { sessionID: "s" }); // the legacy event for the same compaction
    host.emit("session.next.compaction.started", { sessionID: "s", reason: "auto", recent: "" });
    host.emit("session.next.compaction.ended", { sessionID: "s", reason: "auto", text: "", recent: "" });
    await tick();
    await host.unload();
    expect(records().sort((a, b) => String(a.trigger).localeCompare(String(b.trigger)))).toEqual([
      { hook_event_name: "PostCompact", session_id: "s", cwd: t.dir, trigger: "auto" },
      { hook_event_name: "PostCompact", session_id: "s", cwd: t.dir, trigger: "manual" },
    ]);
  });

  it("a PostCompact matcher selects the trigger", async () => {
    const { host } = await v2([hook("PostCompact", { matcher: { names: ["manual"] } })]);
    host.emit("session.compaction.ended", { sessionID: "s", reason: "auto", text: "", recent: "" });
    host.emit("session.compaction.ended", { sessionID: "s", reason: "manual", text: "", recent: "" });
    await tick();
    await host.unload();
    expect(records().map((r) => r.trigger)).toEqual(["manual"]);
  });

  it("ignores events from other locations and tolerates malformed ones", async () => {
    const { host } = await v2([hook("SessionStart")]);
    host.emit("session.created", { info: { id: "elsewhere" } }, { directory: "/somewhere/else" });
    for (const junk of [
      null,
      42,
      "x",
      {},
      { type: "session.created" },
      { type: "session.created", data: null },
    ]) {
      host.streams[0]!.push(junk);
    }
    host.emit("session.created", { info: { id: "here" } }, undefined);
    await tick();
    await host.unload();
    expect(records().map((r) => r.session_id)).toEqual(["here"]);
  });

  it("setup with the same context twice registers once", async () => {
    const { plugin } = await loadPlugin([hook("PreToolUse"), hook("Stop")]);
    const host = new V2Host(t.dir);
    await host.activate(plugin);
    expect(await plugin.setup(host.ctx)).toBeUndefined();
    expect(host.registrations).toBe(2);
    expect(host.streams).toHaveLength(1);
  });

  it("setup survives a context without the domains it uses, and hosts whose registration fails", async () => {
    const { plugin } = await loadPlugin([hook("PreToolUse"), hook("UserPromptSubmit"), hook("Stop")]);
    const reduced = {
      options: {},
      agent: {},
      aisdk: {},
      catalog: {},
      command: {},
      integration: {},
      plugin: {},
      reference: {},
      skill: {},
    };
    expect(await plugin.setup(reduced)).toBeUndefined();
    const failing = {
      location: { directory: t.dir },
      tool: { hook: async () => Promise.reject(new Error("no such hook")) },
      session: {
        hook: () => {
          throw new Error("nope");
        },
      },
      event: {
        subscribe: () => {
          throw new Error("no events");
        },
      },
    };
    const cleanup = await plugin.setup(failing);
    expect(typeof cleanup).toBe("function");
    await cleanup!();
    expect(logged()).toContain("could not register execute.before: no such hook");
    expect(logged()).toContain("could not register prompt: nope");
  });

  it("cleanup closes the event stream, waits for running hooks, and leaves the callbacks inert", async () => {
    const { host } = await v2([
      hook("Stop", { command: `sleep 0.4; cat >> ${sq(t.log)}` }),
      hook("PreToolUse"),
    ]);
    host.emit("session.execution.started", { sessionID: "s" });
    host.emit("session.execution.succeeded", { sessionID: "s" });
    await tick();
    await host.unload();
    expect(events()).toEqual(["Stop"]);
    expect(host.streams[0]!.closed).toBe(true);
    await preTool(host, "c", "shell", {});
    expect(events()).toEqual(["Stop"]);
  });

  it("once OpenCode 1's server() has run in the process, OpenCode 2 callbacks do nothing", async () => {
    const { host, plugin } = await v2([hook("PreToolUse")]);
    const v1 = await plugin.server({ directory: t.dir });
    await preTool(host, "c", "shell", {});
    expect(records()).toEqual([]);
    await v1["tool.execute.before"]!({ tool: "bash", sessionID: "s", callID: "c" }, { args: {} });
    expect(events()).toEqual(["PreToolUse"]);
  });

  it("a SessionStart hook runs before the prompt hook of the same session", async () => {
    const { host } = await v2([
      hook("SessionStart", { command: `sleep 0.3; cat >> ${sq(t.log)}` }),
      hook("UserPromptSubmit"),
    ]);
    host.emit("session.created", { sessionID: "s", info: { id: "s" } });
    await tick();
    await host.trigger("session", "prompt", { sessionID: "s", prompt: { text: "go" } });
    expect(events()).toEqual(["SessionStart", "UserPromptSubmit"]);
  });
});
