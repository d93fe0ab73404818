/**
 * Stages and their gates. `stages:` in kanon.yaml lists them in order (default assess → plan →
 * execute → reflect), each required unless `optional: true`. A stage may start (or be done or
 * skipped) only when the nearest earlier required stage has a handoff, which `kanon stage done` and
 * `kanon stage skip` write to `.kanon/handoffs/<stage>.json`: the summary the next stage reads first.
 * Harness hooks fail open; this gate fails closed (exit 2) and prints the command that opens it.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { StageEntry } from "../model/config.js";
import { KanonError } from "../model/types.js";
import { type ProjectFiles, readSmallFile, shown, writeAtomic } from "./files.js";
import type { StageRef } from "./waypoint.js";

export const DEFAULT_STAGES: readonly StageRef[] = ["assess", "plan", "execute", "reflect"].map((name) => ({
  name,
  optional: false,
}));

/** Stage names are file names (`handoffs/<stage>.json`) and words on a command line. */
export const STAGE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Kinds of stage hook events that are not stages. */
export const RESERVED_STAGE_NAMES: ReadonlySet<string> = new Set(["task", "change"]);

export function stageList(entries: readonly StageEntry[] | undefined): StageRef[] {
  if (!entries || entries.length === 0) return DEFAULT_STAGES.map((s) => ({ ...s }));
  return entries.map((e) =>
    typeof e === "string"
      ? { name: e, optional: false }
      : { name: e.name ?? "", optional: e.optional === true },
  );
}

export interface Handoff {
  stage: string;
  completedAt: string;
  /** Artifact paths, relative to the project root when inside it. */
  outputs: string[];
  nextStage: string | null;
  summaryForNext: string | null;
  skipped: boolean;
  skipReason: string | null;
}

const handoffPath = (files: ProjectFiles, stage: string) => join(files.handoffs, `${stage}.json`);

export function readHandoff(files: ProjectFiles, stage: string): Handoff | null {
  const path = handoffPath(files, stage);
  const text = readSmallFile(path);
  if (text === null) return null;
  let h: Record<string, unknown>;
  try {
    h = JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new KanonError(
      `${shown(files, path)}: not valid JSON (${(e as Error).message}); fix it or delete it`,
    );
  }
  if (
    typeof h !== "object" ||
    h === null ||
    h.stage !== stage ||
    typeof h.completedAt !== "string" ||
    typeof h.skipped !== "boolean"
  )
    throw new KanonError(
      `${shown(files, path)}: not a kanon handoff of stage "${stage}"; fix it or delete it`,
    );
  const str = (v: unknown) => (typeof v === "string" ? v : null);
  return {
    stage,
    completedAt: h.completedAt,
    outputs: Array.isArray(h.outputs) ? h.outputs.filter((o): o is string => typeof o === "string") : [],
    nextStage: str(h.nextStage),
    summaryForNext: str(h.summaryForNext),
    skipped: h.skipped,
    skipReason: str(h.skipReason),
  };
}

export function writeHandoff(files: ProjectFiles, handoff: Handoff): void {
  writeAtomic(handoffPath(files, handoff.stage), `${JSON.stringify(handoff, null, 2)}\n`);
}

/** The handoffs of the listed stages that exist, in stage order (unreadable ones are left out). */
export function readHandoffs(files: ProjectFiles, stages: readonly StageRef[]): Handoff[] {
  let present: Set<string>;
  try {
    present = new Set(readdirSync(files.handoffs));
  } catch {
    return [];
  }
  return stages.flatMap((s) => {
    if (!present.has(`${s.name}.json`)) return [];
    try {
      const h = readHandoff(files, s.name);
      return h ? [h] : [];
    } catch {
      return [];
    }
  });
}

/** The stage after `stage` in the list, or null for the last one. */
export function stageAfter(stages: readonly StageRef[], stage: string): string | null {
  const i = stages.findIndex((s) => s.name === stage);
  return stages[i + 1]?.name ?? null;
}

/** The nearest earlier required stage, whose handoff `stage` needs; null for a stage that needs none. */
export function gateOf(stages: readonly StageRef[], stage: string): string | null {
  const i = stages.findIndex((s) => s.name === stage);
  for (let j = i - 1; j >= 0; j--) if (!stages[j]!.optional) return stages[j]!.name;
  return null;
}

/** The command that writes the handoff `stage` waits for. */
export const handoffCommand = (stage: string): string =>
  `kanon stage done ${stage} --summary "<what the next stage needs to know>"`;
