/**
 * What an agent is told about the waypoint: the re-anchor block at session start and after
 * compaction (bounded, cut at a line boundary, nothing when there is no waypoint) and the one-line
 * position on every prompt.
 */
import { type ProjectFiles, readSmallFile } from "./files.js";
import { type Pause, readPause } from "./pause.js";
import { gateOf, type Handoff, handoffCommand, readHandoffs } from "./stages.js";
import {
  clip,
  isEmpty,
  oneLine,
  PATH_SEPARATOR,
  POSITION_MAX,
  projectedPosition,
  readWaypoint,
  type Waypoint,
} from "./waypoint.js";

/** The default bound of the re-anchor block, in characters (about 1,200 tokens). */
export const BLOCK_MAX = 4800;

/** Stop's note: a session ended a turn without moving the waypoint from `revision`. */
export interface Reminder {
  at: string;
  agent: string | null;
  revision: number;
}

export interface ContinuityState {
  waypoint: Waypoint | null;
  pause: Pause | null;
  /** The handoffs of the waypoint's stages, in stage order. */
  handoffs: Handoff[];
  reminder?: Reminder | null;
}

export function readState(files: ProjectFiles): ContinuityState {
  const waypoint = readWaypoint(files);
  return {
    waypoint,
    pause: readPause(files),
    handoffs: waypoint?.stages ? readHandoffs(files, waypoint.stages) : [],
    reminder: readReminder(files),
  };
}

function readReminder(files: ProjectFiles): Reminder | null {
  try {
    const r = JSON.parse(readSmallFile(files.reminder) ?? "null") as Partial<Reminder> | null;
    return r && typeof r.at === "string" && typeof r.revision === "number"
      ? { at: r.at, agent: typeof r.agent === "string" ? r.agent : null, revision: r.revision }
      : null;
  } catch {
    return null;
  }
}

export function pauseBanner(p: Pause): string {
  const who = p.agent ? ` in ${p.agent}` : "";
  const why = p.reason ? ` (${p.reason})` : "";
  return `[kanon] PAUSED: the operator interrupted the work${who} at ${p.requestedAt}${why}. Tools remain available, but do not go on with the work below until the operator says so; \`kanon waypoint resume\` ends the pause.`;
}

/** A value on its own line: continuation lines indented, clipped to `max` characters. */
const field = (label: string, value: string, max: number) =>
  `${label}: ${clip(value.trim(), max).replace(/\r?\n/g, "\n  ")}`;

/** The re-anchor block of `state`, at most `maxChars` characters; "" when there is no waypoint. */
export function reanchorBlock(state: ContinuityState, maxChars = BLOCK_MAX): string {
  const w = state.waypoint;
  if (!w || isEmpty(w)) return "";
  // No one field may take the block: the path, status and next work must fit.
  const each = Math.max(200, Math.floor(maxChars / 3));
  const lines: string[] = [];
  if (state.pause) lines.push(pauseBanner(state.pause));
  const by = w.writer.agent
    ? `, written by ${w.writer.agent}${w.writer.session ? ` (session ${w.writer.session})` : ""}`
    : "";
  lines.push(`[kanon] Where the work stands: waypoint revision ${w.revision} (${w.updatedAt}${by})`);
  lines.push(field("Path", w.path.length > 0 ? w.path.join(PATH_SEPARATOR) : "(none)", each));
  if (w.status) lines.push(field("Status", w.status, each));
  lines.push(field("Next", w.next ?? "not recorded", each));
  if (w.why) lines.push(field("Why", w.why, each));
  const last = [...state.handoffs].sort((a, b) => (a.completedAt < b.completedAt ? -1 : 1)).at(-1);
  if (last) {
    const what = last.skipped
      ? `${last.stage}, skipped ${last.completedAt}${last.skipReason ? `: ${last.skipReason}` : ""}`
      : `${last.stage}, done ${last.completedAt}${last.summaryForNext ? `: ${last.summaryForNext}` : ""}`;
    lines.push(field("Last handoff", what, each));
  }
  if (w.stages && w.stages.length > 0) {
    const done = new Map(state.handoffs.map((h) => [h.stage, h]));
    const current = w.path.findLast((p) => w.stages!.some((s) => s.name === p));
    const states = w.stages.map((s) => {
      const h = done.get(s.name);
      const state = h ? (h.skipped ? "skipped" : "done") : s.name === current ? "current" : "to do";
      return `${s.name} ${state}${s.optional ? " (optional)" : ""}`;
    });
    lines.push(clip(`Stages: ${states.join(", ")}`, each));
    // Every stage up to the first required one without a handoff may start; the stages after it
    // wait for that handoff.
    const waiting = w.stages.find((s) => !s.optional && !done.has(s.name));
    const blocked = waiting && w.stages.find((s) => gateOf(w.stages!, s.name) === waiting.name);
    lines.push(
      !waiting
        ? "Open gates: all (every required stage has its handoff)"
        : blocked
          ? `Open gates: up to ${waiting.name}; ${blocked.name} waits for: ${handoffCommand(waiting.name)}`
          : `Open gates: up to ${waiting.name}, the last required stage`,
    );
  }
  const r = state.reminder;
  if (r && r.revision === w.revision)
    lines.push(
      `Reminder: a ${r.agent ?? "previous"} session ended a turn at ${r.at} without moving the waypoint; check that Path and Next still hold (kanon waypoint set).`,
    );
  return boundLines(`${lines.join("\n")}\n`, maxChars);
}

const codePoints = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * `text` cut to at most `max` characters (code points) at a line boundary: the whole lines that fit,
 * then one line saying how much was cut (when it fits too). Text within the bound is returned as is.
 */
export function boundLines(text: string, max: number): string {
  const total = codePoints(text);
  if (total <= max) return text;
  const lines = text.split(/(?<=\n)/);
  let kept = "";
  let used = 0;
  for (const line of lines) {
    const n = codePoints(line);
    // Leave room for the closing line (its number has at most as many digits as the total).
    if (used + n + closing(total).length > max) break;
    kept += line;
    used += n;
  }
  const note = closing(total - used);
  return used + codePoints(note) <= max ? kept + note : kept;
}

const closing = (cut: number) => `[kanon] ${cut} more characters cut (kanon waypoint show)\n`;

/** The position line for a prompt (≤ 300 characters), from the projection when it is current. */
export function positionLine(files: ProjectFiles, state: ContinuityState): string {
  const w = state.waypoint;
  if (!w || isEmpty(w)) return "";
  const line = projectedPosition(files, w);
  return state.pause ? clip(oneLine(`PAUSED | ${line}`), POSITION_MAX) : line;
}
