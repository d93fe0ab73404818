/**
 * kanon's continuity built-ins in the runner file kanon writes: the re-anchor block and the
 * position line through each agent's channel, the pause marker written before the runner reads its
 * input (and kept whatever happens after), Stop staying quiet, and the agent and session passed to a
 * neutral hook's command (the writer `kanon waypoint set` records). The file's `runHook` runs in
 * this process; what needs the process an agent starts (stdin still open, the environment the
 * command inherits) runs the file with node.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { AGENTS } from "../../src/agents/index.js";
import { projectFiles } from "../../src/continuity/files.js";
import { writeWaypoint } from "../../src/continuity/waypoint.js";
import { RUNNER_ENVIRONMENT } from "../../src/core/hooks/envelope.js";
import { runnerText } from "../../src/runner/file.js";
import { inProcessRunner } from "../support/runner.js";

const dir = mkdtempSync(join(tmpdir(), "kanon-continuity-runner-"));
const runner = join(dir, "hook-runner.mjs");
const project = join(dir, "project");
const files = projectFiles(project);
writeFileSync(
  runner,
  runnerText(
    AGENTS.map((a) => a.manifest),
    join(dir, "state"),
  ),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(join(dir, "state"), { recursive: true, force: true });
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(join(project, "src"));
});

const native = (event: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ session_id: "s-1", cwd: join(project, "src"), hook_event_name: event, ...extra });

/** The runner's `runHook`, in this process (the pause test and the last one run the file with node). */
const runHook = await inProcessRunner(runner);
function run(agent: string, event: string, builtin: string, input: string, max = "4800") {
  const args = [agent, event, `kanon/${builtin}`, "--max", max, "--timeout", "10", "--builtin", builtin];
  return runHook(args, { input, cwd: join(project, "src") });
}

const waypoint = () =>
  writeWaypoint(files, () => ({ path: ["p1", "execute"], status: "in progress", next: "fix the parser" }), {
    agent: null,
    session: null,
  });
const BLOCK =
  /^\[kanon\] Where the work stands: waypoint revision 1 \(\S+\)\nPath: p1 > execute\nStatus: in progress\nNext: fix the parser\n$/;
const LINE = "kanon waypoint r1: p1 > execute | in progress | next: fix the parser\n";

describe("re-anchor and position through each agent's channel", () => {
  it("Claude, Codex and Gemini: additionalContext at SessionStart and on the prompt", async () => {
    waypoint();
    for (const [agent, start, prompt] of [
      ["claude", "SessionStart", "UserPromptSubmit"],
      ["codex", "SessionStart", "UserPromptSubmit"],
      ["gemini", "SessionStart", "BeforeAgent"],
    ] as const) {
      const s = await run(agent, "SessionStart", "reanchor", native(start, { source: "startup" }));
      expect(s.code, agent).toBe(0);
      const out = JSON.parse(s.stdout).hookSpecificOutput;
      expect(out.hookEventName).toBe(start);
      expect(out.additionalContext).toMatch(BLOCK);
      const p = await run(agent, "UserPromptSubmit", "position", native(prompt, { prompt: "go on" }), "300");
      expect(JSON.parse(p.stdout).hookSpecificOutput.additionalContext).toBe(LINE);
    }
  });

  it("OpenCode: the plugin's context reply", async () => {
    waypoint();
    const s = await run("opencode", "PostCompact", "reanchor", native("PostCompact", { trigger: "auto" }));
    expect(JSON.parse(s.stdout).context).toMatch(BLOCK);
  });

  it("Kimi: kept at SessionStart and PostCompact, delivered once with the next prompt", async () => {
    waypoint();
    expect((await run("kimi", "SessionStart", "reanchor", native("SessionStart"))).stdout).toBe("");
    const carried = await run(
      "kimi",
      "UserPromptSubmit",
      "carry",
      native("UserPromptSubmit", { prompt: [] }),
      "9600",
    );
    expect(carried.stdout).toMatch(BLOCK);
    expect((await run("kimi", "UserPromptSubmit", "carry", native("UserPromptSubmit"))).stdout).toBe("");
    expect(
      (await run("kimi", "UserPromptSubmit", "position", native("UserPromptSubmit"), "300")).stdout,
    ).toBe(LINE);
  });

  it("give nothing without a waypoint, or when it cannot be read, and exit 0", async () => {
    expect(await run("claude", "SessionStart", "reanchor", native("SessionStart"))).toMatchObject({
      code: 0,
      stdout: "",
    });
    mkdirSync(files.dir);
    writeFileSync(files.waypoint, "{ not json");
    expect(await run("claude", "SessionStart", "reanchor", native("SessionStart"))).toMatchObject({
      code: 0,
      stdout: "",
    });
    expect(await run("claude", "UserPromptSubmit", "position", native("UserPromptSubmit"))).toMatchObject({
      code: 0,
      stdout: "",
    });
  });

  it("bound the block at --max, at a line boundary", async () => {
    writeWaypoint(files, () => ({ path: ["p"], next: "n".repeat(150), why: "w".repeat(150) }), {
      agent: null,
      session: null,
    });
    const s = await run("claude", "SessionStart", "reanchor", native("SessionStart"), "300");
    const context: string = JSON.parse(s.stdout).hookSpecificOutput.additionalContext;
    expect([...context].length).toBeLessThanOrEqual(300);
    expect(context).toMatch(/\n\[kanon\] \d+ more characters cut \(kanon waypoint show\)\n$/);
  });
});

describe("pause on interrupt", () => {
  it("writes .kanon/PAUSE before the runner reads its input, then adds the reason", async () => {
    mkdirSync(files.dir);
    const args = [
      runner,
      "kimi",
      "Interrupt",
      "kanon/pause",
      "--max",
      "1",
      "--timeout",
      "10",
      "--builtin",
      "pause",
    ];
    const child = spawn(process.execPath, args, {
      cwd: join(project, "src"),
      stdio: ["pipe", "pipe", "pipe"],
    });
    // The agent has not written its payload yet: the marker must already be there.
    await expect.poll(() => existsSync(files.pause), { timeout: 10_000, interval: 20 }).toBe(true);
    expect(JSON.parse(readFileSync(files.pause, "utf8"))).toMatchObject({ reason: null, agent: "kimi" });
    child.stdin.end(native("Interrupt", { reason: "cancelled" }));
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(JSON.parse(readFileSync(files.pause, "utf8"))).toEqual({
      requestedAt: expect.any(String),
      reason: "cancelled",
      agent: "kimi",
    });
  });

  it("keeps the marker whatever the rest of the hook meets: input that is not JSON, a broken waypoint", async () => {
    mkdirSync(files.dir);
    writeFileSync(files.waypoint, "{ not json");
    const r = await run("codex", "Interrupt", "pause", "not json at all");
    expect(r).toMatchObject({ code: 0, stdout: "", stderr: "" });
    expect(JSON.parse(readFileSync(files.pause, "utf8"))).toMatchObject({ agent: "codex", reason: null });
  });

  it("makes the next re-anchor start with the pause banner", async () => {
    waypoint();
    await run("opencode", "Interrupt", "pause", native("Interrupt"));
    const s = await run("claude", "SessionStart", "reanchor", native("SessionStart"));
    expect(JSON.parse(s.stdout).hookSpecificOutput.additionalContext).toMatch(
      /^\[kanon\] PAUSED: the operator interrupted the work in opencode at \S+\. Tools remain available/,
    );
  });
});

describe("Stop", () => {
  it("prints nothing and exits 0, paused or not", async () => {
    waypoint();
    expect(await run("claude", "Stop", "stop", native("Stop", { stop_hook_active: false }))).toMatchObject({
      code: 0,
      stdout: "",
      stderr: "",
    });
    await run("codex", "Interrupt", "pause", native("Interrupt"));
    expect(await run("codex", "Stop", "stop", native("Stop"))).toMatchObject({ code: 0, stdout: "" });
  });
});

describe("a neutral hook's command", () => {
  it("gets KANON_AGENT and KANON_SESSION_ID", async () => {
    const args = [runner, "codex", "UserPromptSubmit", "who", "--max", "4800", "--timeout", "10"];
    const r = spawnSync(process.execPath, [...args, "--sh", 'echo "$KANON_AGENT $KANON_SESSION_ID"'], {
      input: native("UserPromptSubmit", { prompt: "x" }),
      encoding: "utf8",
      cwd: project,
    });
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toBe("codex s-1");
  });

  it("gets exactly the KANON_ variables that validation counts on (RUNNER_ENVIRONMENT)", () => {
    const args = [runner, "codex", "UserPromptSubmit", "env", "--max", "4800", "--timeout", "10"];
    const r = spawnSync(process.execPath, [...args, "--sh", "env | grep ^KANON_ | cut -d= -f1 | sort"], {
      input: native("UserPromptSubmit", { prompt: "x" }),
      encoding: "utf8",
      cwd: project,
      env: { PATH: process.env.PATH },
    });
    const names = JSON.parse(r.stdout).hookSpecificOutput.additionalContext.split("\n");
    expect(names).toEqual([...RUNNER_ENVIRONMENT].sort());
  });
});
