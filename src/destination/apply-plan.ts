/**
 * An apply with its ownership record: check the state directory, save what is about to be replaced
 * (the history entry `kanon undo` reads), write the destination, then the record. An import into the
 * Kanon home goes through the same history, so that `kanon undo` takes it back too.
 */
import { dirname, join } from "node:path";
import { applyChanges, removeLeftovers } from "./apply.js";
import { type DestinationFs, realFs } from "./fs.js";
import { type Change, type Plan, symlinkTarget } from "./plan.js";
import { type OwnershipRecord, recordText } from "./record.js";
import {
  assertWritable,
  type Backup,
  dropUnusedJournal,
  type LoadedRecord,
  leftoverDirs,
  pruneHistory,
  removeUndone,
  settleUndone,
  writeJournal,
  writeRecord,
} from "./state.js";

/**
 * Writes `plan`. First the temporary files an interrupted apply left are removed where the rendered
 * files do not lead (those beside them are the caller's to sweep, see removeLeftovers): in the state
 * directory (the record's own atomic writes, a history entry being written, with its backups) and
 * beside what that apply was writing (a skill no longer rendered). `swept` counts them; `written`
 * counts the destination files written or deleted (applyChanges), the record aside.
 */
export function applyPlan(
  plan: Plan,
  loaded: LoadedRecord,
  fs: DestinationFs = realFs,
): { backups: Backup[]; swept: number; written: number } {
  const swept = removeLeftovers(leftoverDirs(loaded), fs);
  settleUndone(loaded.dir, fs);
  return { ...writePlan(plan, loaded, fs), swept };
}

function writePlan(
  plan: Plan,
  loaded: LoadedRecord,
  fs: DestinationFs,
): { backups: Backup[]; written: number } {
  const record = plan.record;
  if (plan.changes.length === 0) {
    // Nothing to write but the record itself: adopted entries, an apply killed before its record,
    // or the directories such an apply made that nothing needs.
    const kept = { ...record, dirs: [...record.dirs, ...removeEmptyDirs(plan.emptyDirs, fs)] };
    if (loaded.text !== recordText(kept)) {
      assertWritable(loaded.dir, fs);
      writeRecord(loaded.dir, kept, fs);
      removeUndone(loaded.dir, fs);
    }
    return { backups: [], written: 0 };
  }
  assertWritable(loaded.dir, fs);
  const op = { kind: "apply" as const, root: record.root, previous: loaded.record, next: record };
  const { id, backups } = writeJournal(loaded.dir, op, plan.changes, fs);
  let createdDirs: string[];
  let written: number;
  try {
    ({ createdDirs, written } = applyChanges(plan.changes, fs));
  } catch (e) {
    dropUnusedJournal(loaded.dir, id, fs);
    throw e;
  }
  const kept = removeEmptyDirs(plan.emptyDirs, fs);
  writeRecord(loaded.dir, { ...record, dirs: [...record.dirs, ...kept, ...createdDirs], lastApply: id }, fs);
  removeUndone(loaded.dir, fs);
  pruneHistory(loaded.dir, fs);
  return { backups, written };
}

/** Removes the directories (deepest first); returns those that are not empty after all (still kanon's). */
function removeEmptyDirs(dirs: readonly string[], fs: DestinationFs): string[] {
  const kept: string[] = [];
  for (const dir of dirs) {
    try {
      fs.rmdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") kept.push(dir);
    }
  }
  return kept;
}

/**
 * Writes an import's changes into the Kanon home, all or none, with a history entry in `stateDir`
 * (the state directory of the scope the import read) so that `kanon undo` takes it back. The
 * temporary files of an interrupted import or apply there go first; returns how many.
 */
export function applyImport(
  stateDir: string,
  root: string,
  changes: readonly Change[],
  fs: DestinationFs = realFs,
): number {
  const swept = removeLeftovers(
    [stateDir, join(stateDir, "applies"), ...new Set(changes.map((c) => dirname(c.path)))],
    fs,
  );
  if (changes.length === 0) return swept;
  settleUndone(stateDir, fs);
  assertWritable(stateDir, fs);
  const { id } = writeJournal(stateDir, { kind: "import", root }, changes, fs);
  try {
    applyChanges(changes, fs);
  } catch (e) {
    dropUnusedJournal(stateDir, id, fs);
    throw e;
  }
  pruneHistory(stateDir, fs);
  return swept;
}

/**
 * The plan of a partial apply (`kanon ui`): only `selected` (changes of `plan`) are written, and the
 * record claims only what they write. For a change left out, the record keeps what `previous` said
 * of its path (nothing, for a file kanon would create): an unselected deletion stays kanon's to do
 * later, and the directories it needs are neither removed nor forgotten.
 */
export function selectChanges(
  plan: Plan,
  previous: OwnershipRecord | null,
  selected: readonly Change[],
): Plan {
  const chosen = new Set(selected);
  const left = plan.changes.filter((c) => !chosen.has(c));
  if (left.length === 0) return { ...plan, changes: plan.changes.filter((c) => chosen.has(c)) };
  const record: OwnershipRecord = {
    ...plan.record,
    files: { ...plan.record.files },
    entries: { ...plan.record.entries },
    dirs: [...plan.record.dirs],
  };
  const keys = [
    ...new Set([
      ...Object.keys(record.files),
      ...Object.keys(record.entries),
      ...Object.keys(previous?.files ?? {}),
      ...Object.keys(previous?.entries ?? {}),
    ]),
  ];
  const known = new Set(keys);
  const keysOf = (c: Change): string[] => {
    const direct = [c.file.path, c.path, ...(c.aliases ?? [])].filter((k) => known.has(k));
    // The record keys the rendered path; the change may be at a symlink's target.
    return direct.length > 0 ? [...new Set(direct)] : keys.filter((k) => symlinkTarget(k) === c.path);
  };
  const pending: string[] = [];
  for (const c of left) {
    for (const k of keysOf(c)) {
      const file = previous?.files[k];
      if (file) record.files[k] = file;
      else delete record.files[k];
      const entry = previous?.entries[k];
      if (entry) record.entries[k] = entry;
      else delete record.entries[k];
      if (file || entry) pending.push(k);
    }
    if (c.action === "delete") pending.push(c.path);
  }
  const needed = new Set<string>();
  for (const p of pending)
    for (let d = dirname(p); !needed.has(d) && dirname(d) !== d; d = dirname(d)) needed.add(d);
  const emptyDirs = plan.emptyDirs.filter((d) => !needed.has(d));
  const kept = (previous?.dirs ?? []).filter((d) => needed.has(d));
  record.dirs = [...new Set([...record.dirs, ...kept])];
  return { ...plan, changes: plan.changes.filter((c) => chosen.has(c)), record, emptyDirs };
}
