/**
 * Stage hooks: which edges they match, the KANON_HOOK_* variables, timeouts (the whole process group
 * goes), on_failure, change:after on the last task, and the event log under parallel fires.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { type Fire, fireHooks, matches } from "../../src/continuity/stage-hooks.js";
import { readHandoff, stageList } from "../../src/continuity/stages.js";
import { type StepContext, stageDone, stageStart, taskDone, taskStart } from "../../src/continuity/steps.js";
import { readWaypoint } from "../../src/continuity/waypoint.js";
import type { StageHook } from "../../src/model/config.js";
import { projectPerTest, runWorkers } from "./helpers.js";

const p = projectPerTest();

function context(hooks: StageHook[], warnings: string[] = [], output: string[] = []): StepContext {
  return {
    files: p.files,
    stages: stageList(["plan", "execute"]),
    hooks,
    env: { PATH: process.env.PATH },
    writer: { agent: null, session: null },
    output: (chunk) => output.push(chunk.toString()),
    warn: (m) => warnings.push(m),
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const events = () =>
  existsSync(p.files.events)
    ? readFileSync(p.files.events, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

const stageFire = (stage: string, edge: "before" | "after"): Fire => ({
  kind: "stage",
  edge,
  stage,
  index: null,
  total: null,
  path: [stage],
});
const taskFire = (edge: "before" | "after", kind: "task" | "change" = "task"): Fire => ({
  kind,
  edge,
  stage: "execute",
  index: 2,
  total: 2,
  path: ["execute", "task 2 of 2"],
});

describe("matching", () => {
  it.each([
    ["plan:before", stageFire("plan", "before"), true],
    ["plan:before", stageFire("plan", "after"), false],
    ["plan:before", stageFire("execute", "before"), false],
    ["plan:*", stageFire("plan", "after"), true],
    ["*:before", stageFire("execute", "before"), true],
    ["*:before", taskFire("before"), true],
    ["*:*", taskFire("after", "change"), true],
    ["task:after", taskFire("after"), true],
    ["task:after", taskFire("after", "change"), false],
    ["change:after", taskFire("after", "change"), true],
    ["execute:after", taskFire("after"), false],
  ])("%s on %o: %s", (on, fire, expected) => {
    expect(matches(on, fire)).toBe(expected);
  });
});

describe("running", () => {
  it("runs in the project root with the KANON_HOOK_* variables, output to kanon's stderr", async () => {
    const output: string[] = [];
    const ctx = context(
      [
        {
          on: "*:*",
          command: 'env | grep "^KANON_" | sort > "env-$KANON_HOOK_EVENT"; echo hello; echo oops >&2',
        },
      ],
      [],
      output,
    );
    await stageStart(ctx, "plan");
    await taskStart(ctx, 2, 2);
    expect(readFileSync(join(p.dir, "env-plan:before"), "utf8")).toBe(
      [
        "KANON_HOOK_EDGE=before",
        "KANON_HOOK_EVENT=plan:before",
        "KANON_HOOK_INDEX=",
        "KANON_HOOK_KIND=stage",
        "KANON_HOOK_NAME=plan",
        "KANON_HOOK_PATH=plan",
        "KANON_HOOK_TOTAL=",
        `KANON_PROJECT_ROOT=${p.dir}`,
        "",
      ].join("\n"),
    );
    expect(readFileSync(join(p.dir, "env-task:before"), "utf8")).toContain(
      [
        "KANON_HOOK_INDEX=2",
        "KANON_HOOK_KIND=task",
        "KANON_HOOK_NAME=plan",
        "KANON_HOOK_PATH=plan/task 2 of 2",
      ].join("\n"),
    );
    expect(output.join("")).toContain("hello\n");
    expect(output.join("")).toContain("oops\n");
  });

  it("fires change:after once, after the task:after of the last task", async () => {
    const ctx = context([
      { on: "task:after", command: 'echo "task $KANON_HOOK_INDEX" >> fired' },
      { on: "change:after", command: "echo change >> fired" },
    ]);
    await taskDone(ctx, 1, 2);
    await taskDone(ctx, 2, 2);
    expect(readFileSync(join(p.dir, "fired"), "utf8")).toBe("task 1\ntask 2\nchange\n");
  });

  it("kills a hook that outlives its timeout, with everything it started", async () => {
    const warnings: string[] = [];
    const ctx = context(
      [{ on: "plan:before", command: "sleep 60 & echo $! > child.pid; wait", timeout: 1 }],
      warnings,
    );
    const started = Date.now();
    const outcome = await stageStart(ctx, "plan");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(outcome.ok).toBe(true);
    expect(warnings).toEqual(['stage hook "stage_hooks[0]" (plan:before) timed out after 1 s']);
    const pid = Number(readFileSync(join(p.dir, "child.pid"), "utf8"));
    await expect.poll(() => alive(pid), { timeout: 3000 }).toBe(false);
    expect(events()[0]).toMatchObject({ event: "plan:before", outcome: "timeout", onFailure: "warn" });
  });

  it("gives a hook without timeout 15 s", async () => {
    // Only setTimeout is faked: the hook's process and its pipes run for real.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let results: Awaited<ReturnType<typeof fireHooks>> | undefined;
      void fireHooks(
        p.files,
        [{ on: "plan:before", command: "sleep 60" }],
        stageFire("plan", "before"),
        {},
        () => {},
      ).then((r) => {
        results = r;
      });
      /** Lets real events (the child's exit, its pipes closing) arrive for `ms` of real time. */
      const settle = async (ms: number) => {
        const end = Date.now() + ms;
        while (results === undefined && Date.now() < end) await new Promise((r) => setImmediate(r));
      };
      vi.advanceTimersByTime(14_999);
      await settle(300);
      expect(results).toBeUndefined();
      vi.advanceTimersByTime(1);
      for (let i = 0; i < 50 && results === undefined; i++) {
        await settle(100);
        vi.advanceTimersByTime(200);
      }
      expect(results).toMatchObject([
        { outcome: "timeout", message: 'stage hook "stage_hooks[0]" (plan:before) timed out after 15 s' },
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("kills a hook that ignores SIGTERM", async () => {
    const warnings: string[] = [];
    const ctx = context([{ on: "plan:before", command: "trap '' TERM; sleep 60", timeout: 1 }], warnings);
    const started = Date.now();
    await stageStart(ctx, "plan");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(warnings[0]).toMatch(/timed out after 1 s/);
  });

  it("on_failure warn (the default): a warning, and the step goes on", async () => {
    const warnings: string[] = [];
    const ctx = context([{ name: "lint", on: "plan:after", command: "exit 3" }], warnings);
    const outcome = await stageDone(ctx, "plan", "s", []);
    expect(outcome.ok).toBe(true);
    expect(warnings).toEqual(['stage hook "lint" (plan:after) failed: exit 3']);
    expect(readHandoff(p.files, "plan")).not.toBeNull();
  });

  it("on_failure error: the step stops before it records anything", async () => {
    const warnings: string[] = [];
    const ctx = context(
      [{ name: "tests", on: "plan:after", command: "exit 1", on_failure: "error" }],
      warnings,
    );
    await expect(stageDone(ctx, "plan", "s", [])).rejects.toThrow(
      'stage hook "tests" (plan:after) failed: exit 1; stage "plan" not recorded as done',
    );
    expect(readHandoff(p.files, "plan")).toBeNull();
    expect(readWaypoint(p.files)).toBeNull();
    await expect(
      stageStart(context([{ on: "plan:before", command: "false", on_failure: "error" }]), "plan"),
    ).rejects.toThrow('stage "plan" not started');
    await expect(
      taskDone(context([{ on: "change:after", command: "false", on_failure: "error" }]), 1, 1),
    ).rejects.toThrow("task 1 not recorded as done");
    expect(readWaypoint(p.files)).toBeNull();
    expect(events().map((e) => e.outcome)).toEqual(["failed", "failed", "failed"]);
  });

  it("on_failure error stops the hooks after it; ignore says nothing", async () => {
    const warnings: string[] = [];
    const ctx = context(
      [
        { on: "plan:before", command: "false", on_failure: "ignore" },
        { on: "plan:before", command: "false", on_failure: "error" },
        { on: "plan:before", command: "touch never" },
      ],
      warnings,
    );
    await expect(stageStart(ctx, "plan")).rejects.toThrow();
    expect(warnings).toEqual([]);
    expect(existsSync(join(p.dir, "never"))).toBe(false);
  });

  it("skips disabled hooks", async () => {
    await stageStart(context([{ on: "plan:before", command: "touch ran", enabled: false }]), "plan");
    expect(existsSync(join(p.dir, "ran"))).toBe(false);
    expect(events()).toEqual([]);
  });

  it("logs every run as one JSON line", async () => {
    await fireHooks(
      p.files,
      [{ name: "a", on: "*:after", command: "true" }],
      taskFire("after"),
      {},
      () => {},
    );
    expect(events()).toEqual([
      {
        at: expect.any(String),
        event: "task:after",
        kind: "task",
        edge: "after",
        name: "execute",
        index: 2,
        total: 2,
        path: ["execute", "task 2 of 2"],
        hook: "a",
        outcome: "ok",
        exit: 0,
        signal: null,
        durationMs: expect.any(Number),
        onFailure: "warn",
      },
    ]);
  });

  it("keeps every line whole when several processes fire at once", async () => {
    const processes = 4;
    const fires = 15;
    await runWorkers(processes, () => ["fire", p.dir, String(fires)]);
    const lines = readFileSync(p.files.events, "utf8").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines).toHaveLength(processes * fires);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ event: "task:after", outcome: "ok" });
    expect(existsSync(p.files.eventsLock)).toBe(false);
  }, 60_000);
});
