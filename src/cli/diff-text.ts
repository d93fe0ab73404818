/** The text of `kanon diff` (and the apply preview): git-style hunks per changed file. */

import type { Change } from "../destination/plan.js";
import { unifiedHunks } from "../destination/unified-diff.js";
import type { ElidedLines } from "../model/types.js";

export interface Paint {
  header(s: string): string;
  hunk(s: string): string;
  added(s: string): string;
  removed(s: string): string;
}

const ESC = "\u001b[";
export const COLOR: Paint = {
  header: (s) => `${ESC}1m${s}${ESC}0m`,
  hunk: (s) => `${ESC}36m${s}${ESC}0m`,
  added: (s) => `${ESC}32m${s}${ESC}0m`,
  removed: (s) => `${ESC}31m${s}${ESC}0m`,
};
export const PLAIN: Paint = { header: (s) => s, hunk: (s) => s, added: (s) => s, removed: (s) => s };

/** Colour only on a terminal, and never when NO_COLOR is set (to anything, even empty). */
export function paintFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): Paint {
  return stream.isTTY && env.NO_COLOR === undefined ? COLOR : PLAIN;
}

function isBinary(data: Uint8Array | null): boolean {
  return !!data && data.subarray(0, 8000).includes(0);
}

export function changeDiff(change: Change, paint: Paint): string[] {
  if (change.after === null) return [paint.header(`DELETE ${change.path} (${change.file.agent})`)];
  const oldName = change.action === "create" ? "/dev/null" : change.path;
  const lines = [paint.header(`--- ${oldName}`), paint.header(`+++ ${change.path}`)];
  if (change.beforeMode !== null && change.beforeMode !== change.mode) {
    lines.push(`old mode ${octal(change.beforeMode)}`, `new mode ${octal(change.mode)}`);
  }
  if (isBinary(change.before) || isBinary(change.after)) {
    lines.push(`Binary files ${change.path} differ`);
    return lines;
  }
  const before = change.before ? Buffer.from(change.before).toString("utf8") : "";
  const after = Buffer.from(change.after).toString("utf8");
  if (change.action === "create" && change.file.elided?.length) {
    return [...lines, ...newFileLines(after, change.file.elided, paint)];
  }
  const hunks = unifiedHunks(before, after);
  if (hunks.length === 0 && before !== after) {
    lines.push("Line endings differ; content differs only by line endings.");
  }
  for (const h of hunks) {
    if (h.startsWith("@@")) lines.push(paint.hunk(h));
    else if (h.startsWith("+")) lines.push(paint.added(h));
    else if (h.startsWith("-")) lines.push(paint.removed(h));
    else lines.push(h);
  }
  return lines;
}

/**
 * A new file with fixed generated parts: its lines as added, each elided range as one line saying
 * what it holds. (An update shows hunks as usual: an unchanged runtime has none.)
 */
function newFileLines(text: string, elided: readonly ElidedLines[], paint: Paint): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const out = [paint.hunk(`@@ -0,0 +1,${lines.length} @@`)];
  let i = 0;
  for (const range of [...elided].sort((a, b) => a.from - b.from)) {
    for (; i < range.from && i < lines.length; i++) out.push(paint.added(`+${lines[i]}`));
    if (range.to > i) out.push(paint.hunk(`@@ … ${range.what} @@`));
    i = Math.max(i, range.to);
  }
  for (; i < lines.length; i++) out.push(paint.added(`+${lines[i]}`));
  return out;
}

const octal = (mode: number) => `100${mode.toString(8).padStart(3, "0")}`;

export function planDiff(changes: readonly Change[], paint: Paint): string {
  if (changes.length === 0) return "No changes.\n";
  const lines = changes.flatMap((c) => {
    const note = replacesNote(c);
    return note ? [paint.header(note), ...changeDiff(c, paint)] : changeDiff(c, paint);
  });
  return `${lines.join("\n")}\n`;
}

const REPLACES = { foreign: "not written by kanon", edited: "changed since kanon last wrote it" };

/** `<path> (<agent>): changed since kanon last wrote it` for a change that needs a backup. */
export function replacesNote(c: Change): string | null {
  return c.replaces ? `${c.path} (${c.file.agent}): ${REPLACES[c.replaces]}` : null;
}

/** Why a file drifts, for `kanon status`. */
export function driftReason(c: Change): string {
  const base = c.action === "delete" ? "pending deletion" : c.action === "create" ? "missing" : "out of date";
  if (c.replaces === "edited") return c.action === "update" ? "hand-edited" : `${base}, hand-edited`;
  if (c.replaces === "foreign") return `${base}, not written by kanon`;
  return base;
}

/** Actions in the order the summary counts them; `delete` appears once plans delete files. */
const ACTIONS: Record<string, string> = { create: "to create", update: "to update", delete: "to delete" };

/**
 * What apply would do, per agent: `claude: 3 to create, 1 to update`, then the total. It stands right
 * above the apply prompt and is all that `--stat` prints.
 */
export function planSummary(changes: readonly Change[]): string {
  if (changes.length === 0) return "No changes.\n";
  const perAgent = new Map<string, Map<string, number>>();
  const total = new Map<string, number>();
  for (const c of changes) {
    const counts = perAgent.get(c.file.agent) ?? new Map<string, number>();
    perAgent.set(c.file.agent, counts);
    counts.set(c.action, (counts.get(c.action) ?? 0) + 1);
    total.set(c.action, (total.get(c.action) ?? 0) + 1);
  }
  const describe = (counts: Map<string, number>) =>
    [...Object.keys(ACTIONS), ...[...counts.keys()].filter((a) => !(a in ACTIONS))]
      .filter((a) => counts.has(a))
      .map((a) => `${counts.get(a)} ${ACTIONS[a] ?? `to ${a}`}`)
      .join(", ");
  const width = Math.max(...[...perAgent.keys()].map((a) => a.length)) + 1;
  const rows = [...perAgent].map(([agent, counts]) => `  ${`${agent}:`.padEnd(width)} ${describe(counts)}`);
  return `${rows.join("\n")}\n${changes.length} file change(s): ${describe(total)}\n`;
}
