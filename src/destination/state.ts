/**
 * The state directory: per machine, never in the Kanon home or a project. One directory per
 * destination root holds the ownership record and a short history of operations with backups:
 *
 *   $XDG_STATE_HOME/kanon/            (~/.local/state/kanon/ when XDG_STATE_HOME is unset)
 *     roots/<name>-<hash>/            one per destination root (home directory or project)
 *       record.json                   what kanon owns there (src/destination/record.ts)
 *       applies/<id>/apply.json       one apply (the record before and after) or import (an id
 *                                     ending in -import, run in this root's scope): its changes
 *       applies/<id>/files/<n>        the bytes a change replaced or deleted
 *
 * The history is written (and flushed) before any destination file is renamed, and the record after
 * the last one: a kill in between leaves a record that the next run reconciles from the history.
 * `kanon undo` takes the newest entry back, whichever kind it is. An entry goes by a rename first
 * (to `<id>.undone` once undone, to a temporary name when pruned), so a kill while its files are
 * being removed never leaves half an entry that a later undo would read.
 */
import { accessSync, constants } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { fileKind, ReadRefused } from "../model/bounded-read.js";
import { randomHex } from "../model/crypto.js";
import { osErrorText } from "../model/fs-errors.js";
import { KanonError } from "../model/types.js";
import { ChangedError, linkNew, plannedDirs, removeLeftovers } from "./apply.js";
import { type DestinationFs, realFs } from "./fs.js";
import { type Change, symlinkTarget } from "./plan.js";
import {
  contentHash,
  type OwnershipRecord,
  octalMode,
  parseRecord,
  RECORD_VERSION,
  type Replaces,
  recordText,
  sha256,
} from "./record.js";
import { tempPathFor } from "./temp-name.js";

/** How many applies and imports `kanon undo` can go back. */
export const HISTORY_LENGTH = 10;

export function stateBase(env: NodeJS.ProcessEnv, userHome: string): string {
  const xdg = env.XDG_STATE_HOME;
  return xdg && isAbsolute(xdg) ? join(xdg, "kanon") : join(userHome, ".local", "state", "kanon");
}

const rootName = (root: string): string => basename(root).replace(/[^A-Za-z0-9._-]/g, "_") || "root";

/** The directory for one destination root: readable name, and a hash that keeps roots apart. */
export function rootStateDir(base: string, root: string): string {
  return join(base, "roots", `${rootName(root)}-${sha256(root).slice(0, 12)}`);
}

/**
 * The state of one destination root. A root kanon never applied to has no directory under roots/
 * with its name: nothing to read, and the directory's name (a hash) is made only if something is
 * written there, so a first `kanon diff` on a machine hashes nothing.
 */
export function loadRootState(base: string, root: string, fs: DestinationFs = realFs): LoadedRecord {
  let names: string[];
  try {
    names = fs.readdir(join(base, "roots"));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") return loadRecord(rootStateDir(base, root), root, fs);
    names = [];
  }
  const prefix = `${rootName(root)}-`;
  if (names.some((n) => n.startsWith(prefix))) return loadRecord(rootStateDir(base, root), root, fs);
  let dir: string | undefined;
  return {
    get dir() {
      dir ??= rootStateDir(base, root);
      return dir;
    },
    record: null,
    text: null,
    warnings: [],
    interrupted: [],
  };
}

export interface LoadedRecord {
  dir: string;
  record: OwnershipRecord | null;
  /** The record file's text as read (null when absent): an unchanged record is not rewritten. */
  text: string | null;
  warnings: string[];
  /**
   * The paths an interrupted apply was writing (its history entry has no record after it): its
   * temporary files may be beside them even where nothing is rendered now.
   */
  interrupted: string[];
}

interface FileState {
  sha256: string;
  mode: string;
}

interface JournalChange {
  path: string;
  agent: string;
  action: Change["action"];
  before: FileState | null;
  after: FileState | null;
  /** Relative to the apply's directory. */
  backup: string | null;
  replaces?: Replaces;
  /**
   * The bytes before were kanon's own, in a file it owns whole: an undo need not flush them to disk
   * (as an apply does not flush the files it renders). Absent in older entries: every restore is flushed.
   */
  rendered?: true;
}

/** What a history entry undoes: an apply (of the destination, with its record) or an import (into the Kanon home). */
export type OperationKind = "apply" | "import";

interface Journal {
  version: number;
  id: string;
  /** Absent in entries an older kanon wrote: applies. */
  kind?: OperationKind;
  root: string;
  time: string;
  /** The records before and after an apply (null for an import, which leaves the record alone). */
  previous: OwnershipRecord | null;
  next: OwnershipRecord | null;
  changes: JournalChange[];
  /** The directories it was to create, listed before the first was made (absent in older entries). */
  dirs?: string[];
}

const IMPORT_SUFFIX = "-import";
/** An entry renamed so once undone: no longer history, kept only until the record is written. */
const UNDONE = ".undone";
/** A file in an entry: its undo has begun (written before undo's first change to the disk). */
const UNDOING = "undoing";
const kindOf = (id: string): OperationKind => (id.endsWith(IMPORT_SUFFIX) ? "import" : "apply");

/**
 * A file of the state directory (the record, a history entry, a backup) or a destination file undo
 * checks, read only if it is a regular file (a FIFO or a device there would hang or never end). The
 * seam's reader refuses those too (model/bounded-read.ts); asking first keeps a test's fs honest.
 */
function readRegular(path: string, fs: DestinationFs): Buffer {
  const st = fs.stat(path);
  if (!st) throw Object.assign(new Error("no such file or directory"), { code: "ENOENT" });
  if (!st.isFile()) throw new ReadRefused(path, `is ${fileKind(st)}, not a regular file`);
  return fs.readFile(path);
}

/**
 * The record for `root`. Missing: null. Unreadable or corrupt (down to any value of the wrong type):
 * a warning, and null (kanon then behaves as on a machine it has never seen). From a newer kanon: an
 * error, and it is never rewritten.
 */
export function loadRecord(dir: string, root: string, fs: DestinationFs = realFs): LoadedRecord {
  const path = join(dir, "record.json");
  const warnings: string[] = [];
  let text: string | null = null;
  let record: OwnershipRecord | null = null;
  try {
    text = readRegular(path, fs).toString("utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT")
      warnings.push(`cannot read the kanon record ${path}: ${osErrorText(e)}; treating this machine as new`);
  }
  if (text !== null) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      value = (e as Error).message;
    }
    const parsed = typeof value === "string" ? `not JSON (${value})` : parseRecord(value, root);
    if (parsed === "newer") {
      const v = (value as { version: number }).version;
      throw new KanonError(
        `${path} was written by a newer kanon (record format ${v}, this kanon reads ${RECORD_VERSION}); upgrade kanon — the record is left as it is`,
      );
    }
    if (typeof parsed === "string")
      warnings.push(`the kanon record ${path} is unusable: ${parsed}; treating this machine as new`);
    else record = parsed;
  }
  // An unusable record is not patched up from the history: kanon starts afresh, as it says.
  if (warnings.length > 0) return { dir, record, text, warnings, interrupted: [] };
  return { dir, text, warnings, ...reconcile(dir, finishUndo(dir, record, fs), fs) };
}

/**
 * An undo killed once every file was back and before it wrote the record: the record is the one
 * before that apply, as the undo was about to write.
 */
function finishUndo(dir: string, record: OwnershipRecord | null, fs: DestinationFs): OwnershipRecord | null {
  const id = record?.lastApply;
  if (!id || kindOf(id) !== "apply") return record;
  const names = entryNames(dir, fs);
  const name = [`${id}${UNDONE}`, id].find((n) => names.includes(n) && isUndone(dir, n, fs));
  const journal = name === undefined ? null : readJournal(dir, name, fs);
  return journal ? journal.previous : record;
}

/**
 * Whether an entry is undone: renamed so by its undo, or (an undo killed before that rename) with
 * its undo begun and every file back as it was before.
 */
function isUndone(dir: string, name: string, fs: DestinationFs): boolean {
  if (name.endsWith(UNDONE)) return true;
  try {
    if (!fs.lstat(join(dir, "applies", name, UNDOING))) return false;
  } catch {
    return false;
  }
  const journal = readJournal(dir, name, fs);
  return !!journal && journal.changes.every((c) => shows(c.path, c.before, fs));
}

/**
 * An apply killed after its history entry was written and before the record was: ownership of each
 * changed path is what the disk shows (the new state where the new bytes landed, else the old one).
 */
function reconcile(
  dir: string,
  record: OwnershipRecord | null,
  fs: DestinationFs,
): { record: OwnershipRecord | null; interrupted: string[] } {
  // Imports leave the record alone: the last apply is what the record is reconciled with.
  const id = historyIds(dir, fs)
    .filter((i) => kindOf(i) === "apply")
    .at(-1);
  if (id === undefined || id === record?.lastApply) return { record, interrupted: [] };
  const journal = readJournal(dir, id, fs);
  if (!journal?.next || (journal.previous?.lastApply ?? null) !== (record?.lastApply ?? null))
    return { record, interrupted: [] };
  const { previous, next } = journal;
  const out: OwnershipRecord = { ...next, files: { ...next.files }, entries: { ...next.entries } };
  // The directories it made before it was killed are kanon's: they go once nothing needs them.
  const made = (journal.dirs ?? []).filter((d) => isDirectory(d, fs));
  out.dirs = [...new Set([...(previous?.dirs ?? []), ...next.dirs, ...made])];
  const missed = journal.changes.filter((c) => !shows(c.path, c.after, fs));
  // The record keys a file by the path kanon renders; a change to a symlink is at its target.
  const keys = new Map<string, string[]>();
  if (missed.length > 0) {
    for (const table of [previous?.files, previous?.entries, next.files, next.entries])
      for (const key of Object.keys(table ?? {})) {
        const at = symlinkTarget(key, fs);
        keys.set(at, [...new Set([...(keys.get(at) ?? []), key])]);
      }
  }
  for (const c of missed) {
    for (const key of keys.get(c.path) ?? [c.path])
      for (const table of ["files", "entries"] as const) {
        const old = previous?.[table][key];
        if (old) (out[table] as Record<string, unknown>)[key] = old;
        else delete out[table][key];
      }
  }
  out.lastApply = id;
  return { record: out, interrupted: journal.changes.map((c) => c.path) };
}

function isDirectory(path: string, fs: DestinationFs): boolean {
  try {
    return fs.stat(path)?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** Whether the disk shows `state` at `path` (null: nothing there). */
function shows(path: string, state: { sha256: string } | null, fs: DestinationFs): boolean {
  let st: ReturnType<DestinationFs["lstat"]>;
  try {
    st = fs.lstat(path);
  } catch {
    return false;
  }
  if (state === null) return !st;
  if (!st) return false;
  try {
    return sha256(readRegular(path, fs)) === state.sha256;
  } catch {
    return false;
  }
}

/** The names under applies/ (history entries, undone ones, temporary directories). */
function entryNames(dir: string, fs: DestinationFs): string[] {
  try {
    return fs.readdir(join(dir, "applies"));
  } catch {
    return [];
  }
}

/** History entry ids (applies and imports), oldest first (they sort by sequence number). */
function historyIds(dir: string, fs: DestinationFs): string[] {
  return entryNames(dir, fs)
    .filter((n) => !n.startsWith(".") && !isUndone(dir, n, fs))
    .sort();
}

/** An entry's apply.json, checked all the way down; null when it is missing or malformed. */
function readJournal(dir: string, name: string, fs: DestinationFs): Journal | null {
  let j: unknown;
  try {
    j = JSON.parse(readRegular(join(dir, "applies", name, "apply.json"), fs).toString("utf8"));
  } catch {
    return null;
  }
  return journalProblem(j, name) === null ? (j as Journal) : null;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const ACTIONS = new Set(["create", "update", "delete"]);

function isFileState(v: unknown): boolean {
  return (
    v === null ||
    (isObject(v) &&
      typeof v.sha256 === "string" &&
      typeof v.mode === "string" &&
      /^0[0-7]{3,4}$/.test(v.mode))
  );
}

/** Why an entry's apply.json is malformed, or null. */
function journalProblem(j: unknown, name: string): string | null {
  if (!isObject(j) || j.version !== RECORD_VERSION) return "version";
  const id = name.endsWith(UNDONE) ? name.slice(0, -UNDONE.length) : name;
  if ((j.kind ?? "apply") !== kindOf(id) || typeof j.root !== "string" || typeof j.time !== "string")
    return "kind";
  if (!Array.isArray(j.changes)) return "changes";
  for (const c of j.changes) {
    if (!isObject(c) || typeof c.path !== "string" || !isAbsolute(c.path) || typeof c.agent !== "string")
      return "change";
    if (
      typeof c.action !== "string" ||
      !ACTIONS.has(c.action) ||
      !isFileState(c.before) ||
      !isFileState(c.after)
    )
      return "change";
    // A backup is a file of the entry's own files/ folder, and there is one for every old content.
    if (
      c.backup !== null &&
      !(typeof c.backup === "string" && /^files\/[^/]+$/.test(c.backup) && c.backup !== "files/..")
    )
      return "backup";
    if ((c.backup === null) !== (c.before === null)) return "backup";
  }
  if (
    j.dirs !== undefined &&
    !(Array.isArray(j.dirs) && j.dirs.every((d) => typeof d === "string" && isAbsolute(d)))
  )
    return "dirs";
  for (const r of [j.previous, j.next]) {
    if (r === null) continue;
    if (typeof parseRecord(r, j.root) === "string") return "record";
  }
  if (kindOf(id) === "apply" && j.next === null) return "record";
  return null;
}

/** An unwritable state directory is an error naming it, before any destination file is written. */
export function assertWritable(dir: string, fs: DestinationFs = realFs): void {
  try {
    makeDirs(dir, 0o700, fs);
    if (fs === realFs) accessSync(dir, constants.W_OK);
    const probe = tempPathFor(join(dir, "probe"));
    fs.writeNew(probe, new Uint8Array(), 0o600, false);
    fs.unlink(probe);
  } catch (e) {
    throw new KanonError(
      `cannot write the kanon state directory ${dir}: ${osErrorText(e)}; nothing was written`,
    );
  }
}

/** mkdir -p */
function makeDirs(dir: string, mode: number, fs: DestinationFs): void {
  const missing: string[] = [];
  for (let d = dir; !fs.stat(d); d = dirname(d)) {
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdir(d, mode);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
}

export interface Backup {
  change: Change;
  /** Absolute path of the saved bytes. */
  path: string;
}

/** What a history entry is written for: an apply with its records, or an import. */
export type Operation =
  | { kind: "apply"; root: string; previous: OwnershipRecord | null; next: OwnershipRecord }
  | { kind: "import"; root: string };

/** Whether a change's old bytes are the user's (a co-owned or Kanon home file, or content kanon did not write). */
const usersBytes = (c: Change): boolean => !!c.file.merge || c.guard === true || c.replaces !== undefined;

/**
 * Writes the history entry of an apply or import before anything is changed: the old bytes of every
 * file it replaces or deletes, the changes, the directories it is to create, and (an apply) the
 * records before and after. Returns the entry's id and the backups. The entry is made in a temporary
 * directory and renamed into place once complete; apply.json and the backups of the user's bytes are
 * flushed first, the old bytes of files kanon rendered are not (as an apply does not flush the files
 * it renders: flushing fifteen thousand backups one by one took seconds).
 */
export function writeJournal(
  dir: string,
  op: Operation,
  changes: readonly Change[],
  fs: DestinationFs = realFs,
): { id: string; backups: Backup[] } {
  const time = new Date();
  // A sequence number first: operations within the same second must still sort in the order they ran.
  const last = entryNames(dir, fs)
    .filter((n) => !n.startsWith("."))
    .sort()
    .at(-1);
  const seq = (Number.parseInt(last ?? "0", 10) || 0) + 1;
  const id = `${String(seq).padStart(6, "0")}-${time
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z")}-${randomHex(3)}${op.kind === "import" ? IMPORT_SUFFIX : ""}`;
  const applies = join(dir, "applies");
  // Named like every kanon temporary file: the next apply sweeps it if this process is killed.
  const temp = tempPathFor(join(applies, id));
  const backups: Backup[] = [];
  try {
    makeDirs(join(temp, "files"), 0o700, fs);
    const entries: JournalChange[] = changes.map((change, n) => {
      let backup: string | null = null;
      if (change.before) {
        backup = join("files", `${n}-${basename(change.path)}`);
        const at = join(temp, backup);
        if (usersBytes(change) || !linked(change.path, at, fs))
          fs.writeNew(at, change.before, 0o600, usersBytes(change));
        backups.push({ change, path: join(applies, id, backup) });
      }
      return {
        path: change.path,
        agent: change.file.agent,
        action: change.action,
        before: change.before
          ? { sha256: contentHash(change.before), mode: octalMode(change.beforeMode!) }
          : null,
        after: change.after ? { sha256: contentHash(change.after), mode: octalMode(change.mode) } : null,
        backup,
        ...(change.replaces ? { replaces: change.replaces } : {}),
        ...(change.before && !usersBytes(change) ? { rendered: true as const } : {}),
      };
    });
    const journal: Journal = {
      version: RECORD_VERSION,
      id,
      kind: op.kind,
      root: op.root,
      time: time.toISOString(),
      previous: op.kind === "apply" ? op.previous : null,
      next: op.kind === "apply" ? { ...op.next, lastApply: id } : null,
      changes: entries,
      // Made by a concurrent program in the instant before kanon's mkdir, one would count as kanon's:
      // it is only ever removed when empty.
      dirs: plannedDirs(changes, fs),
    };
    fs.writeNew(join(temp, "apply.json"), Buffer.from(`${JSON.stringify(journal)}\n`), 0o600, true);
    fs.rename(temp, join(applies, id));
  } catch (e) {
    removeTree(temp, fs);
    throw new KanonError(
      `cannot write the kanon state directory ${dir}: ${osErrorText(e)}; nothing was written`,
    );
  }
  return { id, backups };
}

/**
 * The old bytes of a file kanon rendered are kept by a second name for that file, not copied: the
 * rename that replaces it leaves the old file to the backup's name alone (an update of fifteen
 * thousand skill files wrote as many backups; linking them costs a fraction). The user's bytes are
 * copied (0600, flushed), and so is anything on another file system. Undo checks every backup
 * against the sha256 of what was planned, so a write to the file before its rename is never taken
 * for the old bytes (the apply stops at it anyway).
 */
function linked(path: string, backup: string, fs: DestinationFs): boolean {
  try {
    fs.link(path, backup);
    return true;
  } catch {
    return false;
  }
}

/**
 * After a failed apply or import: its history entry goes when none of its changes reached the disk
 * (a failure while staging); otherwise it stays, for the next run to reconcile the record from (and
 * for `kanon undo`).
 */
export function dropUnusedJournal(dir: string, id: string, fs: DestinationFs = realFs): void {
  const journal = readJournal(dir, id, fs);
  if (journal?.changes.some((c) => shows(c.path, c.after, fs))) return;
  removeEntry(dir, id, fs);
}

export function writeRecord(dir: string, record: OwnershipRecord, fs: DestinationFs = realFs): void {
  writeFileAtomic(join(dir, "record.json"), Buffer.from(recordText(record)), 0o600, fs);
}

/** Keeps the last HISTORY_LENGTH applies and imports. */
export function pruneHistory(dir: string, fs: DestinationFs = realFs): void {
  const ids = historyIds(dir, fs);
  for (const id of ids.slice(0, Math.max(0, ids.length - HISTORY_LENGTH))) removeEntry(dir, id, fs);
}

/**
 * Before anything is written: an entry whose undo was killed once every file was back is renamed
 * `<id>.undone`, as that undo was about to (what the disk shows would not stay so).
 */
export function settleUndone(dir: string, fs: DestinationFs = realFs): void {
  for (const name of entryNames(dir, fs)) {
    if (name.startsWith(".") || name.endsWith(UNDONE) || !isUndone(dir, name, fs)) continue;
    fs.rename(join(dir, "applies", name), join(dir, "applies", `${name}${UNDONE}`));
  }
}

/** Once a record is written: the undone entries (whose records finishUndo read until then) go. */
export function removeUndone(dir: string, fs: DestinationFs = realFs): void {
  for (const name of entryNames(dir, fs))
    if (name.endsWith(UNDONE)) removeTree(join(dir, "applies", name), fs);
}

/** An entry leaves the history at once (a rename), then its files go: a kill leaves a temporary directory. */
function removeEntry(dir: string, id: string, fs: DestinationFs): void {
  const gone = tempPathFor(join(dir, "applies", id));
  try {
    fs.rename(join(dir, "applies", id), gone);
  } catch {
    return;
  }
  removeTree(gone, fs);
}

function removeTree(path: string, fs: DestinationFs): void {
  let st: ReturnType<DestinationFs["lstat"]>;
  try {
    st = fs.lstat(path);
  } catch {
    return;
  }
  if (!st) return;
  try {
    if (st.isDirectory()) {
      for (const name of fs.readdir(path)) removeTree(join(path, name), fs);
      fs.rmdir(path);
    } else fs.unlink(path);
  } catch {}
}

/** One file `kanon undo` writes back or removes. */
export interface UndoStep {
  path: string;
  agent: string;
  action: "remove" | "restore";
  /** The saved bytes (absolute path), for a restore. */
  backup: string | null;
  /** What the operation left there (null: it deleted the file), and what was there before it. */
  after: FileState | null;
  before: FileState | null;
  /** Flush the restored bytes to disk (they were the user's, or an older entry does not say). */
  flush: boolean;
}

/** What `kanon undo` would do: the newest history entry's changes, checked against the disk. */
export interface UndoPlan {
  id: string;
  kind: OperationKind;
  time: string;
  steps: UndoStep[];
  /** Paths changed again since that apply or import (undo refuses). */
  changed: string[];
  /** Backups that are missing or do not hold what was saved (undo refuses, restoring nothing). */
  damaged: string[];
  /** The record an apply's undo goes back to (an import's leaves the record alone). */
  previous: OwnershipRecord | null;
  /** Directories that apply or import created. */
  createdDirs: string[];
  /** Where it wrote: an interrupted one's temporary files may be there. */
  wrote: string[];
  /** The entry's directory. */
  entry: string;
}

export function planUndo(
  dir: string,
  current: OwnershipRecord | null,
  fs: DestinationFs = realFs,
): UndoPlan | null {
  const id = historyIds(dir, fs).at(-1);
  if (id === undefined) return null;
  const entry = join(dir, "applies", id);
  const journal = readJournal(dir, id, fs);
  if (!journal)
    throw new KanonError(
      `cannot undo: the history entry ${entry} is unreadable; nothing was restored (remove that directory to undo the ones before it)`,
    );
  const kind = kindOf(id);
  // A change that did not land but left the old state (an apply killed before it got there) needs
  // nothing; one that shows neither state was changed since.
  const landed = new Set<JournalChange>();
  const done = journal.changes.filter((c) => {
    if (shows(c.path, c.after, fs)) landed.add(c);
    return landed.has(c) || !shows(c.path, c.before, fs);
  });
  const before = new Set(journal.previous?.dirs ?? []);
  const recorded = kind === "apply" ? (current?.dirs ?? journal.next?.dirs ?? []) : [];
  const steps: UndoStep[] = done.map((c) => ({
    path: c.path,
    agent: c.agent,
    // Nothing was there before (a created file): undo removes it.
    action: c.backup === null ? "remove" : "restore",
    backup: c.backup ? join(entry, c.backup) : null,
    after: c.after,
    before: c.before,
    flush: c.rendered !== true,
  }));
  return {
    id,
    kind,
    time: journal.time,
    steps,
    changed: done.filter((c) => !landed.has(c)).map((c) => c.path),
    // Checked against their sha256 by runUndo, after the prompt; here only whether they are there.
    damaged: steps.flatMap((s) => (s.backup && !present(s.backup, fs) ? [missing(s)] : [])),
    previous: journal.previous,
    createdDirs: [...new Set([...recorded, ...(journal.dirs ?? [])])].filter((d) => !before.has(d)),
    wrote: journal.changes.map((c) => c.path),
    entry,
  };
}

/**
 * `kanon undo --force`: the plan with each file changed since taken as it is now (the caller saved a
 * copy of it first), so that undo replaces it, and still refuses one that changes again before its
 * rename. A path that is no longer a regular file stays changed (runUndo refuses it).
 */
export function forcedUndo(plan: UndoPlan, fs: DestinationFs = realFs): UndoPlan {
  const changed = new Set(plan.changed);
  const now = (path: string): FileState | null | undefined => {
    try {
      const st = fs.lstat(path);
      if (!st) return null;
      return { sha256: sha256(readRegular(path, fs)), mode: octalMode(st.mode & 0o7777) };
    } catch {
      return undefined;
    }
  };
  const steps = plan.steps.map((s) => {
    if (!changed.has(s.path)) return s;
    const after = now(s.path);
    return after === undefined ? s : { ...s, after };
  });
  return { ...plan, steps, changed: [] };
}

/**
 * `kanon undo --force`: a private copy of `path` (when it is a regular file) in the state directory,
 * outside the history undo takes down; its path, or null when there is no file to save. A file that
 * cannot be read stops the undo: what it holds would otherwise be lost.
 */
export function saveBeforeUndo(
  dir: string,
  id: string,
  path: string,
  fs: DestinationFs = realFs,
): string | null {
  let data: Buffer;
  try {
    if (!fs.stat(path)?.isFile()) return null;
    data = fs.readFile(path);
  } catch (e) {
    throw new KanonError(
      `cannot save ${path} before undoing it: ${e instanceof ReadRefused ? e.reason : osErrorText(e)}; nothing was restored`,
    );
  }
  const into = join(dir, "undone", id);
  makeDirs(into, 0o700, fs);
  let backup = join(into, basename(path));
  for (let i = 2; fs.lstat(backup); i++) backup = join(into, `${basename(path)}-${i}`);
  fs.writeNew(backup, data, 0o600, true);
  return backup;
}

function present(path: string, fs: DestinationFs): boolean {
  try {
    return fs.lstat(path) !== null;
  } catch {
    return true; // unreadable: runUndo says how
  }
}

/** A backup that is its file as it was (mode included), on the destination's file system. */
function movable(step: UndoStep, fs: DestinationFs): boolean {
  try {
    const backup = fs.lstat(step.backup!);
    const dir = fs.stat(dirname(step.path));
    return (
      !!backup &&
      !!dir &&
      backup.dev === dir.dev &&
      (backup.mode & 0o777) === Number.parseInt(step.before!.mode, 8)
    );
  } catch {
    return false;
  }
}

const missing = (step: UndoStep) => `the backup of ${step.path} (${step.backup}) is missing`;

/** Every restore's saved bytes, each checked against the sha256 recorded when it was saved. */
function readBackups(
  steps: readonly UndoStep[],
  fs: DestinationFs,
): { bytes: Map<UndoStep, Buffer>; damaged: string[] } {
  const bytes = new Map<UndoStep, Buffer>();
  const damaged: string[] = [];
  for (const step of steps) {
    if (step.action !== "restore") continue;
    let data: Buffer;
    try {
      data = readRegular(step.backup!, fs);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      damaged.push(
        code === "ENOENT"
          ? missing(step)
          : `the backup of ${step.path} (${step.backup}) is unreadable: ${osErrorText(e)}`,
      );
      continue;
    }
    if (sha256(data) !== step.before!.sha256) {
      damaged.push(
        `the backup of ${step.path} (${step.backup}) does not hold what was saved (sha256 differs)`,
      );
      continue;
    }
    bytes.set(step, data);
  }
  return { bytes, damaged };
}

/**
 * Undoes the newest apply or import, all or nothing: every backup is read and checked, and every file
 * is checked to be as that operation left it, before the first one is written; then each file is
 * checked again right before its own rename (or removal), so nothing written since, even while undo
 * waited for its answer, is overwritten. The temporary files an interrupted run left beside them go
 * first, then the directories it created once they are empty. Returns how many temporary files
 * were removed. `what` names the operation in messages ("the apply of <time>").
 */
export function runUndo(dir: string, plan: UndoPlan, what: string, fs: DestinationFs = realFs): number {
  const swept = removeLeftovers(
    [dir, join(dir, "applies"), ...new Set(plan.wrote.map((p) => dirname(p)))],
    fs,
  );
  settleUndone(dir, fs);
  const { bytes, damaged } = readBackups(plan.steps, fs);
  if (damaged.length > 0)
    throw new KanonError(
      `cannot undo ${what}: ${damaged.join("; ")}; nothing was restored (remove ${plan.entry} to undo the ones before it)`,
    );
  // A backup with the file's mode, on its file system, is moved into place (no copy); the others
  // are copied beside their destination first.
  const staged = new Map<UndoStep, string>();
  const moved = new Set<UndoStep>();
  const cleanup = () => {
    for (const temp of staged.values()) {
      try {
        fs.unlink(temp);
      } catch {}
    }
  };
  try {
    for (const [step, data] of bytes) {
      makeDirs(dirname(step.path), 0o755, fs);
      if (movable(step, fs)) {
        moved.add(step);
        continue;
      }
      const temp = tempPathFor(step.path);
      fs.writeNew(temp, data, Number.parseInt(step.before!.mode, 8), step.flush);
      staged.set(step, temp);
    }
  } catch (e) {
    cleanup();
    throw new KanonError(`cannot undo ${what}: ${osErrorText(e)}; nothing was restored`);
  }
  // Every file as that operation left it (undo may have waited minutes for its answer).
  const changed = plan.steps.filter((s) => !shows(s.path, s.after, fs)).map((s) => s.path);
  if (changed.length > 0) {
    cleanup();
    throw new KanonError(
      `cannot undo ${what}: changed since then: ${changed.join(", ")}; nothing was restored`,
    );
  }
  // From here on, an undo killed once every file is back counts as done (isUndone).
  try {
    fs.writeNew(join(plan.entry, UNDOING), new Uint8Array(), 0o600, true);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") {
      cleanup();
      throw new KanonError(
        `cannot write the kanon state directory ${dir}: ${osErrorText(e)}; nothing was restored`,
      );
    }
  }
  const done: string[] = [];
  for (const step of plan.steps) {
    const temp = moved.has(step) ? step.backup : staged.get(step);
    try {
      if (!shows(step.path, step.after, fs)) throw new ChangedError(step.path, done, "undoing");
      if (step.action === "remove") fs.unlink(step.path);
      else if (step.after === null) {
        if (!linkNew(temp!, step.path, fs)) throw new ChangedError(step.path, done, "undoing");
      } else fs.rename(temp!, step.path);
      staged.delete(step);
      done.push(step.path);
    } catch (e) {
      cleanup();
      if (e instanceof KanonError) throw e;
      throw new KanonError(`cannot undo ${what}: ${step.path}: ${osErrorText(e)}`);
    }
  }
  for (const d of [...plan.createdDirs].sort((a, b) => b.length - a.length)) {
    try {
      if (fs.stat(d)?.isDirectory() && fs.readdir(d).length === 0) fs.rmdir(d);
    } catch {}
  }
  // Out of the history first (one rename), then the record: a kill in between is finished by the
  // next run (finishUndo), and no later undo reads a half-removed entry.
  const undone = join(dir, "applies", `${plan.id}${UNDONE}`);
  fs.rename(plan.entry, undone);
  if (plan.kind === "apply") {
    if (plan.previous) writeRecord(dir, plan.previous, fs);
    else {
      try {
        fs.unlink(join(dir, "record.json"));
      } catch {}
    }
  }
  removeTree(undone, fs);
  // Those a killed undo left go once a record is written after them (an import's undo writes none).
  if (plan.kind === "apply") removeUndone(dir, fs);
  return swept;
}

/**
 * Where an interrupted kanon may have left temporary files that the rendered files do not lead to:
 * the state directory, and beside each file an interrupted apply was writing.
 */
export function leftoverDirs(loaded: LoadedRecord): string[] {
  return [
    ...new Set([loaded.dir, join(loaded.dir, "applies"), ...loaded.interrupted.map((p) => dirname(p))]),
  ];
}

/** Temp file beside `path` (pid-named, see removeLeftovers), flushed, then renamed over it. */
function writeFileAtomic(path: string, data: Uint8Array, mode: number, fs: DestinationFs): void {
  const temp = tempPathFor(path);
  try {
    fs.writeNew(temp, data, mode, true);
    fs.rename(temp, path);
  } catch (e) {
    try {
      fs.unlink(temp);
    } catch {}
    throw e;
  }
}
