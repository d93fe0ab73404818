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
 * `kanon undo` takes the newest entry back, whichever kind it is.
 */
import { randomBytes } from "node:crypto";
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { READ_LIMIT, readBounded } from "../model/bounded-read.js";
import { osErrorText } from "../model/fs-errors.js";
import { KanonError } from "../model/types.js";
import { plannedDirs, removeLeftovers } from "./apply.js";
import { type Change, symlinkTarget } from "./plan.js";
import {
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
export function loadRootState(base: string, root: string): LoadedRecord {
  let names: string[];
  try {
    names = readdirSync(join(base, "roots"));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") return loadRecord(rootStateDir(base, root), root);
    names = [];
  }
  const prefix = `${rootName(root)}-`;
  if (names.some((n) => n.startsWith(prefix))) return loadRecord(rootStateDir(base, root), root);
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

interface JournalChange {
  path: string;
  agent: string;
  action: Change["action"];
  before: { sha256: string; mode: string } | null;
  after: { sha256: string; mode: string } | null;
  /** Relative to the apply's directory. */
  backup: string | null;
  replaces?: Replaces;
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
const kindOf = (id: string): OperationKind => (id.endsWith(IMPORT_SUFFIX) ? "import" : "apply");

/**
 * The record for `root`. Missing: null. Unreadable or corrupt: a warning, and null (kanon then
 * behaves as on a machine it has never seen). From a newer kanon: an error, and it is never rewritten.
 */
export function loadRecord(dir: string, root: string): LoadedRecord {
  const path = join(dir, "record.json");
  const warnings: string[] = [];
  let text: string | null = null;
  let record: OwnershipRecord | null = null;
  try {
    text = readBounded(path, { limit: READ_LIMIT.state }).bytes.toString("utf8");
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
  return { dir, text, warnings, ...reconcile(dir, record) };
}

/**
 * An apply killed after its history entry was written and before the record was: ownership of each
 * changed path is what the disk shows (the new state where the new bytes landed, else the old one).
 */
function reconcile(
  dir: string,
  record: OwnershipRecord | null,
): { record: OwnershipRecord | null; interrupted: string[] } {
  // Imports leave the record alone: the last apply is what the record is reconciled with.
  const id = historyIds(dir)
    .filter((i) => kindOf(i) === "apply")
    .at(-1);
  if (id === undefined || id === record?.lastApply) return { record, interrupted: [] };
  const journal = readJournal(dir, id);
  if (!journal?.next || (journal.previous?.lastApply ?? null) !== (record?.lastApply ?? null))
    return { record, interrupted: [] };
  const { previous, next } = journal;
  const out: OwnershipRecord = { ...next, files: { ...next.files }, entries: { ...next.entries } };
  // The directories it made before it was killed are kanon's: they go once nothing needs them.
  const made = (journal.dirs ?? []).filter((d) => statSync(d, { throwIfNoEntry: false })?.isDirectory());
  out.dirs = [...new Set([...(previous?.dirs ?? []), ...next.dirs, ...made])];
  const missed = journal.changes.filter((c) => !landed(c));
  // The record keys a file by the path kanon renders; a change to a symlink is at its target.
  const keys = new Map<string, string[]>();
  if (missed.length > 0) {
    for (const table of [previous?.files, previous?.entries, next.files, next.entries])
      for (const key of Object.keys(table ?? {})) {
        const at = symlinkTarget(key);
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

/** Whether the disk shows the change's result. */
const landed = (c: JournalChange): boolean => shows(c.path, c.after);

/** Whether the disk shows what was there before the change (an interrupted apply may not have got to it). */
const untouched = (c: JournalChange): boolean => shows(c.path, c.before);

function shows(path: string, state: { sha256: string } | null): boolean {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (state === null) return !st;
  if (!st) return false;
  try {
    return sha256(readBounded(path, { limit: READ_LIMIT.destination }).bytes) === state.sha256;
  } catch {
    return false;
  }
}

/** History entry ids (applies and imports), oldest first (they sort by sequence number). */
function historyIds(dir: string): string[] {
  try {
    return readdirSync(join(dir, "applies"))
      .filter((n) => !n.startsWith("."))
      .sort();
  } catch {
    return [];
  }
}

function readJournal(dir: string, id: string): Journal | null {
  try {
    const file = readBounded(join(dir, "applies", id, "apply.json"), { limit: READ_LIMIT.state });
    const j = JSON.parse(file.bytes.toString("utf8")) as Journal;
    return j.version === RECORD_VERSION && Array.isArray(j.changes) && (j.kind ?? "apply") === kindOf(id)
      ? j
      : null;
  } catch {
    return null;
  }
}

/** An unwritable state directory is an error naming it, before any destination file is written. */
export function assertWritable(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
    const probe = tempPathFor(join(dir, "probe"));
    writeFileAtomic(probe, "", 0o600);
    unlinkSync(probe);
  } catch (e) {
    throw new KanonError(
      `cannot write the kanon state directory ${dir}: ${osErrorText(e)}; nothing was written`,
    );
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

/**
 * Writes the history entry of an apply or import before anything is changed: the old bytes of every
 * file it replaces or deletes, the changes, the directories it is to create, and (an apply) the
 * records before and after. Returns the entry's id and the backups.
 */
export function writeJournal(
  dir: string,
  op: Operation,
  changes: readonly Change[],
): { id: string; backups: Backup[] } {
  const time = new Date();
  // A sequence number first: operations within the same second must still sort in the order they ran.
  const seq = (Number.parseInt(historyIds(dir).at(-1) ?? "0", 10) || 0) + 1;
  const id = `${String(seq).padStart(6, "0")}-${time
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z")}-${randomBytes(3).toString("hex")}${op.kind === "import" ? IMPORT_SUFFIX : ""}`;
  const applies = join(dir, "applies");
  // Named like every kanon temporary file: the next apply sweeps it if this process is killed.
  const temp = tempPathFor(join(applies, id));
  const backups: Backup[] = [];
  try {
    mkdirSync(join(temp, "files"), { recursive: true, mode: 0o700 });
    const entries: JournalChange[] = changes.map((change, n) => {
      let backup: string | null = null;
      if (change.before) {
        backup = join("files", `${n}-${basename(change.path)}`);
        writeFileAtomic(join(temp, backup), change.before, 0o600);
        backups.push({ change, path: join(applies, id, backup) });
      }
      return {
        path: change.path,
        agent: change.file.agent,
        action: change.action,
        before: change.before ? { sha256: sha256(change.before), mode: octalMode(change.beforeMode!) } : null,
        after: change.after ? { sha256: sha256(change.after), mode: octalMode(change.mode) } : null,
        backup,
        ...(change.replaces ? { replaces: change.replaces } : {}),
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
      dirs: plannedDirs(changes),
    };
    writeFileAtomic(join(temp, "apply.json"), `${JSON.stringify(journal)}\n`, 0o600);
    renameSync(temp, join(applies, id));
  } catch (e) {
    rmSync(temp, { recursive: true, force: true });
    throw new KanonError(
      `cannot write the kanon state directory ${dir}: ${osErrorText(e)}; nothing was written`,
    );
  }
  return { id, backups };
}

/**
 * After a failed apply or import: its history entry goes when none of its changes reached the disk
 * (a failure while staging); otherwise it stays, for the next run to reconcile the record from (and
 * for `kanon undo`).
 */
export function dropUnusedJournal(dir: string, id: string): void {
  const journal = readJournal(dir, id);
  if (journal?.changes.some(landed)) return;
  rmSync(join(dir, "applies", id), { recursive: true, force: true });
}

export function writeRecord(dir: string, record: OwnershipRecord): void {
  writeFileAtomic(join(dir, "record.json"), recordText(record), 0o600);
}

/** Keeps the last HISTORY_LENGTH applies and imports. */
export function pruneHistory(dir: string): void {
  const ids = historyIds(dir);
  for (const id of ids.slice(0, Math.max(0, ids.length - HISTORY_LENGTH)))
    rmSync(join(dir, "applies", id), { recursive: true, force: true });
}

/** What `kanon undo` would do: the newest history entry's changes, checked against the disk. */
export interface UndoPlan {
  id: string;
  kind: OperationKind;
  time: string;
  steps: { path: string; agent: string; action: "remove" | "restore"; backup: string | null; mode: number }[];
  /** Paths changed again since that apply or import (undo refuses). */
  changed: string[];
  /** The record an apply's undo goes back to (an import's leaves the record alone). */
  previous: OwnershipRecord | null;
  /** Directories that apply or import created. */
  createdDirs: string[];
  /** Where it wrote: an interrupted one's temporary files may be there. */
  wrote: string[];
}

export function planUndo(dir: string, current: OwnershipRecord | null): UndoPlan | null {
  const id = historyIds(dir).at(-1);
  if (id === undefined) return null;
  const journal = readJournal(dir, id);
  if (!journal)
    throw new KanonError(`cannot undo: the history entry ${join(dir, "applies", id)} is unreadable`);
  const kind = kindOf(id);
  // A change that did not land but left the old state (an apply killed before it got there) needs
  // nothing; one that shows neither state was changed since.
  const done = journal.changes.filter((c) => landed(c) || !untouched(c));
  const before = new Set(journal.previous?.dirs ?? []);
  const recorded = kind === "apply" ? (current?.dirs ?? journal.next?.dirs ?? []) : [];
  return {
    id,
    kind,
    time: journal.time,
    steps: done.map((c) => ({
      path: c.path,
      agent: c.agent,
      // Nothing was there before (a created file): undo removes it.
      action: c.backup === null ? "remove" : "restore",
      backup: c.backup ? join(dir, "applies", id, c.backup) : null,
      mode: Number.parseInt(c.before?.mode ?? "0644", 8),
    })),
    changed: done.filter((c) => !landed(c)).map((c) => c.path),
    previous: journal.previous,
    createdDirs: [...new Set([...recorded, ...(journal.dirs ?? [])])].filter((d) => !before.has(d)),
    wrote: journal.changes.map((c) => c.path),
  };
}

/**
 * Undoes the newest apply or import (planUndo found nothing changed since). Each file is replaced
 * atomically; the temporary files an interrupted run left beside them go first, then the directories
 * it created once they are empty. Returns how many temporary files were removed.
 */
export function runUndo(dir: string, plan: UndoPlan): number {
  const swept = removeLeftovers([dir, join(dir, "applies"), ...new Set(plan.wrote.map((p) => dirname(p)))]);
  for (const step of plan.steps) {
    if (step.action === "remove") {
      rmSync(step.path, { force: true });
      continue;
    }
    mkdirSync(dirname(step.path), { recursive: true });
    writeFileAtomic(step.path, readBounded(step.backup!, { limit: READ_LIMIT.state }).bytes, step.mode);
  }
  for (const d of [...plan.createdDirs].sort((a, b) => b.length - a.length)) {
    try {
      if (statSync(d).isDirectory() && readdirSync(d).length === 0) rmdirSync(d);
    } catch {}
  }
  if (plan.kind === "apply") {
    if (plan.previous) writeRecord(dir, plan.previous);
    else rmSync(join(dir, "record.json"), { force: true });
  }
  rmSync(join(dir, "applies", plan.id), { recursive: true, force: true });
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
function writeFileAtomic(path: string, data: Uint8Array | string, mode: number): void {
  const temp = tempPathFor(path);
  const fd = openSync(temp, "wx", 0o600);
  try {
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw e;
  }
  closeSync(fd);
  try {
    if (mode !== 0o600) chmodSync(temp, mode);
    renameSync(temp, path);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
}
