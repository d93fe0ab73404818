/**
 * Writing a plan. Every file is first written to a temporary file beside its destination (with its
 * final mode); only when all of them are ready are they renamed into place, so a failure leaves no
 * destination changed and no file is ever partially written. Co-owned files (which hold the user's
 * own settings) are flushed to disk before the rename; kanon-owned files can always be rendered
 * again, and flushing thousands of skill files one by one would cost seconds.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { osErrorText } from "../model/fs-errors.js";
import { KanonError } from "../model/types.js";
import type { Change } from "./plan.js";

export function applyChanges(changes: readonly Change[]): void {
  const createdDirs: string[] = [];
  const knownDirs = new Set<string>();
  const staged: { temp: string; change: Change }[] = [];
  try {
    for (const change of changes) {
      ensureDir(dirname(change.path), createdDirs, knownDirs);
      const temp = join(
        dirname(change.path),
        `.${basename(change.path)}.kanon-${randomBytes(6).toString("hex")}.tmp`,
      );
      staged.push({ temp, change });
      writeTemp(temp, change.after, change.mode, !!change.file.merge);
    }
    for (const { change } of staged) assertUnchanged(change);
  } catch (e) {
    for (const s of staged) rmQuietly(() => unlinkSync(s.temp));
    for (const d of createdDirs.reverse()) rmQuietly(() => rmdirSync(d));
    if (e instanceof KanonError) throw e;
    const err = e as NodeJS.ErrnoException;
    throw new KanonError(`cannot write ${err.path ?? "destination"}: ${osErrorText(e)}; nothing was written`);
  }
  for (const { temp, change } of staged) {
    try {
      renameSync(temp, change.path);
    } catch (e) {
      throw new KanonError(`cannot write ${change.path}: ${osErrorText(e)}`);
    }
  }
}

function writeTemp(path: string, data: Uint8Array, mode: number, flush: boolean): void {
  const fd = openSync(path, "wx", 0o600);
  try {
    let offset = 0;
    while (offset < data.length) offset += writeSync(fd, data, offset);
    if (flush) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(path, mode);
}

/** Create `dir` and missing parents, remembering which ones were created (removed again on failure). */
function ensureDir(dir: string, created: string[], known: Set<string>): void {
  if (known.has(dir)) return;
  const missing: string[] = [];
  let d = dir;
  for (;;) {
    const st = statSync(d, { throwIfNoEntry: false });
    if (st) {
      if (!st.isDirectory())
        throw new KanonError(`cannot write into ${d}: it is a file, not a directory; nothing was written`);
      break;
    }
    missing.push(d);
    const parent = dirname(d);
    if (parent === d) break;
    d = parent;
  }
  for (const m of missing.reverse()) {
    mkdirSync(m, { mode: 0o755 });
    created.push(m);
  }
  known.add(dir);
}

/** Another program (often the agent itself) may have written a co-owned file since it was planned. */
function assertUnchanged(change: Change): void {
  if (change.action !== "update" || !change.file.merge || !change.before) return;
  let now: Buffer | null = null;
  try {
    now = readFileSync(change.path);
  } catch {}
  if (!now?.equals(change.before)) {
    throw new KanonError(
      `${change.path} changed while kanon was applying; nothing was written, run the command again`,
    );
  }
}

function rmQuietly(remove: () => void): void {
  try {
    remove();
  } catch {}
}
