/**
 * Stage gates in every order: a stage starts, is done or is skipped only when the nearest earlier
 * required stage has a handoff; a closed gate is exit 2 with the command that opens it and records
 * nothing; done and skip write the handoff and move the waypoint.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { projectFiles } from "../../src/continuity/files.js";
import { gateOf, readHandoff, stageList } from "../../src/continuity/stages.js";
import {
  type StepContext,
  stageDone,
  stageSkip,
  stageStart,
  taskDone,
  taskStart,
} from "../../src/continuity/steps.js";
import type { StageRef } from "../../src/continuity/waypoint.js";
import { readWaypoint, writeWaypoint } from "../../src/continuity/waypoint.js";
import { projectPerTest } from "./helpers.js";

const p = projectPerTest();

function context(root: string, stages: StageRef[]): StepContext {
  return {
    files: projectFiles(root),
    stages,
    hooks: [],
    env: {},
    writer: { agent: null, session: null },
    output: () => {},
    warn: () => {},
  };
}

describe("stage gates", () => {
  it("hold in every order of start, done and skip, for any stage list", async () => {
    const stages = fc
      .array(fc.boolean(), { minLength: 1, maxLength: 5 })
      .map((optional) => optional.map((o, i) => ({ name: `s${i}`, optional: o })));
    const ops = fc.array(
      fc.record({ op: fc.constantFrom("start", "done", "skip"), stage: fc.nat({ max: 4 }) }),
      { maxLength: 12 },
    );
    await fc.assert(
      fc.asyncProperty(stages, ops, async (list, steps) => {
        const root = mkdtempSync(join(tmpdir(), "kanon-gates-"));
        try {
          const ctx = context(root, list);
          const handoffs = new Set<string>();
          let revision = 0;
          for (const { op, stage: i } of steps) {
            const stage = list[i % list.length]!.name;
            const gate = gateOf(list, stage);
            const open = gate === null || handoffs.has(gate);
            const outcome =
              op === "start"
                ? await stageStart(ctx, stage)
                : op === "done"
                  ? await stageDone(ctx, stage, `summary of ${stage}`, [])
                  : await stageSkip(ctx, stage, `no need for ${stage}`);
            expect(outcome.ok).toBe(open);
            if (!outcome.ok) {
              expect(outcome.code).toBe(2);
              expect(outcome.message).toContain(
                `stage "${gate}" has no handoff; run: kanon stage done ${gate} --summary`,
              );
              expect(readWaypoint(ctx.files)?.revision ?? 0).toBe(revision);
              continue;
            }
            revision++;
            expect(outcome.waypoint.revision).toBe(revision);
            expect(outcome.waypoint.path.at(-1)).toBe(stage);
            if (op !== "start") {
              handoffs.add(stage);
              expect(readHandoff(ctx.files, stage)).toMatchObject({ stage, skipped: op === "skip" });
            }
          }
          const written = existsSync(ctx.files.handoffs)
            ? readdirSync(ctx.files.handoffs).map((f) => f.replace(/\.json$/, ""))
            : [];
          expect(written.sort()).toEqual([...handoffs].sort());
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it("let the first stage start without a handoff, and skip optional stages in the gate", () => {
    const stages = stageList(["assess", "plan", { name: "analyze", optional: true }, "execute"]);
    expect(gateOf(stages, "assess")).toBeNull();
    expect(gateOf(stages, "analyze")).toBe("plan");
    expect(gateOf(stages, "execute")).toBe("plan");
  });

  it("default to assess, plan, execute, reflect", () => {
    expect(stageList(undefined).map((s) => s.name)).toEqual(["assess", "plan", "execute", "reflect"]);
  });
});

describe("handoffs", () => {
  it("carry stage, completedAt, outputs, nextStage, summaryForNext, skipped and skipReason", async () => {
    const ctx = context(p.dir, stageList(undefined));
    await stageDone(ctx, "assess", "the bug is in the parser", ["notes.md"]);
    const written = JSON.parse(readFileSync(join(ctx.files.handoffs, "assess.json"), "utf8"));
    expect(written).toEqual({
      stage: "assess",
      completedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      outputs: ["notes.md"],
      nextStage: "plan",
      summaryForNext: "the bug is in the parser",
      skipped: false,
      skipReason: null,
    });
    await stageSkip(ctx, "plan", "one obvious change");
    expect(JSON.parse(readFileSync(join(ctx.files.handoffs, "plan.json"), "utf8"))).toMatchObject({
      nextStage: "execute",
      summaryForNext: null,
      skipped: true,
      skipReason: "one obvious change",
    });
  });

  it("move the waypoint: done points at the next stage, the last stage says all are done", async () => {
    const ctx = context(p.dir, stageList(["plan", "execute"]));
    const started = await stageStart(ctx, "plan");
    expect(started.ok && started.waypoint).toMatchObject({
      path: ["plan"],
      status: "stage plan in progress",
      stages: [
        { name: "plan", optional: false },
        { name: "execute", optional: false },
      ],
    });
    const done = await stageDone(ctx, "plan", "s", []);
    expect(done.ok && done.waypoint).toMatchObject({
      status: "stage plan done",
      next: "kanon stage start execute",
    });
    const last = await stageDone(ctx, "execute", "s", []);
    expect(last.ok && last.waypoint).toMatchObject({ path: ["execute"], next: "all stages done" });
  });

  it("keep the waypoint's outer path and replace its stage and task", async () => {
    const ctx = context(p.dir, stageList(["plan", "execute"]));
    await stageStart(ctx, "plan");
    writeWaypoint(ctx.files, () => ({ path: ["release-2", "plan"] }), ctx.writer);
    await stageDone(ctx, "plan", "s", []);
    await stageStart(ctx, "execute");
    const task = await taskStart(ctx, 1, 2);
    expect(task.ok && task.waypoint.path).toEqual(["release-2", "execute", "task 1 of 2"]);
    const next = await taskDone(ctx, 1, 2);
    expect(next.ok && next.waypoint).toMatchObject({
      path: ["release-2", "execute", "task 1 of 2"],
      status: "task 1 of 2 done",
      next: "kanon task start 2 2",
    });
    await taskStart(ctx, 2, 2);
    const last = await taskDone(ctx, 2, 2);
    expect(last.ok && last.waypoint.next).toBe(
      'all 2 tasks done; kanon stage done execute --summary "<what the next stage needs to know>"',
    );
    const again = await stageStart(ctx, "plan");
    expect(again.ok && again.waypoint.path).toEqual(["release-2", "plan"]);
  });
});
