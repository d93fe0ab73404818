/**
 * kanon.lock as a file: its shape, where it lives, and loading it (the YAML parser is loaded only when
 * the file exists). Kept apart from lock.ts, whose lock commands need git, so that rendering without
 * providers loads none of that.
 */
import { join } from "node:path";
import { READ_LIMIT, readBounded } from "../model/bounded-read.js";
import { compareBytes, goQuote } from "../model/text.js";
import { KanonError } from "../model/types.js";
import { LOCK_VERSION, type Lock, type LockEntry } from "./lock-types.js";
import { cleanSubdir } from "./source.js";

export const lockPath = (home: string): string => join(home, "kanon.lock");

export function sortEntries(entries: LockEntry[]): LockEntry[] {
  return [...entries].sort((a, b) => compareBytes(a.owner, b.owner) || compareBytes(a.url, b.url));
}

/** The §3.4 load validation messages (empty when valid). */
export function validateLock(lock: Lock): string[] {
  if (lock.version !== LOCK_VERSION) return [`unsupported kanon.lock version ${lock.version}`];
  const errors: string[] = [];
  const seen = new Set<string>();
  for (const e of lock.sources) {
    const o = goQuote(e.owner);
    if (e.owner.trim() === "") errors.push("kanon.lock source owner cannot be empty");
    if (seen.has(e.owner)) errors.push(`kanon.lock has duplicate source owner ${o}`);
    seen.add(e.owner);
    if (e.type !== "git") errors.push(`kanon.lock source ${o} has unsupported type ${goQuote(e.type)}`);
    if (e.url.trim() === "") errors.push(`kanon.lock source ${o} requires url`);
    if (e.ref.trim() === "") errors.push(`kanon.lock source ${o} requires ref`);
    if (e.resolved_ref.trim() === "") errors.push(`kanon.lock source ${o} requires resolved_ref`);
    if (!e.content_sha256.startsWith("sha256:"))
      errors.push(`kanon.lock source ${o} requires content_sha256`);
    const subdir = cleanSubdir(e.subdir);
    if (!subdir.ok)
      errors.push(`kanon.lock source ${o} has invalid subdir ${goQuote(e.subdir)}: ${subdir.error}`);
  }
  return errors;
}

/** The lock at `<home>/kanon.lock`, or null when there is none; invalid content is an error. */
export async function loadLock(home: string): Promise<Lock | null> {
  let text: string;
  try {
    text = readBounded(lockPath(home), { limit: READ_LIMIT.home }).bytes.toString("utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  const { parseLock } = await import("./lock-parse.js");
  const lock = parseLock(text);
  const errors = validateLock(lock);
  if (errors.length > 0) throw new KanonError(errors.join("\n"));
  return { version: lock.version, sources: sortEntries(lock.sources) };
}
