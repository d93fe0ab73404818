/**
 * Writing a plan. Every file is first written to a temporary file beside its destination (with its
 * final mode); only when all of them are ready are they renamed into place, so a failure while
 * staging leaves no destination changed and no file is ever partially written. Co-owned files (which
 * hold the user's own settings) are flushed to disk before the rename; kanon-owned files can always
 * be rendered again, and flushing thousands of skill files one by one would cost seconds.
 *
 * Co-owned files (and the Kanon home files an import writes, `Change.guard`) are renamed first, each
 * one checked against what was planned right before its own rename (a new one is linked into place,
 * which fails if the file appeared meanwhile), so a write by the user or an agent is never
 * overwritten: what remains is the instant between that check and the rename system call. Temporary files carry kanon's pid, so the next apply can tell an interrupted
 * run's litter from a running apply's files and remove it (see removeLeftovers).
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { READ_LIMIT, readBounded } from "../model/bounded-read.js";
import { osErrorText } from "../model/fs-errors.js";
import { KanonError, type TargetFile } from "../model/types.js";
import { type Change, symlinkTarget } from "./plan.js";
import { tempOwner, tempPathFor } from "./temp-name.js";

/** For tests only: let a test act inside kanon's windows (before a rename, before a mkdir) deterministically. */
export const applyTestHooks: {
  beforeRename?: (destination: string) => void;
  beforeMkdir?: (dir: string) => void;
} = {};

interface Staged {
  temp: string;
  change: Change;
}

/** Written only if still as planned (checked right before the rename), and flushed first. */
const guarded = (c: Change): boolean => !!c.file.merge || c.guard === true;

/**
 * A file changed by someone else while kanon was writing: `written` lists what was written before
 * it (nothing, when the check before the first rename failed).
 */
export class ChangedError extends KanonError {
  constructor(
    readonly path: string,
    readonly written: readonly string[],
  ) {
    const what = `${path} changed while kanon was applying`;
    super(
      written.length === 0
        ? `${what}; nothing was written, run the command again`
        : `${what} and was left as it is${notWritten(written)}`,
    );
  }
}

/**
 * The directories that writing `changes` creates (the missing parents of what they write),
 * shallowest first: recorded before the first one is made, so that the directories of an apply
 * killed half-way can be removed again.
 */
export function plannedDirs(changes: readonly Change[]): string[] {
  const known = new Set<string>();
  const missing: string[] = [];
  for (const c of changes) {
    if (c.after === null) continue;
    const chain: string[] = [];
    for (let d = dirname(c.path); !known.has(d); d = dirname(d)) {
      known.add(d);
      if (statSync(d, { throwIfNoEntry: false })) break;
      chain.push(d);
      if (dirname(d) === d) break;
    }
    missing.push(...chain.reverse());
  }
  return missing.sort((a, b) => a.length - b.length);
}

/**
 * Writes `changes`; deletions happen after every new file is in place. Returns the directories it
 * created (the ownership record lists them, so that they can go again when nothing needs them).
 */
export function applyChanges(changes: readonly Change[]): { createdDirs: string[] } {
  const createdDirs: string[] = [];
  const knownDirs = new Set<string>();
  const staged: Staged[] = [];
  try {
    for (const change of changes) {
      if (change.after === null) continue;
      try {
        ensureDir(dirname(change.path), createdDirs, knownDirs);
        const temp = tempPathFor(change.path);
        staged.push({ temp, change });
        writeTemp(temp, change.after, change.mode, guarded(change));
      } catch (e) {
        if (e instanceof KanonError) throw e;
        throw new KanonError(`cannot write ${change.path}: ${osErrorText(e)}; nothing was written`);
      }
    }
    for (const change of changes) {
      if (!isUnchanged(change)) throw new ChangedError(change.path, []);
    }
  } catch (e) {
    for (const s of staged) rmQuietly(() => unlinkSync(s.temp));
    for (const d of createdDirs.reverse()) rmQuietly(() => rmdirSync(d));
    throw e;
  }
  // Co-owned files first: a late write by an agent then stops kanon before any of its own files move.
  const ordered = [...staged.filter((s) => guarded(s.change)), ...staged.filter((s) => !guarded(s.change))];
  const written: string[] = [];
  for (const [i, { temp, change }] of ordered.entries()) {
    try {
      applyTestHooks.beforeRename?.(change.path);
      if (!guarded(change)) renameSync(temp, change.path);
      else if (!placeCoOwned(temp, change)) throw new ChangedError(change.path, written);
      written.push(change.path);
    } catch (e) {
      for (const s of ordered.slice(i)) rmQuietly(() => unlinkSync(s.temp));
      // The directories made for files that were not written go again (the others hold them).
      for (const d of createdDirs.reverse()) rmQuietly(() => rmdirSync(d));
      if (e instanceof KanonError) throw e;
      throw new KanonError(`cannot write ${change.path}: ${osErrorText(e)}${notWritten(written)}`);
    }
  }
  for (const change of changes) {
    if (change.action !== "delete") continue;
    try {
      unlinkSync(change.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT")
        throw new KanonError(`cannot delete ${change.path}: ${osErrorText(e)}`);
    }
  }
  return { createdDirs };
}

/**
 * Move a co-owned file into place only if it is still what was planned (false: it changed). A new
 * one is hard-linked into place, which fails if someone created the file since the plan.
 */
function placeCoOwned(temp: string, change: Change): boolean {
  if (change.action === "create") {
    try {
      linkSync(temp, change.path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EEXIST") return false;
      // A file system without hard links: check, then rename (the window of one rename remains).
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV") throw e;
      if (lstatSync(change.path, { throwIfNoEntry: false })) return false;
      renameSync(temp, change.path);
      return true;
    }
    unlinkSync(temp);
    return true;
  }
  if (!isUnchanged(change)) return false;
  renameSync(temp, change.path);
  return true;
}

function notWritten(written: readonly string[]): string {
  return written.length === 0
    ? "; nothing was written"
    : `; ${written.length} file(s) were written before it (${written.join(", ")}), the rest were not; run the command again`;
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
    try {
      applyTestHooks.beforeMkdir?.(m);
      mkdirSync(m, { mode: 0o755 });
      created.push(m);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      // Another program (a concurrent apply) created it meanwhile: fine if it is a directory.
      if (!statSync(m).isDirectory())
        throw new KanonError(`cannot write into ${m}: it is a file, not a directory; nothing was written`);
    }
  }
  known.add(dir);
}

/**
 * Another program (often the agent itself) may have written a co-owned file since it was planned,
 * or a file that is to be deleted: an existing one must hold the planned bytes, a new one must still
 * be absent.
 */
function isUnchanged(change: Change): boolean {
  if (!guarded(change) && change.action !== "delete") return true;
  if (change.action === "create") return !lstatSync(change.path, { throwIfNoEntry: false });
  let now: Buffer | null = null;
  try {
    now = readBounded(change.path, { limit: READ_LIMIT.destination }).bytes;
  } catch {}
  return !!change.before && !!now?.equals(change.before);
}

function rmQuietly(remove: () => void): void {
  try {
    remove();
  } catch {}
}

/**
 * Directories that may hold kanon's temporary files: beside every rendered file, and beside the
 * target of a destination that is a symlink.
 */
export function destinationDirs(files: readonly TargetFile[]): Set<string> {
  const dirs = new Set<string>();
  for (const f of files) {
    for (const p of [f.path, ...(f.alternatives ?? [])]) {
      dirs.add(dirname(p));
      dirs.add(dirname(symlinkTarget(p)));
    }
  }
  return dirs;
}

/**
 * Remove temporary files an interrupted apply left in `dirs` (those of a kanon process that is no
 * longer running), and temporary directories (an apply history entry being written). They may hold
 * a copy of a file with tokens, so each file is overwritten with zeros before it is unlinked.
 * Returns how many files were removed.
 */
export function removeLeftovers(dirs: Iterable<string>): number {
  let removed = 0;
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = tempOwner(name);
      if (pid === null || isRunning(pid)) continue;
      const path = join(dir, name);
      try {
        removed += removeShredded(path);
      } catch (e) {
        throw new KanonError(`cannot remove ${path} (left by an interrupted kanon apply): ${osErrorText(e)}`);
      }
    }
  }
  return removed;
}

/** A temporary file, or a temporary directory with what is in it; returns how many files went. */
function removeShredded(path: string): number {
  const st = lstatSync(path);
  if (st.isFile()) {
    shred(path, st.size);
    unlinkSync(path);
    return 1;
  }
  if (!st.isDirectory()) return 0;
  let removed = 0;
  for (const name of readdirSync(path)) removed += removeShredded(join(path, name));
  rmdirSync(path);
  return removed;
}

/** Our own pid is a previous process's (sweeping runs before this process stages anything). */
function isRunning(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function shred(path: string, size: number): void {
  if (size === 0) return;
  const fd = openSync(path, "r+");
  try {
    const zeros = Buffer.alloc(Math.min(size, 1 << 20));
    for (let offset = 0; offset < size; )
      offset += writeSync(fd, zeros, 0, Math.min(zeros.length, size - offset), offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
