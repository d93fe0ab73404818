/**
 * The generated plugin driven the way OpenCode 1 drives it: `server(input)` returns the hooks object,
 * and OpenCode calls `event` (not awaited), `chat.message`, `tool.execute.before/after` (awaited; a
 * throw from `before` fails that call) and `dispose` (awaited at shutdown).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { PluginHook } from "../../../src/agents/opencode/plugin.js";
import {
  loadPlugin,
  nodeHook,
  recordingPerTest,
  removeTempDirs,
  sq,
  type V1Hooks,
  waitFor,
} from "./helpers.js";

afterAll(removeTempDirs);

const t = recordingPerTest();
const { records, events, logged, hook } = t;

async function v1(hooks: PluginHook[]): Promise<V1Hooks> {
  const { plugin } = await loadPlugin(hooks);
  return plugin.server({ directory: t.dir, worktree: t.dir });
}

/** Whether `pid` still runs: a zombie waiting for its (re)parent to reap it counts as dead. */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[2] !== "Z";
  } catch {
    return true;
  }
};

describe("OpenCode 1: server()", () => {
  it("returns only the hooks the table needs, plus dispose", async () => {
    expect(Object.keys(await v1([hook("PreToolUse")]))).toEqual(["tool.execute.before", "dispose"]);
    expect(Object.keys(await v1([hook("PostToolUse")]))).toEqual(["tool.execute.after", "dispose"]);
    expect(Object.keys(await v1([hook("Stop")]))).toEqual(["event", "chat.message", "dispose"]);
    expect(Object.keys(await v1([hook("UserPromptSubmit")]))).toEqual(["chat.message", "dispose"]);
  });

  it("PreToolUse gets the contract's stdin and runs in the project directory", async () => {
    const h = await v1([
      hook("PreToolUse", { matcher: { names: ["bash"] } }),
      hook("PreToolUse", { name: "where", command: `pwd > ${sq(join(t.dir, "cwd.txt"))}` }),
    ]);
    await h["tool.execute.before"]!(
      { tool: "bash", sessionID: "ses_1", callID: "call_1" },
      { args: { command: "ls -la" } },
    );
    expect(records()).toEqual([
      {
        hook_event_name: "PreToolUse",
        session_id: "ses_1",
        cwd: t.dir,
        tool_name: "bash",
        tool_input: { command: "ls -la" },
        tool_use_id: "call_1",
      },
    ]);
    expect(readFileSync(join(t.dir, "cwd.txt"), "utf8").trim()).toBe(t.dir);
  });

  it("exit 2 on PreToolUse blocks the call with the hook's stderr", async () => {
    const h = await v1([hook("PreToolUse", { command: "echo 'rm is not allowed here' >&2; exit 2" })]);
    await expect(
      h["tool.execute.before"]!(
        { tool: "bash", sessionID: "s", callID: "c" },
        { args: { command: "rm -rf /" } },
      ),
    ).rejects.toThrow(/^rm is not allowed here$/);
  });

  it("exit 2 with empty stderr still blocks, with a message naming the hook", async () => {
    const h = await v1([hook("PreToolUse", { name: "guard", command: "exit 2" })]);
    await expect(h["tool.execute.before"]!({ tool: "bash" }, { args: {} })).rejects.toThrow(
      'Blocked by kanon hook "guard".',
    );
  });

  it("two parallel blocked calls each report their own hook's message", async () => {
    const script = `let s="";process.stdin.on("data",(d)=>{s+=d}).on("end",()=>{const i=JSON.parse(s);setTimeout(()=>{process.stderr.write("blocked: "+i.tool_input.command);process.exit(2)},i.tool_input.delay)})`;
    const h = await v1([hook("PreToolUse", { matcher: { names: ["bash"] }, ...nodeHook(script) })]);
    const call = (id: string, command: string, delay: number) =>
      h["tool.execute.before"]!({ tool: "bash", sessionID: "s", callID: id }, { args: { command, delay } });
    const [a, b] = await Promise.allSettled([call("c1", "rm -rf a", 150), call("c2", "curl b", 0)]);
    expect(a).toMatchObject({ status: "rejected", reason: { message: "blocked: rm -rf a" } });
    expect(b).toMatchObject({ status: "rejected", reason: { message: "blocked: curl b" } });
  });

  it("any other failure is logged and does not block", async () => {
    const h = await v1([
      hook("PreToolUse", { name: "fails", command: "echo boom >&2; exit 1" }),
      hook("PreToolUse", { name: "missing", command: join(t.dir, "no-such-program"), args: [] }),
    ]);
    await expect(h["tool.execute.before"]!({ tool: "bash" }, { args: {} })).resolves.toBeUndefined();
    expect(logged()).toContain('[kanon-hooks] hook "fails" (PreToolUse) exited 1: boom');
    expect(logged()).toMatch(/\[kanon-hooks\] hook "missing" \(PreToolUse\) could not run: .*ENOENT/);
  });

  it("a tool that matches no hook runs nothing", async () => {
    const h = await v1([hook("PreToolUse", { matcher: { names: ["edit", "write"] } })]);
    await h["tool.execute.before"]!({ tool: "bash" }, { args: {} });
    expect(records()).toEqual([]);
  });

  it("regex matchers test the OpenCode tool ID and the neutral names that map to it", async () => {
    const h = await v1([
      hook("PreToolUse", {
        name: "neutral",
        matcher: { regex: "^Bash$" },
        command: `echo neutral >> ${sq(t.log)}.txt`,
      }),
      hook("PreToolUse", {
        name: "native",
        matcher: { regex: "^ba" },
        command: `echo native >> ${sq(t.log)}.txt`,
      }),
      hook("PreToolUse", {
        name: "edits",
        matcher: { regex: "Edit|Write" },
        command: `echo edits >> ${sq(t.log)}.txt`,
      }),
    ]);
    const fired = async (tool: string) => {
      writeFileSync(`${t.log}.txt`, "");
      await h["tool.execute.before"]!({ tool }, { args: {} });
      return readFileSync(`${t.log}.txt`, "utf8").split("\n").filter(Boolean).sort();
    };
    expect(await fired("bash")).toEqual(["native", "neutral"]);
    expect(await fired("shell")).toEqual(["neutral"]);
    expect(await fired("apply_patch")).toEqual(["edits"]);
    expect(await fired("read")).toEqual([]);
  });

  it("an invalid regex disables only its hook, with a log line", async () => {
    const h = await v1([hook("PreToolUse", { name: "bad", matcher: { regex: "(" } }), hook("PreToolUse")]);
    await h["tool.execute.before"]!({ tool: "bash" }, { args: {} });
    expect(events()).toEqual(["PreToolUse"]);
    expect(logged()).toContain('hook "bad" is disabled');
  });

  it("a timeout kills the hook's whole process group and fails open", async () => {
    const pidFile = join(t.dir, "pid");
    const h = await v1([
      hook("PreToolUse", { name: "slow", command: `sleep 30 & echo $! > ${sq(pidFile)}; wait`, timeout: 1 }),
    ]);
    const t0 = Date.now();
    await expect(h["tool.execute.before"]!({ tool: "bash" }, { args: {} })).resolves.toBeUndefined();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(Date.now() - t0).toBeLessThan(2500);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await waitFor(() => !alive(pid), 2000, "the backgrounded sleep to die");
    expect(logged()).toContain('hook "slow" (PreToolUse) timed out after 1 s and was killed');
  });

  it("a hook that ignores SIGTERM gets SIGKILL after the grace period", async () => {
    const pidFile = join(t.dir, "pid");
    const h = await v1([
      hook("PreToolUse", {
        command: `trap '' TERM; sleep 30 & echo $! > ${sq(pidFile)}; wait; sleep 30`,
        timeout: 1,
      }),
    ]);
    const t0 = Date.now();
    await h["tool.execute.before"]!({ tool: "bash" }, { args: {} });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2900);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await waitFor(() => !alive(pid), 2000, "the sleep that ignores SIGTERM to die");
  });

  it("async hooks are started and not awaited, and cannot block", async () => {
    const marker = join(t.dir, "async-done");
    const h = await v1([
      hook("PreToolUse", { command: `sleep 0.5; echo done > ${sq(marker)}; exit 2`, async: true }),
    ]);
    const t0 = Date.now();
    await expect(h["tool.execute.before"]!({ tool: "bash" }, { args: {} })).resolves.toBeUndefined();
    expect(Date.now() - t0).toBeLessThan(300);
    expect(existsSync(marker)).toBe(false);
    await waitFor(() => existsSync(marker), 3000, "the async hook");
    await waitFor(
      () => logged().includes("blocks nothing here (it runs async)"),
      2000,
      "the async hook's log line",
    );
  });

  it("exec form passes args as the argument vector, with no shell", async () => {
    const out = join(t.dir, "argv.json");
    const args = [out, "a b", "it's", "$HOME", "*", '"quoted"', "", "; rm -rf /"];
    const script = `require("node:fs").writeFileSync(process.argv[1], JSON.stringify(process.argv.slice(2)))`;
    const h = await v1([hook("PreToolUse", nodeHook(script, ...args))]);
    await h["tool.execute.before"]!({ tool: "bash" }, { args: {} });
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual(args.slice(1));
  });

  it("a hook that never reads stdin is fine (EPIPE ignored), even with a large input", async () => {
    const h = await v1([hook("PreToolUse", { command: "exit 0" })]);
    const big = "x".repeat(4 * 1024 * 1024);
    await expect(
      h["tool.execute.before"]!({ tool: "write" }, { args: { content: big } }),
    ).resolves.toBeUndefined();
  });

  it("PostToolUse gets tool_input from input.args and OpenCode's result as tool_response", async () => {
    const h = await v1([hook("PostToolUse", { matcher: { names: ["bash", "shell"] } })]);
    await h["tool.execute.after"]!(
      { tool: "bash", sessionID: "s", callID: "c", args: { command: "echo hi" } },
      { title: "echo hi", output: "hi\n", metadata: { exit: 0 } },
    );
    expect(records()).toEqual([
      {
        hook_event_name: "PostToolUse",
        session_id: "s",
        cwd: t.dir,
        tool_name: "bash",
        tool_input: { command: "echo hi" },
        tool_use_id: "c",
        tool_response: { title: "echo hi", output: "hi\n", metadata: { exit: 0 } },
      },
    ]);
  });

  it("UserPromptSubmit gets the prompt text and is observe-only", async () => {
    const h = await v1([
      hook("UserPromptSubmit"),
      hook("UserPromptSubmit", { name: "nope", command: "echo no >&2; exit 2" }),
    ]);
    const parts = [
      { type: "text", text: "fix the bug" },
      { type: "text", text: "injected", synthetic: true },
      { type: "file", url: "file:///x" },
      { type: "text", text: "please" },
    ];
    await expect(h["chat.message"]!({ sessionID: "s" }, { message: {}, parts })).resolves.toBeUndefined();
    expect(records()).toEqual([
      { hook_event_name: "UserPromptSubmit", session_id: "s", cwd: t.dir, prompt: "fix the bug\nplease" },
    ]);
    expect(logged()).toContain('hook "nope" (UserPromptSubmit) exited 2, which blocks nothing here');
  });

  it("SessionStart runs on session.created, before the first prompt's hook", async () => {
    const h = await v1([
      hook("SessionStart", { command: `sleep 0.3; cat >> ${sq(t.log)}` }),
      hook("UserPromptSubmit"),
    ]);
    h.event!({ event: { type: "session.created", properties: { info: { id: "ses_a" } } } });
    await h["chat.message"]!({ sessionID: "ses_a" }, { parts: [{ type: "text", text: "hi" }] });
    expect(records()).toEqual([
      { hook_event_name: "SessionStart", session_id: "ses_a", cwd: t.dir, source: "startup" },
      { hook_event_name: "UserPromptSubmit", session_id: "ses_a", cwd: t.dir, prompt: "hi" },
    ]);
  });

  it("a prompt in a session this process did not see created starts it as resume", async () => {
    const h = await v1([hook("SessionStart", { matcher: { names: ["resume"] } })]);
    await h["chat.message"]!({ sessionID: "old" }, { parts: [] });
    await h["chat.message"]!({ sessionID: "old" }, { parts: [] });
    expect(records()).toEqual([
      { hook_event_name: "SessionStart", session_id: "old", cwd: t.dir, source: "resume" },
    ]);
  });

  it("Stop fires once per turn and dispose waits for it", async () => {
    const h = await v1([hook("Stop", { command: `sleep 0.5; cat >> ${sq(t.log)}` })]);
    const bus = (type: string, properties: object) => h.event!({ event: { type, properties } });
    for (let turn = 0; turn < 2; turn++) {
      bus("session.status", { sessionID: "s", status: { type: "busy" } });
      bus("session.status", { sessionID: "s", status: { type: "idle" } });
      bus("session.idle", { sessionID: "s" });
    }
    expect(records()).toEqual([]);
    await h.dispose!();
    expect(records()).toEqual([
      { hook_event_name: "Stop", session_id: "s", cwd: t.dir },
      { hook_event_name: "Stop", session_id: "s", cwd: t.dir },
    ]);
  });

  it("an aborted turn fires Interrupt and no Stop; a failed turn fires neither", async () => {
    const h = await v1([hook("Stop"), hook("Interrupt")]);
    const bus = (type: string, properties: object) => h.event!({ event: { type, properties } });
    bus("session.status", { sessionID: "s", status: { type: "busy" } });
    bus("session.error", { sessionID: "s", error: { name: "MessageAbortedError", data: {} } });
    bus("session.status", { sessionID: "s", status: { type: "idle" } });
    bus("session.idle", { sessionID: "s" });
    bus("session.status", { sessionID: "s", status: { type: "busy" } });
    bus("session.error", { sessionID: "s", error: { name: "APIError", data: {} } });
    bus("session.idle", { sessionID: "s" });
    await h.dispose!();
    expect(events()).toEqual(["Interrupt"]);
  });

  it("subagent sessions get no SessionStart, prompt or Stop hooks", async () => {
    const h = await v1([hook("SessionStart"), hook("UserPromptSubmit"), hook("Stop")]);
    const bus = (type: string, properties: object) => h.event!({ event: { type, properties } });
    bus("session.created", { info: { id: "child", parentID: "parent" } });
    await h["chat.message"]!({ sessionID: "child" }, { parts: [{ type: "text", text: "subtask" }] });
    bus("session.status", { sessionID: "child", status: { type: "busy" } });
    bus("session.idle", { sessionID: "child" });
    await h.dispose!();
    expect(records()).toEqual([]);
  });

  it("PostCompact reads the trigger from the compaction part", async () => {
    const h = await v1([hook("PostCompact", { matcher: { names: ["auto"] } })]);
    const bus = (type: string, properties: object) => h.event!({ event: { type, properties } });
    bus("session.compacted", { sessionID: "s" }); // no compaction seen starting: nothing to report
    bus("message.part.updated", { part: { type: "compaction", auto: false, sessionID: "s" } });
    bus("session.compacted", { sessionID: "s" });
    bus("message.part.updated", { part: { type: "compaction", auto: true, sessionID: "s" } });
    bus("session.compacted", { sessionID: "s" });
    await h.dispose!();
    expect(records()).toEqual([
      { hook_event_name: "PostCompact", session_id: "s", cwd: t.dir, trigger: "auto" },
    ]);
  });

  it("event never throws, whatever OpenCode sends", async () => {
    const h = await v1([hook("Stop")]);
    for (const e of [
      undefined,
      null,
      42,
      { type: 7 },
      { type: "session.idle" },
      { type: "session.idle", properties: null },
    ]) {
      expect(() => h.event!({ event: e })).not.toThrow();
    }
    expect(() => h.event!(undefined as never)).not.toThrow();
  });

  it("setup() after server() registers nothing: 1.18's reduced context, or even a full one", async () => {
    const { plugin } = await loadPlugin([hook("PreToolUse"), hook("Stop")]);
    await plugin.server({ directory: t.dir });
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
    const hookFn = vi.fn(async () => ({ dispose: async () => {} }));
    const full = {
      location: { directory: t.dir },
      tool: { hook: hookFn },
      session: { hook: hookFn },
      event: { subscribe: vi.fn() },
    };
    expect(await plugin.setup(full)).toBeUndefined();
    expect(hookFn).not.toHaveBeenCalled();
    expect(full.event.subscribe).not.toHaveBeenCalled();
  });
});
