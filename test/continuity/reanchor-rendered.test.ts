/**
 * The re-anchor after compaction, as the agents run it: `continuity: {reanchor: true}` applied in
 * project scope (Kimi Code, which has no project hooks, in user scope), a waypoint written with
 * `kanon waypoint set`, then the hook commands kanon wrote into each agent's own file (read back,
 * test/support/agent-hooks.ts) run as the agent runs them after it compacted a session in the
 * project: Claude Code and Codex fire SessionStart again with source "compact", OpenCode publishes
 * session.compacted to kanon's plugin, Kimi Code fires PostCompact (whose output it ignores) and
 * then, with the next prompt, UserPromptSubmit. Each must hand the model the re-anchor block, in
 * its own context form. Gemini CLI has no event after compaction: nothing is rendered for one.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  type AgentCall,
  type CommandAgent,
  hookSandbox,
  openCode1,
  runEvent,
} from "../support/agent-hooks.js";

const h = hookSandbox();
const { s, project } = h;

beforeAll(async () => {
  const yaml =
    "version: 1\nagents: [claude, codex, opencode, gemini, kimi]\ncontinuity: { reanchor: true }\n";
  for (const scope of [
    ["--project", project],
    ["--agent", "kimi"],
  ]) {
    const apply = await h.apply(yaml, scope);
    expect(apply, apply.stderr).toMatchObject({ status: 0, stderr: "" });
  }
  const set = [
    "waypoint",
    "set",
    "--path",
    "p1/execute",
    "--status",
    "in progress",
    "--next",
    "fix the parser",
  ];
  expect((await s.run(set, { cwd: project })).status).toBe(0);
});

const BLOCK =
  /^\[kanon\] Where the work stands: waypoint revision 1 \(\S+\)\nPath: p1 > execute\nStatus: in progress\nNext: fix the parser\n$/;

/** The agent's hooks in the project; Kimi Code's in user scope (it has no project hooks). */
const hooksOf = (agent: CommandAgent) => h.hooks(agent, agent === "kimi" ? "user" : "project");

/** The agent's recorded stdin for `event`, made the one it sends after compacting the session. */
const call = (agent: string, event: string, after: Record<string, unknown>): AgentCall =>
  h.call(agent, event, after);

/** The contexts the runs hand the model: every non-empty additionalContext. */
const additionalContexts = (runs: { code: number | null; stdout: string }[]) =>
  runs
    .filter((r) => r.code === 0 && r.stdout !== "")
    .map((r) => JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string);

describe("after compaction, the re-anchor block reaches the model", () => {
  for (const agent of ["claude", "codex"] as const) {
    it(`${agent}: SessionStart with source compact, as hookSpecificOutput.additionalContext`, async () => {
      const hooks = hooksOf(agent);
      expect(hooks.filter((h) => h.name === "kanon/reanchor").map((h) => [h.event, h.matcher])).toEqual([
        ["SessionStart", null],
      ]);
      const compact = call(agent, "SessionStart", { source: "compact" });
      const runs = await runEvent(agent, hooks, "SessionStart", "compact", compact);
      expect(runs.every((r) => r.code === 0)).toBe(true);
      const [context, ...rest] = additionalContexts(runs);
      expect(rest).toEqual([]);
      expect(context).toMatch(BLOCK);
      expect(JSON.parse(runs.find((r) => r.stdout !== "")!.stdout).hookSpecificOutput.hookEventName).toBe(
        "SessionStart",
      );
    });
  }

  it("opencode: the plugin puts it into the system prompt of the session's next request", async () => {
    const oc = await openCode1(h.hookFile("opencode", "project"), project);
    const session = "ses_compacted";
    // OpenCode 1 reports a compaction by its part, then session.compacted.
    oc.event("message.part.updated", { part: { type: "compaction", sessionID: session, auto: true } });
    oc.event("session.compacted", { sessionID: session });
    await expect.poll(() => oc.system(session), { timeout: 10_000, interval: 50 }).toHaveLength(1);
    const [context] = await oc.system(session);
    await oc.dispose();
    expect(context).toMatch(BLOCK);
  });

  it("kimi: PostCompact keeps it, the next prompt's kanon/carry delivers it as stdout", async () => {
    const hooks = hooksOf("kimi");
    const session = { session_id: "session_compacted" };
    const compacted = await runEvent("kimi", hooks, "PostCompact", undefined, {
      ...call("kimi", "SessionStart", session),
      // Kimi's PostCompact stdin: the common fields, then trigger and estimated_token_count.
      stdin: {
        hook_event_name: "PostCompact",
        session_id: session.session_id,
        cwd: project,
        client_type: "kimi_code_cli",
        trigger: "auto",
        estimated_token_count: 1200,
      },
    });
    expect(compacted.map((r) => [r.name, r.code, r.stdout])).toEqual([["kanon/reanchor-compact", 0, ""]]);
    const prompt = await runEvent(
      "kimi",
      hooks,
      "UserPromptSubmit",
      undefined,
      call("kimi", "UserPromptSubmit", session),
    );
    const delivered = prompt.filter((r) => r.code === 0 && r.stdout !== "");
    expect(delivered.map((r) => r.name)).toEqual(["kanon/carry"]);
    expect(delivered[0]!.stdout).toMatch(BLOCK);
  });

  it("gemini: nothing is rendered after compaction (it has no such event); SessionStart re-anchors", async () => {
    const hooks = hooksOf("gemini");
    expect(hooks.filter((h) => h.name?.startsWith("kanon/reanchor")).map((h) => [h.event, h.name])).toEqual([
      ["SessionStart", "kanon/reanchor"],
    ]);
    const runs = await runEvent(
      "gemini",
      hooks,
      "SessionStart",
      "startup",
      call("gemini", "SessionStart", {}),
    );
    expect(additionalContexts(runs)).toEqual([expect.stringMatching(BLOCK)]);
  });
});
