/**
 * The re-anchor block and the position line: what they say, that the block is within its bound and
 * cut at a line boundary, that it is empty without a waypoint, and that a pause comes first.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BLOCK_MAX,
  boundLines,
  type ContinuityState,
  positionLine,
  readState,
  reanchorBlock,
} from "../../src/continuity/block.js";
import { writePause } from "../../src/continuity/pause.js";
import { stageList } from "../../src/continuity/stages.js";
import { type StepContext, stageDone, stageSkip } from "../../src/continuity/steps.js";
import { POSITION_MAX, positionOf, type Waypoint, writeWaypoint } from "../../src/continuity/waypoint.js";
import { projectPerTest } from "./helpers.js";

const p = projectPerTest();
const cli = { agent: null, session: null };
const codePoints = (s: string) => Array.from(s).length;

const waypoint = (fields: Partial<Waypoint> = {}): Waypoint => ({
  schema: 1,
  revision: 7,
  updatedAt: "2026-05-01T10:00:00.000Z",
  writer: { agent: "codex", session: "s-1" },
  path: ["phase-1", "execute", "task 3 of 5"],
  status: "in progress",
  next: "make the parser tests pass",
  why: null,
  ...fields,
});
const state = (w: Waypoint | null, extra: Partial<ContinuityState> = {}): ContinuityState => ({
  waypoint: w,
  pause: null,
  handoffs: [],
  ...extra,
});

describe("the re-anchor block", () => {
  it("says the revision, path, status and exact next work", () => {
    expect(reanchorBlock(state(waypoint({ why: "the release needs it" })))).toBe(
      [
        "[kanon] Where the work stands: waypoint revision 7 (2026-05-01T10:00:00.000Z, written by codex (session s-1))",
        "Path: phase-1 > execute > task 3 of 5",
        "Status: in progress",
        "Next: make the parser tests pass",
        "Why: the release needs it",
        "",
      ].join("\n"),
    );
  });

  it("is empty without a waypoint, and for a cleared one, paused or not", () => {
    const pause = { requestedAt: "t", reason: null, agent: "codex" };
    expect(reanchorBlock(state(null))).toBe("");
    expect(reanchorBlock(state(null, { pause }))).toBe("");
    expect(reanchorBlock(state(waypoint({ path: [], status: null, next: null })))).toBe("");
  });

  it("starts with the pause banner when the work is paused", () => {
    const block = reanchorBlock(
      state(waypoint(), {
        pause: { requestedAt: "2026-05-01T11:00:00Z", reason: "cancelled", agent: "kimi" },
      }),
    );
    expect(block.split("\n")[0]).toBe(
      "[kanon] PAUSED: the operator interrupted the work in kimi at 2026-05-01T11:00:00Z (cancelled). Tools remain available, but do not go on with the work below until the operator says so; `kanon waypoint resume` ends the pause.",
    );
    expect(block.split("\n")[1]).toMatch(/^\[kanon\] Where the work stands/);
  });

  it("names the latest handoff, the stages and the open gate", async () => {
    const ctx: StepContext = {
      files: p.files,
      stages: stageList(["assess", "plan", { name: "analyze", optional: true }, "execute"]),
      hooks: [],
      env: {},
      writer: cli,
      output: () => {},
      warn: () => {},
    };
    await stageSkip(ctx, "assess", "a small fix");
    await stageDone(ctx, "plan", "two tasks; the risky one first", ["plan.md"]);
    const block = reanchorBlock(readState(p.files));
    expect(block).toMatch(/^Last handoff: plan, done \S+: two tasks; the risky one first$/m);
    expect(block).toContain("Stages: assess skipped, plan done, analyze to do (optional), execute to do\n");
    expect(block).toContain("Open gates: up to execute, the last required stage\n");
  });

  it("says which stage waits for which handoff", () => {
    const stages = stageList(["plan", "execute", "reflect"]);
    const handoff = (stage: string) => ({
      stage,
      completedAt: "2026-05-01T10:00:00.000Z",
      outputs: [],
      nextStage: null,
      summaryForNext: "s",
      skipped: false,
      skipReason: null,
    });
    const gates = (done: string[]) =>
      reanchorBlock(state(waypoint({ stages }), { handoffs: done.map(handoff) }))
        .split("\n")
        .find((l) => l.startsWith("Open gates"));
    expect(gates([])).toBe(
      'Open gates: up to plan; execute waits for: kanon stage done plan --summary "<what the next stage needs to know>"',
    );
    expect(gates(["plan"])).toBe(
      'Open gates: up to execute; reflect waits for: kanon stage done execute --summary "<what the next stage needs to know>"',
    );
    expect(gates(["plan", "execute", "reflect"])).toBe(
      "Open gates: all (every required stage has its handoff)",
    );
  });

  it("keeps a long field from crowding out the others, and stays within the default bound", () => {
    const block = reanchorBlock(state(waypoint({ why: "w".repeat(20_000), next: "n".repeat(20_000) })));
    expect(codePoints(block)).toBeLessThanOrEqual(BLOCK_MAX);
    expect(block).toMatch(/^Path: /m);
    expect(block).toMatch(/^Status: in progress$/m);
    expect(block).toMatch(/^Next: n+…$/m);
  });

  it("is within any bound, a prefix of whole lines, whatever the waypoint holds", () => {
    const text = fc.string({ unit: "grapheme", maxLength: 3000 });
    fc.assert(
      fc.property(
        fc.record({ next: text, status: text, why: text, path: fc.array(text, { maxLength: 5 }) }),
        fc.integer({ min: 300, max: 10_000 }),
        (fields, max) => {
          const full = reanchorBlock(state(waypoint(fields)), Number.POSITIVE_INFINITY);
          const block = reanchorBlock(state(waypoint(fields)), max);
          expect(codePoints(block)).toBeLessThanOrEqual(max);
          expectLinePrefix(block, full);
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** `cut` is whole lines of `full` from its start, then at most one closing line saying what was cut. */
function expectLinePrefix(cut: string, full: string) {
  if (cut === full) return;
  const closing = /\[kanon\] \d+ more characters cut \(kanon waypoint show\)\n$/;
  const kept = cut.replace(closing, "");
  expect(full.startsWith(kept)).toBe(true);
  expect(kept === "" || kept.endsWith("\n")).toBe(true);
}

describe("boundLines", () => {
  it("returns text within the bound as is", () => {
    expect(boundLines("a\nb\n", 4)).toBe("a\nb\n");
  });

  it("cuts at the last line boundary under the bound and says how much was cut", () => {
    const text = `${"a".repeat(40)}\n${"b".repeat(40)}\n${"c".repeat(40)}\n`;
    const cut = boundLines(text, 100);
    expect(cut).toBe(`${"a".repeat(40)}\n[kanon] 82 more characters cut (kanon waypoint show)\n`);
  });

  it("counts characters, not bytes or UTF-16 units", () => {
    const text = `${"語".repeat(50)}\n${"😀".repeat(50)}\n`;
    expect(boundLines(text, 102)).toBe(text);
    expect(codePoints(boundLines(text, 101))).toBeLessThanOrEqual(101);
  });

  it("holds for any text and any bound: within the bound, a prefix of whole lines", () => {
    const lines = fc.array(fc.string({ unit: "grapheme", maxLength: 80 }), { maxLength: 20 });
    fc.assert(
      fc.property(lines, fc.boolean(), fc.integer({ min: 0, max: 600 }), (ls, newline, max) => {
        const text = ls.join("\n") + (newline ? "\n" : "");
        const cut = boundLines(text, max);
        expect(codePoints(cut)).toBeLessThanOrEqual(max);
        expectLinePrefix(cut, text);
      }),
      { numRuns: 500 },
    );
  });
});

describe("the position line", () => {
  it("is one line with revision, path, status and next work", () => {
    expect(positionOf(waypoint())).toBe(
      "kanon waypoint r7: phase-1 > execute > task 3 of 5 | in progress | next: make the parser tests pass",
    );
  });

  it("is at most 300 characters on one line, whatever the waypoint holds", () => {
    fc.assert(
      fc.property(
        fc.record({
          next: fc.string({ unit: "grapheme", maxLength: 1000 }),
          path: fc.array(fc.string(), { maxLength: 40 }),
        }),
        (fields) => {
          const line = positionOf(waypoint(fields));
          expect(codePoints(line)).toBeLessThanOrEqual(POSITION_MAX);
          expect(line).not.toMatch(/[\n\r]/);
        },
      ),
    );
  });

  it("is empty without a waypoint, and starts with PAUSED when paused", () => {
    expect(positionLine(p.files, readState(p.files))).toBe("");
    writeWaypoint(p.files, () => ({ next: "go on" }), cli);
    writePause(p.files, null, "codex");
    expect(positionLine(p.files, readState(p.files))).toBe(
      "PAUSED | kanon waypoint r1: (no path) | next: go on",
    );
  });
});
