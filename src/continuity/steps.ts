/**
 * The steps of `kanon stage start|done|skip` and `kanon task start|done`: check the gate, fire the
 * stage hooks, then record (a handoff, the waypoint's next revision). A gate that is closed is exit 2
 * with the command that opens it; an `on_failure: error` hook that fails stops the step before it
 * records anything (exit 1).
 */
import type { StageHook } from "../model/config.js";
import { KanonError } from "../model/types.js";
import type { ProjectFiles } from "./files.js";
import { type Fire, fireHooks } from "./stage-hooks.js";
import { gateOf, type Handoff, handoffCommand, readHandoff, stageAfter, writeHandoff } from "./stages.js";
import { readWaypoint, type StageRef, type Waypoint, type Writer, writeWaypoint } from "./waypoint.js";

export interface StepContext {
  files: ProjectFiles;
  stages: StageRef[];
  hooks: readonly StageHook[];
  env: NodeJS.ProcessEnv;
  writer: Writer;
  /** Where the hooks' output goes (kanon's stderr). */
  output: (chunk: Buffer) => void;
  /** A warning line (a `warn` hook that failed). */
  warn: (message: string) => void;
}

export type StepOutcome =
  | { ok: true; waypoint: Waypoint; message: string }
  | { ok: false; code: 2; message: string };

/** A stage's gate: null when open, else the message naming the command that opens it. */
export function closedGate(ctx: StepContext, stage: string, verb: string): string | null {
  const needs = gateOf(ctx.stages, stage);
  if (needs === null || readHandoff(ctx.files, needs) !== null) return null;
  return `stage "${stage}" cannot ${verb}: stage "${needs}" has no handoff; run: ${handoffCommand(needs)} (or kanon stage skip ${needs} --reason "<why>")`;
}

const TASK = /^task \d+ of \d+$/;
const isStage = (ctx: StepContext, segment: string) => ctx.stages.some((s) => s.name === segment);

function pathAtStage(ctx: StepContext, path: readonly string[], stage: string): string[] {
  const i = path.findLastIndex((p) => isStage(ctx, p));
  return i >= 0 ? [...path.slice(0, i), stage] : [...path.filter((p) => !TASK.test(p)), stage];
}

function currentStage(ctx: StepContext, path: readonly string[]): string | null {
  return path.findLast((p) => isStage(ctx, p)) ?? null;
}

function pathAtTask(ctx: StepContext, path: readonly string[], index: number, total: number): string[] {
  const i = path.findLastIndex((p) => isStage(ctx, p));
  const base = i >= 0 ? path.slice(0, i + 1) : path.filter((p) => !TASK.test(p));
  return [...base, `task ${index} of ${total}`];
}

/** Fires the hooks of one edge; throws when an `error` hook failed (nothing is recorded then). */
async function fire(ctx: StepContext, f: Fire, refused: string): Promise<void> {
  const results = await fireHooks(ctx.files, ctx.hooks, f, ctx.env, ctx.output);
  for (const r of results) {
    if (r.outcome === "ok" || r.onFailure === "ignore") continue;
    if (r.onFailure === "error") throw new KanonError(`${r.message}; ${refused}`);
    ctx.warn(r.message!);
  }
}

const stagesOf = (ctx: StepContext) => ctx.stages.map((s) => ({ ...s }));

/** Read without the lock, for the hooks (where the step leads); the write re-reads under the lock. */
const currentPath = (ctx: StepContext): string[] => readWaypoint(ctx.files)?.path ?? [];

export async function stageStart(ctx: StepContext, stage: string): Promise<StepOutcome> {
  const closed = closedGate(ctx, stage, "start");
  if (closed) return { ok: false, code: 2, message: closed };
  const path = pathAtStage(ctx, currentPath(ctx), stage);
  await fire(
    ctx,
    { kind: "stage", edge: "before", stage, index: null, total: null, path },
    `stage "${stage}" not started`,
  );
  const waypoint = writeWaypoint(
    ctx.files,
    (w) => ({
      path: pathAtStage(ctx, w?.path ?? [], stage),
      status: `stage ${stage} in progress`,
      next: `do the ${stage} stage, then: ${handoffCommand(stage)}`,
      stages: stagesOf(ctx),
    }),
    ctx.writer,
  );
  return { ok: true, waypoint, message: `Started stage ${stage} (waypoint revision ${waypoint.revision}).` };
}

export async function stageDone(
  ctx: StepContext,
  stage: string,
  summary: string,
  outputs: string[],
): Promise<StepOutcome> {
  return finishStage(ctx, stage, { summaryForNext: summary, outputs, skipped: false, skipReason: null });
}

export async function stageSkip(ctx: StepContext, stage: string, reason: string): Promise<StepOutcome> {
  return finishStage(ctx, stage, { summaryForNext: null, outputs: [], skipped: true, skipReason: reason });
}

async function finishStage(
  ctx: StepContext,
  stage: string,
  how: Pick<Handoff, "summaryForNext" | "outputs" | "skipped" | "skipReason">,
): Promise<StepOutcome> {
  const closed = closedGate(ctx, stage, how.skipped ? "be skipped" : "be done");
  if (closed) return { ok: false, code: 2, message: closed };
  const path = pathAtStage(ctx, currentPath(ctx), stage);
  // A skipped stage did not run: its hooks do not fire.
  if (!how.skipped)
    await fire(
      ctx,
      { kind: "stage", edge: "after", stage, index: null, total: null, path },
      `stage "${stage}" not recorded as done`,
    );
  const nextStage = stageAfter(ctx.stages, stage);
  const handoff: Handoff = { stage, completedAt: new Date().toISOString(), nextStage, ...how };
  const waypoint = writeWaypoint(
    ctx.files,
    (w) => ({
      path: pathAtStage(ctx, w?.path ?? [], stage),
      status: how.skipped ? `stage ${stage} skipped: ${how.skipReason}` : `stage ${stage} done`,
      next: nextStage ? `kanon stage start ${nextStage}` : "all stages done",
      stages: stagesOf(ctx),
    }),
    ctx.writer,
    () => writeHandoff(ctx.files, handoff),
  );
  return {
    ok: true,
    waypoint,
    message: `${how.skipped ? "Skipped" : "Done:"} stage ${stage}; handoff written to .kanon/handoffs/${stage}.json (waypoint revision ${waypoint.revision}).`,
  };
}

export async function taskStart(ctx: StepContext, index: number, total: number): Promise<StepOutcome> {
  const from = currentPath(ctx);
  const path = pathAtTask(ctx, from, index, total);
  const stage = currentStage(ctx, from);
  await fire(ctx, { kind: "task", edge: "before", stage, index, total, path }, `task ${index} not started`);
  const waypoint = writeWaypoint(
    ctx.files,
    (w) => ({
      path: pathAtTask(ctx, w?.path ?? [], index, total),
      status: `task ${index} of ${total} in progress`,
      next: `finish task ${index}, then: kanon task done ${index} ${total}`,
      stages: stagesOf(ctx),
    }),
    ctx.writer,
  );
  return {
    ok: true,
    waypoint,
    message: `Started task ${index} of ${total} (waypoint revision ${waypoint.revision}).`,
  };
}

export async function taskDone(ctx: StepContext, index: number, total: number): Promise<StepOutcome> {
  const from = currentPath(ctx);
  const path = pathAtTask(ctx, from, index, total);
  const stage = currentStage(ctx, from);
  const refused = `task ${index} not recorded as done`;
  await fire(ctx, { kind: "task", edge: "after", stage, index, total, path }, refused);
  if (index === total) await fire(ctx, { kind: "change", edge: "after", stage, index, total, path }, refused);
  const waypoint = writeWaypoint(
    ctx.files,
    (w) => {
      const at = currentStage(ctx, w?.path ?? []);
      return {
        path: pathAtTask(ctx, w?.path ?? [], index, total),
        status: `task ${index} of ${total} done`,
        next:
          index < total
            ? `kanon task start ${index + 1} ${total}`
            : at
              ? `all ${total} tasks done; ${handoffCommand(at)}`
              : `all ${total} tasks done`,
        stages: stagesOf(ctx),
      };
    },
    ctx.writer,
  );
  return {
    ok: true,
    waypoint,
    message: `Done: task ${index} of ${total} (waypoint revision ${waypoint.revision}).`,
  };
}
