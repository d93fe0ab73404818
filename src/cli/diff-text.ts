/**
 * The text of `kanon diff` (and the apply preview): git-style hunks per changed file. Every part that
 * comes from a file or a name is made visible (model/visible.ts) before it is painted, so the result
 * goes out as it is (context.ts outPainted).
 */

import { isUtf8 } from "node:buffer";
import { maskSecrets } from "../core/secrets.js";
import type { Change } from "../destination/plan.js";
import { newlines } from "../model/text.js";
import type { ElidedLines } from "../model/types.js";
import { visible, visibleBytes } from "../model/visible.js";
import { hunkRange, NO_NEWLINE, unifiedHunks } from "./unified-diff.js";

/** What goes before and after a painted line (nothing, or a colour and its reset). */
type Style = readonly [open: string, close: string];

export interface Paint {
  header: Style;
  hunk: Style;
  added: Style;
  removed: Style;
}

const ESC = "\u001b[";
const RESET = `${ESC}0m`;
export const COLOR: Paint = {
  header: [`${ESC}1m`, RESET],
  hunk: [`${ESC}36m`, RESET],
  added: [`${ESC}32m`, RESET],
  removed: [`${ESC}31m`, RESET],
};
export const PLAIN: Paint = { header: ["", ""], hunk: ["", ""], added: ["", ""], removed: ["", ""] };

const painted = ([open, close]: Style, s: string) => `${open}${s}${close}`;

/** Colour only on a terminal, and never when NO_COLOR is set (to anything, even empty). */
export function paintFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): Paint {
  return stream.isTTY && env.NO_COLOR === undefined ? COLOR : PLAIN;
}

function isBinary(data: Uint8Array | null): boolean {
  return !!data && data.subarray(0, 8000).includes(0);
}

/** The bytes of `data` without a copy. */
const view = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

export function changeDiff(change: Change, paint: Paint): string[] {
  const path = visible(change.path);
  if (change.after === null) return [painted(paint.header, `DELETE ${path} (${change.file.agent})`)];
  const oldName = change.action === "create" ? "/dev/null" : path;
  const lines = [painted(paint.header, `--- ${oldName}`), painted(paint.header, `+++ ${path}`)];
  if (change.beforeMode !== null && change.beforeMode !== change.mode) {
    lines.push(`old mode ${octal(change.beforeMode)}`, `new mode ${octal(change.mode)}`);
  }
  if (isBinary(change.before) || isBinary(change.after)) {
    lines.push(`Binary files ${path} differ`);
    return lines;
  }
  const before = change.before ? view(change.before).toString("utf8") : "";
  const after = view(change.after).toString("utf8");
  if (change.action === "create" && change.file.elided?.length) {
    return [...lines, ...newFileLines(after, change.file.elided, paint)];
  }
  const hunks = unifiedHunks(before, after);
  if (hunks.length === 0 && before !== after) {
    lines.push("Line endings differ; content differs only by line endings.");
  }
  // A co-owned file holds the user's and the agent's own settings: their tokens are masked.
  const shown = change.file.merge ? (line: string) => visible(maskSecrets(line)) : visible;
  for (const line of hunks) {
    const h = shown(line);
    if (h.startsWith("@@")) lines.push(painted(paint.hunk, h));
    else if (h.startsWith("+")) lines.push(painted(paint.added, h));
    else if (h.startsWith("-")) lines.push(painted(paint.removed, h));
    else lines.push(h);
  }
  return lines;
}

/**
 * A new file with fixed generated parts: its lines as added, each elided range as one line saying
 * what it holds. (An update shows hunks as usual: an unchanged runtime has none.)
 */
function newFileLines(text: string, elided: readonly ElidedLines[], paint: Paint): string[] {
  // The lines are found with indexOf, not split, and only the ones shown are made: most of such a
  // file is elided. A final newline ends the last line (it does not start an empty one).
  const count = newlines(text) + (text.length > 0 && !text.endsWith("\n") ? 1 : 0);
  const out = [painted(paint.hunk, `@@ -0,0 +1,${count} @@`)];
  let i = 0;
  let start = 0; // of line i
  /** Line i's end, after which the next line starts. */
  const end = () => {
    const at = text.indexOf("\n", start);
    return at < 0 ? text.length : at;
  };
  const show = () => {
    const e = end();
    out.push(painted(paint.added, `+${visible(text.slice(start, e))}`));
    start = e + 1;
    i++;
  };
  for (const range of [...elided].sort((a, b) => a.from - b.from)) {
    while (i < range.from && i < count) show();
    if (range.to > i) out.push(painted(paint.hunk, `@@ … ${range.what} @@`));
    for (; i < range.to && i < count; i++) start = end() + 1;
    i = Math.max(i, range.to);
  }
  while (i < count) show();
  return out;
}

const octal = (mode: number) => `100${mode.toString(8).padStart(3, "0")}`;

/**
 * Every change's diff, one line each (changeDiff's lines, a newline after each). Built as bytes: a
 * large home creates thousands of files, megabytes of added lines, which go out without being
 * decoded, split into lines and encoded again.
 */
export function planDiff(changes: readonly Change[], paint: Paint): Buffer {
  if (changes.length === 0) return Buffer.from("No changes.\n");
  // Room for every file and a quarter more (the `+` of each line); it grows if that is not enough.
  const out = new ByteSink(changes.reduce((n, c) => n + (c.after?.length ?? 0), 0) * 1.25 + 4096);
  for (const c of changes) {
    const note = replacesNote(c);
    if (note) out.text(`${painted(paint.header, visible(note))}\n`);
    const added = wholeNewFile(c);
    if (added) {
      out.text(
        `${painted(paint.header, "--- /dev/null")}\n${painted(paint.header, `+++ ${visible(c.path)}`)}\n`,
      );
      addedLines(added, paint, out);
    } else out.text(`${changeDiff(c, paint).join("\n")}\n`);
  }
  return out.bytes();
}

/** Bytes appended to one buffer, which doubles when full. */
class ByteSink {
  private buf: Buffer;
  /** Bytes written so far. */
  end = 0;
  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(Math.ceil(capacity));
  }
  /** Room for `n` more bytes: the buffer to write them into from `end` (which the writer then moves). */
  reserve(n: number): Buffer {
    if (this.end + n > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.end + n));
      this.buf.copy(next, 0, 0, this.end);
      this.buf = next;
    }
    return this.buf;
  }
  text(s: string): void {
    // At most 3 UTF-8 bytes per UTF-16 code unit.
    this.end += this.reserve(3 * s.length).write(s, this.end);
  }
  bytes(): Buffer {
    return this.buf.subarray(0, this.end);
  }
}

/**
 * The bytes of a created text file that changeDiff would show whole, as added lines, when they can be
 * copied as they are: UTF-8 (decoding would replace other bytes) with no CR (CRLF reads as LF).
 */
function wholeNewFile(c: Change): Buffer | null {
  if (c.action !== "create" || c.before !== null || c.beforeMode !== null || c.after === null) return null;
  if (c.file.elided?.length || c.file.merge) return null;
  const bytes = view(c.after);
  if (bytes.length === 0 || isBinary(bytes) || bytes.includes(0x0d) || !isUtf8(bytes)) return null;
  // Lines with a character to make visible take changeDiff's way (each line through `visible`).
  if (visibleBytes(bytes) !== bytes) return null;
  return bytes;
}

/** changeDiff's hunk of a whole new file, from its bytes: `+` and the paint around each line. */
function addedLines(bytes: Buffer, paint: Paint, sink: ByteSink): void {
  const head = (count: number) => `${painted(paint.hunk, `@@ -0,0 +${hunkRange(0, count)} @@`)}\n`;
  const open = Buffer.from(`${paint.added[0]}+`);
  const close = Buffer.from(`${paint.added[1]}\n`);
  // The header counts the lines, which the one pass that copies them counts too: they are written
  // after room for the longest header (there are at most as many lines as bytes), then moved up to it.
  const room = Buffer.byteLength(head(bytes.length));
  const out = sink.reserve(room + (bytes.length + 1) * open.length + bytes.length * close.length);
  const start = sink.end + room;
  let at = start;
  const put = (b: Buffer) => {
    for (let j = 0; j < b.length; j++) out[at++] = b[j]!;
  };
  put(open);
  // A newline ends a line (and starts the next, unless it is the last byte). Each line is found with
  // indexOf and copied whole: half the CPU of a byte loop over the ~7 MB of new files of the large
  // home (its 4,500 skill files: ~45 ms against ~90 ms).
  let lineEnds = 0;
  const last = bytes.length - 1;
  for (let i = 0; i <= last; ) {
    const nl = bytes.indexOf(0x0a, i);
    const end = nl < 0 ? last + 1 : nl;
    at += bytes.copy(out, at, i, end);
    if (nl < 0) break;
    lineEnds++;
    put(close);
    if (nl < last) put(open);
    i = nl + 1;
  }
  const eol = bytes[last] === 0x0a;
  const headEnd = sink.end + out.write(head(eol ? lineEnds : lineEnds + 1), sink.end);
  out.copyWithin(headEnd, start, at);
  sink.end = headEnd + (at - start);
  if (!eol) sink.text(`${paint.added[1]}\n${NO_NEWLINE}\n`);
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
