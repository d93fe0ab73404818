/**
 * kanon's own continuity hooks, as the hook runner calls them (`continuity:` in kanon.yaml renders
 * them into every agent): the re-anchor block at session start and after compaction, the position
 * line on every prompt, the pause marker on an interrupt, and an advisory Stop. Each fails open: any
 * error means no output, never a blocked or stopped agent.
 */
import { existsSync, readdirSync, statSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { BLOCK_MAX, positionLine, type Reminder, readState, reanchorBlock } from "./block.js";
import { findProjectRoot, type ProjectFiles, projectFiles, readSmallFile, writeAtomic } from "./files.js";
import { readPause, writePause } from "./pause.js";
import { isEmpty, readWaypoint, type Waypoint } from "./waypoint.js";

/** What a built-in hook knows of the event (from the neutral envelope). */
export interface HookFacts {
  cwd: string;
  agent: string | null;
  session: string | null;
}

const filesOf = (cwd: string): ProjectFiles | null => {
  const root = findProjectRoot(cwd);
  return root ? projectFiles(root) : null;
};

/**
 * The interrupt's first action, before the runner reads anything but the event name: `.kanon/PAUSE`
 * in the project of the working directory, when that project keeps continuity files (a project
 * without a `.kanon` folder gets none). Returns the project, or null.
 * @public (the runner calls it: src/runner/file.ts bundles this module)
 */
export function pauseFirst(cwd: string, agent: string | null): ProjectFiles | null {
  try {
    const files = filesOf(cwd);
    if (!files || !existsSync(files.dir)) return null;
    writePause(files, null, agent);
    return files;
  } catch {
    return null;
  }
}

/**
 * Adds the interrupt's reason to the marker `pauseFirst` wrote (when it is still there).
 * @public (the runner calls it: src/runner/file.ts bundles this module)
 */
export function pauseReason(files: ProjectFiles, reason: string | null): void {
  try {
    const pause = readPause(files);
    if (pause && reason && !pause.reason)
      writeAtomic(files.pause, `${JSON.stringify({ ...pause, reason })}\n`);
  } catch {
    // the marker as first written stands
  }
}

/**
 * The re-anchor block for a session that starts or was compacted ("" when there is no waypoint).
 * @public (the runner calls it: src/runner/file.ts bundles this module)
 */
export function reanchorContext(facts: HookFacts, maxChars = BLOCK_MAX): string {
  try {
    const files = filesOf(facts.cwd);
    if (!files) return "";
    const state = readState(files);
    noteSession(files, facts, state.waypoint);
    return reanchorBlock(state, maxChars);
  } catch {
    return "";
  }
}

/**
 * The position line for a prompt ("" when there is no waypoint).
 * @public (the runner calls it: src/runner/file.ts bundles this module)
 */
export function positionContext(facts: HookFacts): string {
  try {
    const files = filesOf(facts.cwd);
    if (!files) return "";
    const state = readState(files);
    noteSession(files, facts, state.waypoint);
    const line = positionLine(files, state);
    return line ? `${line}\n` : "";
  } catch {
    return "";
  }
}

// --- Stop: a reminder, never a reason to keep the agent running -------------------------------------

/** Sessions older than this are forgotten (their notes are housekeeping, not history). */
const SESSION_DAYS = 7;

/** A name that is one safe path segment. */
const safeName = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100);

const sessionFile = (files: ProjectFiles, facts: HookFacts) =>
  join(files.sessions, `${safeName(facts.agent ?? "agent")}-${safeName(facts.session ?? "")}.json`);

/** The waypoint revision a session first saw (written once per session, when there is a waypoint). */
function noteSession(files: ProjectFiles, facts: HookFacts, w: Waypoint | null): void {
  if (!facts.session || !w || isEmpty(w)) return;
  const revision = w.revision;
  const path = sessionFile(files, facts);
  if (readSmallFile(path) !== null) return;
  writeAtomic(
    path,
    `${JSON.stringify({ agent: facts.agent, session: facts.session, firstRevision: revision })}\n`,
  );
  // Forget old sessions (by modification time: a note's age only decides when it is tidied away).
  const dir = files.sessions;
  const old = Date.now() - SESSION_DAYS * 86_400_000;
  for (const name of readdirSync(dir)) {
    try {
      if (statSync(join(dir, name)).mtimeMs < old) unlinkSync(join(dir, name));
    } catch {
      // gone already
    }
  }
}

/**
 * At the end of a turn: when the session has not moved the waypoint since it first saw it, a
 * reminder (`.kanon/reminder.json`) that the next re-anchor shows while that revision stands.
 * Prints nothing and never blocks.
 * @public (the runner calls it: src/runner/file.ts bundles this module)
 */
export function stopAdvisory(facts: HookFacts): void {
  try {
    const files = filesOf(facts.cwd);
    if (!files || !facts.session) return;
    const w = readWaypoint(files);
    if (!w || isEmpty(w)) return;
    const note = readSmallFile(sessionFile(files, facts));
    if (note === null || (JSON.parse(note) as { firstRevision?: unknown }).firstRevision !== w.revision)
      return;
    const reminder: Reminder = { at: new Date().toISOString(), agent: facts.agent, revision: w.revision };
    writeAtomic(files.reminder, `${JSON.stringify(reminder)}\n`);
  } catch {
    // advisory only
  }
}
