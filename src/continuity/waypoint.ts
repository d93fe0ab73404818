/**
 * The waypoint: where the work of a project stands, in `.kanon/waypoint.json`. Every write is made
 * under the waypoint lock (read, change, write atomically), and its `revision` is one more than the
 * last: two writers at once lose nothing and never share a revision. `kanon waypoint clear` is a
 * write too (an empty waypoint), so the revision keeps growing.
 *
 * `position.txt` is a plain-text projection of it (one position line) that names the revision it was
 * made from; readers use it only when that revision is the waypoint's, and make it again otherwise.
 */
import { KanonError } from "../model/types.js";
import { type ProjectFiles, readSmallFile, shown, writeAtomic } from "./files.js";
import { withLock } from "./lock.js";

export const WAYPOINT_SCHEMA = 1;

/** Who wrote a revision: the agent and session when a hook did (the runner passes them on). */
export interface Writer {
  agent: string | null;
  session: string | null;
}

export interface StageRef {
  name: string;
  optional: boolean;
}

export interface Waypoint {
  schema: number;
  revision: number;
  updatedAt: string;
  writer: Writer;
  /** The position, outermost first: phase, stage, task… (any depth). Empty when cleared. */
  path: string[];
  status: string | null;
  /** The exact next piece of work. */
  next: string | null;
  why: string | null;
  /** The stage order in force when a `kanon stage` or `kanon task` command last wrote (for the block). */
  stages?: StageRef[];
}

/** The fields a write sets; those it leaves out keep their value. */
export type WaypointChange = Partial<Pick<Waypoint, "path" | "status" | "next" | "why" | "stages">>;

/** A waypoint with nothing in it (never written, or cleared): no block, no position. */
export const isEmpty = (w: Waypoint | null): boolean =>
  !w || (w.path.length === 0 && w.status === null && w.next === null && w.why === null);

/** `KANON_AGENT` and `KANON_SESSION_ID`, which kanon's hook runner sets for the hooks it runs. */
export function writerFromEnv(env: NodeJS.ProcessEnv): Writer {
  return { agent: env.KANON_AGENT || null, session: env.KANON_SESSION_ID || null };
}

const isStringOrNull = (v: unknown) => v === null || typeof v === "string";

/** The waypoint as stored; null when there is none. A file kanon cannot read is refused, never replaced. */
export function readWaypoint(files: ProjectFiles): Waypoint | null {
  const text = readSmallFile(files.waypoint);
  if (text === null) return null;
  const where = shown(files, files.waypoint);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new KanonError(`${where}: not valid JSON (${(e as Error).message}); fix it or delete it`);
  }
  const w = raw as Record<string, unknown>;
  if (typeof w !== "object" || w === null || Array.isArray(w))
    throw new KanonError(`${where}: not a JSON object; fix it or delete it`);
  if (typeof w.schema === "number" && w.schema > WAYPOINT_SCHEMA)
    throw new KanonError(`${where}: schema ${w.schema} is newer than this kanon reads (${WAYPOINT_SCHEMA})`);
  const writer = w.writer as Record<string, unknown> | undefined;
  const valid =
    w.schema === WAYPOINT_SCHEMA &&
    Number.isSafeInteger(w.revision) &&
    (w.revision as number) >= 1 &&
    typeof w.updatedAt === "string" &&
    typeof writer === "object" &&
    writer !== null &&
    isStringOrNull(writer.agent) &&
    isStringOrNull(writer.session) &&
    Array.isArray(w.path) &&
    w.path.every((p) => typeof p === "string") &&
    isStringOrNull(w.status) &&
    isStringOrNull(w.next) &&
    isStringOrNull(w.why) &&
    (w.stages === undefined ||
      (Array.isArray(w.stages) &&
        w.stages.every((s) => typeof s?.name === "string" && typeof s?.optional === "boolean")));
  if (!valid)
    throw new KanonError(`${where}: not a kanon waypoint (schema ${WAYPOINT_SCHEMA}); fix it or delete it`);
  return w as unknown as Waypoint;
}

/**
 * Applies `change` to the current waypoint under the lock and writes the next revision; `also` runs
 * under the same lock before the waypoint is written (a stage handoff). Returns what was written.
 */
export function writeWaypoint(
  files: ProjectFiles,
  change: (current: Waypoint | null) => WaypointChange,
  writer: Writer,
  also?: (current: Waypoint | null) => void,
): Waypoint {
  return withLock(files.waypointLock, () => {
    const current = readWaypoint(files);
    const fields = change(current);
    also?.(current);
    const next: Waypoint = {
      // Keys kanon does not know (added by hand or by a newer tool) stay.
      ...(current ?? {}),
      schema: WAYPOINT_SCHEMA,
      revision: (current?.revision ?? 0) + 1,
      updatedAt: new Date().toISOString(),
      writer,
      path: fields.path ?? current?.path ?? [],
      status: fields.status !== undefined ? fields.status : (current?.status ?? null),
      next: fields.next !== undefined ? fields.next : (current?.next ?? null),
      why: fields.why !== undefined ? fields.why : (current?.why ?? null),
    };
    const stages = fields.stages ?? current?.stages;
    if (stages) next.stages = stages;
    else delete next.stages;
    writeAtomic(files.waypoint, `${JSON.stringify(next, null, 2)}\n`);
    writeProjection(files, next);
    return next;
  });
}

/** An empty waypoint, one revision on: no block and no position until the next `set`. */
export function clearWaypoint(files: ProjectFiles, writer: Writer): Waypoint {
  return writeWaypoint(files, () => ({ path: [], status: null, next: null, why: null }), writer);
}

// --- position.txt ----------------------------------------------------------------------------------

const PROJECTION_HEADER = /^kanon position of waypoint revision (\d+)\n/;

function writeProjection(files: ProjectFiles, w: Waypoint): void {
  writeAtomic(files.position, `kanon position of waypoint revision ${w.revision}\n${positionOf(w)}\n`);
}

/**
 * The position line of `w` from position.txt when that was made from this revision; otherwise (a
 * projection missing, stale or damaged) made again from the waypoint and written back.
 */
export function projectedPosition(files: ProjectFiles, w: Waypoint): string {
  let text: string | null = null;
  try {
    text = readSmallFile(files.position);
  } catch {
    // unreadable: made again below
  }
  const m = text && PROJECTION_HEADER.exec(text);
  if (m && Number(m[1]) === w.revision) return text!.slice(m[0].length).replace(/\n$/, "");
  try {
    writeProjection(files, w);
  } catch {
    // a read-only project still gets its position
  }
  return positionOf(w);
}

/** The bound of the position line, in characters (code points). */
export const POSITION_MAX = 300;
export const PATH_SEPARATOR = " > ";

/** One line: `kanon waypoint r7: phase-1 > execute > task 3 of 5 | in progress | next: run the tests`. */
export function positionOf(w: Waypoint): string {
  if (isEmpty(w)) return "";
  const parts = [
    `kanon waypoint r${w.revision}: ${w.path.length > 0 ? w.path.join(PATH_SEPARATOR) : "(no path)"}`,
  ];
  if (w.status) parts.push(w.status);
  if (w.next) parts.push(`next: ${w.next}`);
  return clip(oneLine(parts.join(" | ")), POSITION_MAX);
}

export const oneLine = (s: string): string => s.replace(/\s+/g, " ").trim();

/** At most `max` code points; a cut one ends with `…`. */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s; // code units are never fewer than code points
  const cps = Array.from(s);
  return cps.length <= max ? s : `${cps.slice(0, max - 1).join("")}…`;
}
