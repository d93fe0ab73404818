/**
 * The state directory: per machine, never in the Kanon home or a project. One directory per
 * destination root holds the ownership record and a short history of applies with backups:
 *
 *   $XDG_STATE_HOME/kanon/            (~/.local/state/kanon/ when XDG_STATE_HOME is unset)
 *     roots/<name>-<hash>/            one per destination root (home directory or project)
 *       record.json                   what kanon owns there (src/destination/record.ts)
 *       applies/<id>/apply.json       one apply: its changes, the record before and after
 *       applies/<id>/files/<n>        the bytes a change replaced or deleted
 *
 * The history is written (and flushed) before any destination file is renamed, and the record after
 * the last one: a kill in between leaves a record that the next run reconciles from the history.
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
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { osErrorText } from "../model/fs-errors.js";
import { KanonError } from "../model/types.js";
import { tempPathFor } from "./apply.js";
import type { Change } from "./plan.js";
import {
  type OwnershipRecord,
  octalMode,
  parseRecord,
  RECORD_VERSION,
  type Replaces,
  recordText,
  sha256,
} from "./record.js";

/** How many applies `kanon undo` can go back. */
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

interface Journal {
  version: number;
  id: string;
  root: string;
  time: string;
  previous: OwnershipRecord | null;
  next: OwnershipRecord;
  changes: JournalChange[];
}

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
    text = readFileSync(path, "utf8");
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
  const id = applyIds(dir).at(-1);
  if (id === undefined || id === record?.lastApply) return { record, interrupted: [] };
  const journal = readJournal(dir, id);
  if (!journal || (journal.previous?.lastApply ?? null) !== (record?.lastApply ?? null))
    return { record, interrupted: [] };
  const { previous, next } = journal;
  const out: OwnershipRecord = { ...next, files: { ...next.files }, entries: { ...next.entries } };
  out.dirs = [...new Set([...(previous?.dirs ?? []), ...next.dirs])];
  for (const c of journal.changes) {
    if (landed(c)) continue;
    for (const table of ["files", "entries"] as const) {
      const old = previous?.[table][c.path];
      if (old) (out[table] as Record<string, unknown>)[c.path] = old;
      else delete out[table][c.path];
    }
  }
  out.lastApply = id;
  return { record: out, interrupted: journal.changes.map((c) => c.path) };
}

/** Whether the disk shows the change's result. */
function landed(c: JournalChange): boolean {
  const st = lstatSync(c.path, { throwIfNoEntry: false });
  if (c.after === null) return !st;
  if (!st) return false;
  try {
    return sha256(readFileSync(c.path)) === c.after.sha256;
  } catch {
    return false;
  }
}

/** Apply ids, oldest first (they sort by time). */
function applyIds(dir: string): string[] {
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
    const j = JSON.parse(readFileSync(join(dir, "applies", id, "apply.json"), "utf8")) as Journal;
    return j.version === RECORD_VERSION && Array.isArray(j.changes) ? j : null;
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

/**
 * Writes the history entry of an apply before anything is changed: the old bytes of every file it
 * replaces or deletes, the changes, and the records before and after. Returns the apply id and the
 * backups.
 */
export function writeJournal(
  dir: string,
  root: string,
  previous: OwnershipRecord | null,
  next: OwnershipRecord,
  changes: readonly Change[],
): { id: string; backups: Backup[] } {
  const time = new Date();
  // A sequence number first: applies within the same second must still sort in the order they ran.
  const seq = (Number.parseInt(applyIds(dir).at(-1) ?? "0", 10) || 0) + 1;
  const id = `${String(seq).padStart(6, "0")}-${time
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z")}-${randomBytes(3).toString("hex")}`;
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
      root,
      time: time.toISOString(),
      previous,
      next: { ...next, lastApply: id },
      changes: entries,
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
 * After a failed apply: its history entry goes when none of its changes reached the disk (a failure
 * while staging); otherwise it stays, for the next run to reconcile the record from.
 */
export function dropUnusedJournal(dir: string, id: string): void {
  const journal = readJournal(dir, id);
  if (journal?.changes.some(landed)) return;
  rmSync(join(dir, "applies", id), { recursive: true, force: true });
}

export function writeRecord(dir: string, record: OwnershipRecord): void {
  writeFileAtomic(join(dir, "record.json"), recordText(record), 0o600);
}

/** Keeps the last HISTORY_LENGTH applies. */
export function pruneHistory(dir: string): void {
  const ids = applyIds(dir);
  for (const id of ids.slice(0, Math.max(0, ids.length - HISTORY_LENGTH)))
    rmSync(join(dir, "applies", id), { recursive: true, force: true });
}

/** What `kanon undo` would do: the last apply's changes, checked against the disk. */
export interface UndoPlan {
  id: string;
  time: string;
  steps: { path: string; agent: string; action: "remove" | "restore"; backup: string | null; mode: number }[];
  /** Paths changed again since that apply (undo refuses). */
  changed: string[];
  previous: OwnershipRecord | null;
  /** Directories that apply created. */
  createdDirs: string[];
}

export function planUndo(dir: string, current: OwnershipRecord | null): UndoPlan | null {
  const id = applyIds(dir).at(-1);
  if (id === undefined) return null;
  const journal = readJournal(dir, id);
  if (!journal)
    throw new KanonError(`cannot undo: the history entry ${join(dir, "applies", id)} is unreadable`);
  const before = new Set(journal.previous?.dirs ?? []);
  return {
    id,
    time: journal.time,
    steps: journal.changes.map((c) => ({
      path: c.path,
      agent: c.agent,
      action: c.action === "create" ? "remove" : "restore",
      backup: c.backup ? join(dir, "applies", id, c.backup) : null,
      mode: Number.parseInt(c.before?.mode ?? "0644", 8),
    })),
    changed: journal.changes.filter((c) => !landed(c)).map((c) => c.path),
    previous: journal.previous,
    createdDirs: (current?.dirs ?? journal.next.dirs).filter((d) => !before.has(d)),
  };
}

/** Undoes the last apply (planUndo found nothing changed since). Each file is replaced atomically. */
export function runUndo(dir: string, plan: UndoPlan): void {
  for (const step of plan.steps) {
    if (step.action === "remove") {
      rmSync(step.path, { force: true });
      continue;
    }
    mkdirSync(dirname(step.path), { recursive: true });
    writeFileAtomic(step.path, readFileSync(step.backup!), step.mode);
  }
  for (const d of [...plan.createdDirs].sort((a, b) => b.length - a.length)) {
    try {
      if (statSync(d).isDirectory() && readdirSync(d).length === 0) rmdirSync(d);
    } catch {}
  }
  if (plan.previous) writeRecord(dir, plan.previous);
  else rmSync(join(dir, "record.json"), { force: true });
  rmSync(join(dir, "applies", plan.id), { recursive: true, force: true });
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
