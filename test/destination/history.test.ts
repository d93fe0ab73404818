/**
 * The apply history as undo reads it: an entry edited by hand is unreadable rather than trusted (a
 * backup outside its own folder, a malformed record inside it), and a dry run through dryRunFs makes
 * every check and writes nothing.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyPlan } from "../../src/destination/apply-plan.js";
import { dryRunFs } from "../../src/destination/fs.js";
import { planChanges } from "../../src/destination/plan.js";
import { loadRecord, planUndo, runUndo } from "../../src/destination/state.js";
import type { TargetFile } from "../../src/model/types.js";

let dir: string;
let state: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kanon-history-"));
  state = join(dir, "state");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = (rel: string, text: string): TargetFile => ({
  agent: "claude",
  path: join(dir, rel),
  content: Buffer.from(text),
  mode: 0o644,
});

async function apply(files: TargetFile[]) {
  const loaded = loadRecord(state, dir);
  const plan = await planChanges(files, { record: loaded.record, root: dir, agents: ["claude"] });
  applyPlan(plan, loaded);
}

const entryDir = () => join(state, "applies", readdirSync(join(state, "applies")).sort().at(-1)!);
const editJournal = (edit: (j: { changes: Record<string, unknown>[]; previous: unknown }) => void) => {
  const path = join(entryDir(), "apply.json");
  const j = JSON.parse(readFileSync(path, "utf8"));
  edit(j);
  writeFileSync(path, JSON.stringify(j));
};

describe("a history entry edited by hand", () => {
  beforeEach(async () => {
    mkdirSync(state);
    await apply([file("a.md", "one\n")]);
    await apply([file("a.md", "two\n")]);
  });

  it.each([
    [
      "a backup outside its folder",
      (j: { changes: Record<string, unknown>[] }) => (j.changes[0]!.backup = "../../../a.md"),
    ],
    [
      "a change without its old state",
      (j: { changes: Record<string, unknown>[] }) => (j.changes[0]!.before = 7),
    ],
    ["a malformed record before it", (j: { previous: unknown }) => (j.previous = { version: 1, files: [] })],
  ])("is unreadable: %s", (_what, edit) => {
    editJournal(edit as (j: unknown) => void);
    expect(() => planUndo(state, loadRecord(state, dir).record)).toThrow(
      `cannot undo: the history entry ${entryDir()} is unreadable; nothing was restored (remove that directory to undo the ones before it)`,
    );
  });

  it("a dry run checks every backup and writes nothing", () => {
    const plan = planUndo(state, loadRecord(state, dir).record)!;
    const before = readdirSync(dir, { recursive: true }).map(String).sort();
    runUndo(state, plan, "the apply", dryRunFs);
    expect(readdirSync(dir, { recursive: true }).map(String).sort()).toEqual(before);
    expect(readFileSync(join(dir, "a.md"), "utf8")).toBe("two\n");
    writeFileSync(join(entryDir(), "files/0-a.md"), "cut");
    expect(() => runUndo(state, plan, "the apply", dryRunFs)).toThrow(
      /^cannot undo the apply: the backup of .*a\.md \(.*0-a\.md\) does not hold what was saved \(sha256 differs\); nothing was restored/,
    );
  });
});
