/**
 * `.kanon/PAUSE`: the operator asked the work to pause (an agent's Interrupt, or `kanon waypoint
 * pause`). Its presence is the fact; its JSON (`requestedAt`, `reason`, `agent`) says when and how.
 * The next re-anchor starts with a banner; `kanon waypoint resume` removes it.
 */
import { unlinkSync } from "node:fs";
import { type ProjectFiles, readSmallFile, writeAtomic } from "./files.js";

export interface Pause {
  requestedAt: string;
  reason: string | null;
  agent: string | null;
}

export function writePause(files: ProjectFiles, reason: string | null, agent: string | null): Pause {
  const pause: Pause = { requestedAt: new Date().toISOString(), reason, agent };
  writeAtomic(files.pause, `${JSON.stringify(pause)}\n`);
  return pause;
}

/** The pause marker, or null. A marker kanon cannot parse still pauses (its fields unknown). */
export function readPause(files: ProjectFiles): Pause | null {
  let text: string | null;
  try {
    text = readSmallFile(files.pause);
  } catch {
    text = "";
  }
  if (text === null) return null;
  try {
    const p = JSON.parse(text) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === "string" ? v : null);
    return { requestedAt: str(p.requestedAt) ?? "unknown time", reason: str(p.reason), agent: str(p.agent) };
  } catch {
    return { requestedAt: "unknown time", reason: null, agent: null };
  }
}

/** Removes the marker; returns what it said, or null when there was none. */
export function clearPause(files: ProjectFiles): Pause | null {
  const pause = readPause(files);
  if (!pause) return null;
  try {
    unlinkSync(files.pause);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  return pause;
}
