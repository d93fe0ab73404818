/**
 * An apply with its ownership record: check the state directory, save what is about to be replaced
 * (the history entry `kanon undo` reads), write the destination, then the record.
 */
import { rmdirSync } from "node:fs";
import { applyChanges } from "./apply.js";
import type { Plan } from "./plan.js";
import { recordText } from "./record.js";
import {
  assertWritable,
  type Backup,
  dropUnusedJournal,
  type LoadedRecord,
  pruneHistory,
  writeJournal,
  writeRecord,
} from "./state.js";

export function applyPlan(plan: Plan, loaded: LoadedRecord): { backups: Backup[] } {
  const record = plan.record;
  if (plan.changes.length === 0) {
    // Nothing to write but the record itself: adopted entries, or an apply killed before its record.
    if (loaded.text !== recordText(record)) {
      assertWritable(loaded.dir);
      writeRecord(loaded.dir, record);
    }
    return { backups: [] };
  }
  assertWritable(loaded.dir);
  const { id, backups } = writeJournal(loaded.dir, record.root, loaded.record, record, plan.changes);
  let createdDirs: string[];
  try {
    ({ createdDirs } = applyChanges(plan.changes));
  } catch (e) {
    dropUnusedJournal(loaded.dir, id);
    throw e;
  }
  for (const dir of plan.emptyDirs) {
    try {
      rmdirSync(dir);
    } catch {}
  }
  writeRecord(loaded.dir, { ...record, dirs: [...record.dirs, ...createdDirs], lastApply: id });
  pruneHistory(loaded.dir);
  return { backups };
}
