/**
 * `kanon waypoint`, `kanon stage` and `kanon task`: the project's continuity files under
 * `<project root>/.kanon/` (--project, else the nearest folder with `.kanon` or `.git` at or above the
 * working directory). The stage order
 * and stage hooks come from kanon.yaml when there is one (defaults otherwise).
 */
import { statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { AGENT_IDS } from "../../agents/index.js";
import { BLOCK_MAX, positionLine, readState, reanchorBlock } from "../../continuity/block.js";
import { findProjectRoot, type ProjectFiles, projectFiles } from "../../continuity/files.js";
import { clearPause, writePause } from "../../continuity/pause.js";
import { gateOf, readHandoffs, stageList } from "../../continuity/stages.js";
import {
  type StepContext,
  type StepOutcome,
  stageDone,
  stageSkip,
  stageStart,
  taskDone,
  taskStart,
} from "../../continuity/steps.js";
import {
  clearWaypoint,
  type StageRef,
  type WaypointChange,
  writerFromEnv,
  writeWaypoint,
} from "../../continuity/waypoint.js";
import type { KanonConfig } from "../../model/config.js";
import { KanonError } from "../../model/types.js";
import { locator } from "../../source/decode.js";
import { closest } from "../../source/did-you-mean.js";
import { ConfigMissingError, loadConfig } from "../../source/load.js";
import { continuityErrors } from "../../source/validate-continuity.js";
import { err, type GlobalFlags, type Io, out, warn } from "../context.js";
import { pathsOf } from "../pipeline.js";

/** The project's continuity files: --project, else the project root of the working directory. */
function project(flags: GlobalFlags, io: Io): ProjectFiles {
  if (flags.project) {
    const dir = resolve(io.cwd, flags.project);
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      // reported below
    }
    if (!isDir) throw new KanonError(`--project ${flags.project}: not a directory`);
    return projectFiles(dir);
  }
  const root = findProjectRoot(io.cwd);
  if (!root)
    throw new KanonError(
      `no project at or above ${io.cwd} (no .kanon or .git folder): run kanon in a project, or pass --project DIR`,
    );
  return projectFiles(root);
}

/** kanon.yaml's continuity settings, validated; null when there is no kanon.yaml (defaults apply). */
async function continuityConfig(flags: GlobalFlags, io: Io): Promise<KanonConfig | null> {
  let loaded: Awaited<ReturnType<typeof loadConfig>>;
  try {
    loaded = await loadConfig(pathsOf(flags, io), AGENT_IDS);
  } catch (e) {
    if (e instanceof ConfigMissingError) return null;
    throw e;
  }
  warn(io, loaded.warnings);
  if (continuityErrors(loaded.config, () => "").length > 0) {
    const locate = locator(loaded.text, loaded.label);
    throw new KanonError(continuityErrors(loaded.config, (...path) => `${locate(path)}: `).join("\n"));
  }
  return loaded.config;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters refused
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** A text option: no control characters other than newline and tab. */
function text(option: string, value: unknown): string {
  const s = String(value);
  if (CONTROL.test(s)) throw new KanonError(`${option}: control characters are not allowed`);
  return s;
}

/** `--path phase-1/execute/task-3` → its segments; "" clears the path. */
function pathOption(value: string): string[] {
  const path = text("--path", value);
  if (path.trim() === "") return [];
  const segments = path.split("/").map((p) => p.trim());
  if (segments.some((p) => p === ""))
    throw new KanonError(`--path ${JSON.stringify(path)}: empty segment (separate segments with one /)`);
  return segments;
}

const textOrNull = (option: string, v: unknown) => {
  const s = text(option, v);
  return s.trim() === "" ? null : s;
};

export function waypointSet(
  flags: GlobalFlags,
  opts: { path?: string; status?: string; next?: string; why?: string },
  io: Io,
): void {
  const change: WaypointChange = {};
  if (opts.path !== undefined) change.path = pathOption(opts.path);
  if (opts.status !== undefined) change.status = textOrNull("--status", opts.status);
  if (opts.next !== undefined) change.next = textOrNull("--next", opts.next);
  if (opts.why !== undefined) change.why = textOrNull("--why", opts.why);
  if (Object.keys(change).length === 0)
    throw new KanonError("kanon waypoint set: nothing to set; give --path, --status, --next or --why");
  const files = project(flags, io);
  const w = writeWaypoint(files, () => change, writerFromEnv(io.env));
  out(io, `Waypoint revision ${w.revision} written to .kanon/waypoint.json.\n`);
}

export async function waypointShow(
  flags: GlobalFlags,
  opts: { json?: boolean; block?: boolean; position?: boolean },
  io: Io,
): Promise<void> {
  const files = project(flags, io);
  const state = readState(files);
  if (opts.json) {
    const w = state.waypoint;
    // What a script reads (`jq .next`) at the top level; the whole waypoint stays under `waypoint`.
    const top = {
      revision: w?.revision ?? null,
      path: w?.path ?? [],
      status: w?.status ?? null,
      next: w?.next ?? null,
      why: w?.why ?? null,
    };
    out(io, `${JSON.stringify({ root: files.root, ...top, ...state }, null, 2)}\n`);
    return;
  }
  if (opts.position) {
    const line = positionLine(files, state);
    if (line) out(io, `${line}\n`);
    return;
  }
  if (opts.block) {
    const config = await continuityConfig(flags, io);
    out(io, reanchorBlock(state, config?.continuity?.max_chars ?? BLOCK_MAX));
    return;
  }
  const block = reanchorBlock(state, Number.POSITIVE_INFINITY);
  out(
    io,
    block ||
      `No waypoint in ${files.root}${state.pause ? " (paused)" : ""}; kanon waypoint set --next "<the next piece of work>" records one.\n`,
  );
}

export function waypointClear(flags: GlobalFlags, io: Io): void {
  const w = clearWaypoint(project(flags, io), writerFromEnv(io.env));
  out(io, `Waypoint cleared (revision ${w.revision}).\n`);
}

export function waypointPause(flags: GlobalFlags, opts: { reason?: string }, io: Io): void {
  const files = project(flags, io);
  const reason = opts.reason === undefined ? null : textOrNull("--reason", opts.reason);
  writePause(files, reason, writerFromEnv(io.env).agent);
  out(
    io,
    "Paused: wrote .kanon/PAUSE; the next re-anchor starts with a pause banner (kanon waypoint resume ends it).\n",
  );
}

export function waypointResume(flags: GlobalFlags, io: Io): void {
  const pause = clearPause(project(flags, io));
  out(
    io,
    pause
      ? `Resumed: removed .kanon/PAUSE (paused at ${pause.requestedAt}${pause.agent ? ` in ${pause.agent}` : ""}).\n`
      : "Not paused.\n",
  );
}

// --- stage and task ----------------------------------------------------------------------------------

async function stepContext(flags: GlobalFlags, io: Io): Promise<StepContext> {
  const config = await continuityConfig(flags, io);
  return {
    files: project(flags, io),
    stages: stageList(config?.stages),
    hooks: config?.stage_hooks ?? [],
    env: io.env,
    writer: writerFromEnv(io.env),
    output: (chunk) => err(io, chunk),
    warn: (m) => warn(io, [m]),
  };
}

function knownStage(stages: readonly StageRef[], stage: string): string {
  const names = stages.map((s) => s.name);
  if (names.includes(stage)) return stage;
  const hint = closest(stage, names);
  throw new KanonError(
    `unknown stage "${stage}"${hint ? ` (did you mean "${hint}"?)` : ""}; stages: ${names.join(", ")}`,
  );
}

function report(io: Io, outcome: StepOutcome): number {
  if (!outcome.ok) {
    err(io, `${outcome.message}\n`);
    return outcome.code;
  }
  out(io, `${outcome.message}\n`);
  return 0;
}

export async function stageStartCommand(flags: GlobalFlags, stage: string, io: Io): Promise<number> {
  const ctx = await stepContext(flags, io);
  return report(io, await stageStart(ctx, knownStage(ctx.stages, stage)));
}

export async function stageDoneCommand(
  flags: GlobalFlags,
  stage: string,
  opts: { summary?: string; artifact?: string[] },
  io: Io,
): Promise<number> {
  const ctx = await stepContext(flags, io);
  knownStage(ctx.stages, stage);
  const summary = opts.summary === undefined ? null : textOrNull("--summary", opts.summary);
  if (summary === null)
    throw new KanonError(
      `kanon stage done ${stage}: --summary "<what the next stage needs to know>" is required`,
    );
  const outputs = (opts.artifact ?? []).map((a) => artifact(ctx.files, io, a));
  return report(io, await stageDone(ctx, stage, summary, outputs));
}

/** An artifact path that exists, relative to the project root when inside it. */
function artifact(files: ProjectFiles, io: Io, path: string): string {
  const abs = resolve(io.cwd, text("--artifact", path));
  try {
    statSync(abs);
  } catch {
    throw new KanonError(`--artifact ${path}: no such file or directory`);
  }
  const rel = relative(files.root, abs);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
}

export async function stageSkipCommand(
  flags: GlobalFlags,
  stage: string,
  opts: { reason?: string },
  io: Io,
): Promise<number> {
  const ctx = await stepContext(flags, io);
  knownStage(ctx.stages, stage);
  const reason = opts.reason === undefined ? null : textOrNull("--reason", opts.reason);
  if (reason === null) throw new KanonError(`kanon stage skip ${stage}: --reason "<why>" is required`);
  return report(io, await stageSkip(ctx, stage, reason));
}

export async function stageListCommand(flags: GlobalFlags, opts: { json?: boolean }, io: Io): Promise<void> {
  const ctx = await stepContext(flags, io);
  const handoffs = new Map(readHandoffs(ctx.files, ctx.stages).map((h) => [h.stage, h]));
  const rows = ctx.stages.map((s) => ({
    name: s.name,
    optional: s.optional,
    waitsFor: gateOf(ctx.stages, s.name),
    handoff: handoffs.get(s.name) ?? null,
  }));
  if (opts.json) {
    out(io, `${JSON.stringify({ root: ctx.files.root, stages: rows }, null, 2)}\n`);
    return;
  }
  const width = Math.max(...rows.map((r) => r.name.length));
  let lines = "";
  for (const r of rows) {
    const h = r.handoff;
    const state = h ? `${h.skipped ? "skipped" : "done"} ${h.completedAt}` : "open";
    const gate = !h && r.waitsFor && !handoffs.has(r.waitsFor) ? ` (waits for ${r.waitsFor})` : "";
    lines += `${r.name.padEnd(width)}  ${state}${r.optional ? " (optional)" : ""}${gate}\n`;
  }
  out(io, lines);
}

function taskNumbers(index: string, total: string): [number, number] {
  const i = Number(index);
  const n = Number(total);
  if (!/^\d+$/.test(index) || !/^\d+$/.test(total) || i < 1 || i > n || !Number.isSafeInteger(n))
    throw new KanonError(
      `task ${index} of ${total}: index and total are whole numbers with 1 <= index <= total`,
    );
  return [i, n];
}

export async function taskCommand(
  flags: GlobalFlags,
  which: "start" | "done",
  [index = "", total = ""]: string[],
  io: Io,
): Promise<number> {
  const [i, n] = taskNumbers(index, total);
  const ctx = await stepContext(flags, io);
  return report(io, await (which === "start" ? taskStart(ctx, i, n) : taskDone(ctx, i, n)));
}
