/**
 * Writing a plan. Every file is first written to a temporary file beside its destination (with its
 * final mode); only when all of them are ready are they renamed into place, so a failure while
 * staging leaves no destination changed and no file is ever partially written. Co-owned files (which
 * hold the user's own settings) are flushed to disk before the rename; kanon-owned files can always
 * be rendered again, and flushing thousands of skill files one by one would cost seconds.
 *
 * Nothing written since the plan is overwritten: once everything is staged (after the prompt), every
 * destination is checked against what was planned from, and then each one again right before its own
 * rename or deletion; a new file is hard-linked into place, which fails if a file appeared there
 * meanwhile. What remains is the instant between that last check and the rename system call.
 * Co-owned files (and the Kanon home files an import writes, `Change.guard`) are renamed first, so a
 * late write by an agent stops kanon before any of its own files move. Temporary files carry
 * kanon's pid, so the next apply can tell an interrupted run's litter from a running apply's files
 * and remove it (see removeLeftovers).
 */
import { dirname, join } from "node:path";
import { osErrorText } from "../model/fs-errors.js";
import { KanonError, type TargetFile } from "../model/types.js";
import { type DestinationFs, realFs } from "./fs.js";
import { type Change, symlinkTarget } from "./plan.js";
import { tempOwner, tempPathFor } from "./temp-name.js";

interface Staged {
  temp: string;
  change: Change;
}

/** Flushed before its rename, and renamed first: the user's own settings, or a Kanon home file. */
const guarded = (c: Change): boolean => !!c.file.merge || c.guard === true;

/**
 * A file changed by someone else while kanon was writing: `written` lists what was written before
 * it (nothing, when the check before the first rename failed). `verb` names the operation.
 */
export class ChangedError extends KanonError {
  constructor(
    readonly path: string,
    readonly written: readonly string[],
    verb = "applying",
  ) {
    const what = `${path} changed while kanon was ${verb}`;
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
export function plannedDirs(changes: readonly Change[], fs: DestinationFs = realFs): string[] {
  const known = new Set<string>();
  const missing: string[] = [];
  for (const c of changes) {
    if (c.after === null) continue;
    const chain: string[] = [];
    for (let d = dirname(c.path); !known.has(d); d = dirname(d)) {
      known.add(d);
      if (fs.stat(d)) break;
      chain.push(d);
      if (dirname(d) === d) break;
    }
    missing.push(...chain.reverse());
  }
  return missing.sort((a, b) => a.length - b.length);
}

/**
 * Writes `changes`; deletions happen after every new file is in place. Returns the directories it
 * created (the ownership record lists them, so that they can go again when nothing needs them) and
 * how many files it wrote or deleted (what `Applied N file change(s).` says: a file to delete that
 * was gone already is not one).
 */
export function applyChanges(
  changes: readonly Change[],
  fs: DestinationFs = realFs,
): { createdDirs: string[]; written: number } {
  const createdDirs: string[] = [];
  const knownDirs = new Set<string>();
  const staged: Staged[] = [];
  try {
    for (const change of changes) {
      if (change.after === null) continue;
      try {
        ensureDir(dirname(change.path), createdDirs, knownDirs, fs);
        const temp = tempPathFor(change.path);
        staged.push({ temp, change });
        fs.writeNew(temp, change.after, change.mode, guarded(change));
      } catch (e) {
        if (e instanceof KanonError) throw e;
        throw new KanonError(`cannot write ${change.path}: ${osErrorText(e)}; nothing was written`);
      }
    }
    // Everything as it was planned (a prompt may have waited minutes), before the first rename.
    for (const change of changes) {
      if (!isUnchanged(change, fs)) throw new ChangedError(change.path, []);
    }
  } catch (e) {
    for (const s of staged) rmQuietly(() => fs.unlink(s.temp));
    for (const d of createdDirs.reverse()) rmQuietly(() => fs.rmdir(d));
    throw e;
  }
  // Co-owned files first: a late write by an agent then stops kanon before any of its own files move.
  const ordered = [...staged.filter((s) => guarded(s.change)), ...staged.filter((s) => !guarded(s.change))];
  const written: string[] = [];
  for (const [i, { temp, change }] of ordered.entries()) {
    try {
      if (!place(temp, change, fs)) throw new ChangedError(change.path, written);
      written.push(change.path);
    } catch (e) {
      for (const s of ordered.slice(i)) rmQuietly(() => fs.unlink(s.temp));
      // The directories made for files that were not written go again (the others hold them).
      for (const d of createdDirs.reverse()) rmQuietly(() => fs.rmdir(d));
      if (e instanceof KanonError) throw e;
      throw new KanonError(`cannot write ${change.path}: ${osErrorText(e)}${notWritten(written)}`);
    }
  }
  for (const change of changes) {
    if (change.action !== "delete") continue;
    if (!isUnchanged(change, fs)) throw new ChangedError(change.path, written);
    try {
      fs.unlink(change.path);
      written.push(change.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT")
        throw new KanonError(`cannot delete ${change.path}: ${osErrorText(e)}${notWritten(written)}`);
    }
  }
  return { createdDirs, written: written.length };
}

/**
 * Move a staged file into place only if the destination is still what was planned (false: it
 * changed). A new one is hard-linked into place, which fails if someone created the file since.
 */
function place(temp: string, change: Change, fs: DestinationFs): boolean {
  if (change.action === "create") return linkNew(temp, change.path, fs);
  if (!isUnchanged(change, fs)) return false;
  fs.rename(temp, change.path);
  return true;
}

/**
 * `temp` becomes `path` only if nothing is at `path` (false: something is). A file system without
 * hard links gets a check, then a rename (the window of one rename remains).
 */
export function linkNew(temp: string, path: string, fs: DestinationFs): boolean {
  try {
    fs.link(temp, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      rmQuietly(() => fs.unlink(temp));
      return false;
    }
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV") throw e;
    if (fs.lstat(path)) return false;
    fs.rename(temp, path);
    return true;
  }
  fs.unlink(temp);
  return true;
}

/** The written files a message names (a large apply writes thousands): the first ten, and a count. */
const NAMED = 10;

function notWritten(written: readonly string[]): string {
  if (written.length === 0) return "; nothing was written";
  const names =
    written.length <= NAMED
      ? written.join(", ")
      : `${written.slice(0, NAMED).join(", ")} and ${written.length - NAMED} more`;
  return `; ${written.length} file(s) were written before it (${names}), the rest were not; run the command again`;
}

/** Create `dir` and missing parents, remembering which ones were created (removed again on failure). */
function ensureDir(dir: string, created: string[], known: Set<string>, fs: DestinationFs): void {
  if (known.has(dir)) return;
  const missing: string[] = [];
  let d = dir;
  for (;;) {
    const st = fs.stat(d);
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
      fs.mkdir(m, 0o755);
      created.push(m);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      // Another program (a concurrent apply) created it meanwhile: fine if it is a directory.
      if (!fs.stat(m)?.isDirectory())
        throw new KanonError(`cannot write into ${m}: it is a file, not a directory; nothing was written`);
    }
  }
  known.add(dir);
}

/**
 * Whether the destination still is what the change was planned from: a file to create is still
 * absent, an existing one still holds the planned bytes (another program, often the agent itself, or
 * the user in an editor, may have written it since).
 */
function isUnchanged(change: Change, fs: DestinationFs): boolean {
  if (change.action === "create") return !fs.lstat(change.path);
  // A file to delete that is gone already holds nothing to lose.
  if (change.action === "delete" && !fs.lstat(change.path)) return true;
  return change.before !== null && sameBytes(change.path, change.before, fs);
}

/**
 * Whether `path` holds exactly `bytes` (false when it cannot be read). The bounded reader refuses
 * anything but a regular file by the fstat of what it opened: no stat before it (an update of 15,009
 * files checks each twice, 30,000 system calls).
 */
function sameBytes(path: string, bytes: Uint8Array, fs: DestinationFs): boolean {
  try {
    return fs.readFile(path).equals(bytes);
  } catch {
    return false;
  }
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
export function destinationDirs(files: readonly TargetFile[], fs: DestinationFs = realFs): Set<string> {
  const dirs = new Set<string>();
  for (const f of files) {
    for (const p of [f.path, ...(f.alternatives ?? [])]) {
      dirs.add(dirname(p));
      dirs.add(dirname(symlinkTarget(p, fs)));
    }
  }
  return dirs;
}

/**
 * Remove temporary files an interrupted apply left in `dirs` (those of a kanon process that is no
 * longer running), and temporary directories (an apply history entry being written or removed).
 * They may hold a copy of a file with tokens, so each file is overwritten with zeros before it is
 * unlinked. Returns how many files were removed.
 */
export function removeLeftovers(dirs: Iterable<string>, fs: DestinationFs = realFs): number {
  let removed = 0;
  for (const dir of dirs) {
    let names: string[];
    try {
      names = fs.readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = tempOwner(name);
      if (pid === null || isRunning(pid)) continue;
      const path = join(dir, name);
      try {
        removed += removeShredded(path, fs);
      } catch (e) {
        throw new KanonError(`cannot remove ${path} (left by an interrupted kanon apply): ${osErrorText(e)}`);
      }
    }
  }
  return removed;
}

/** A temporary file, or a temporary directory with what is in it; returns how many files went. */
function removeShredded(path: string, fs: DestinationFs): number {
  const st = fs.lstat(path);
  if (!st) return 0;
  if (st.isFile()) {
    // A file with another name is someone's file too: a new file killed between its link into place
    // and the unlink of its temporary name, or a history entry's backup linked to what it saved.
    if (st.nlink === 1) fs.zero(path, st.size);
    fs.unlink(path);
    return 1;
  }
  if (!st.isDirectory()) return 0;
  let removed = 0;
  for (const name of fs.readdir(path)) removed += removeShredded(join(path, name), fs);
  fs.rmdir(path);
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
