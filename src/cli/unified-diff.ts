/**
 * Git-style unified diff of two texts (3 lines of context, `@@ -a,b +c,d @@` headers with the count
 * omitted when it is 1, deletions before additions). Myers' algorithm after trimming the common
 * prefix and suffix, which is what keeps a one-line change in a large file cheap.
 */

export type DiffLine = { op: " " | "-" | "+"; text: string };

const CONTEXT = 3;

/** Lines with their newline kept, CRLF read as LF; a last line without newline is marked. */
export function splitLines(s: string): string[] {
  const normalised = s.replaceAll("\r\n", "\n");
  if (normalised === "") return [];
  const lines = normalised.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  else lines[lines.length - 1] += NO_EOL;
  return lines;
}

const NO_EOL = "\u0000noeol";

export const NO_NEWLINE = "\\ No newline at end of file";

/**
 * Where `a` and `b` differ: lines before `start` are the same in both, and so are `a` from `endA` on
 * and `b` from `endB` on.
 */
export function differingRange(a: string[], b: string[]): { start: number; endA: number; endB: number } {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  return { start, endA, endB };
}

export function diffLines(a: string[], b: string[]): DiffLine[] {
  const { start, endA, endB } = differingRange(a, b);
  const middle = myers(a.slice(start, endA), b.slice(start, endB));
  const out: DiffLine[] = [];
  for (let i = 0; i < start; i++) out.push({ op: " ", text: a[i]! });
  out.push(...middle);
  for (let i = endA; i < a.length; i++) out.push({ op: " ", text: a[i]! });
  return out;
}

/** Beyond this many differences the edit script is "replace everything" (bounded memory and time). */
const MAX_EDITS = 2000;

function myers(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  const replaceAll = (): DiffLine[] => [
    ...a.map((text) => ({ op: "-" as const, text })),
    ...b.map((text) => ({ op: "+" as const, text })),
  ];
  if (n === 0 || m === 0) return replaceAll();
  // v[k] for diagonals -d..d, stored per d so the path can be walked back (O(D²) memory).
  const trace: Int32Array[] = [];
  let prev = new Int32Array(1);
  let found = false;
  for (let d = 0; d <= Math.min(n + m, MAX_EDITS) && !found; d++) {
    const v = new Int32Array(2 * d + 1);
    const get = (k: number) => prev[k + d - 1]!; // prev covers -(d-1)..d-1
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      // Prefer a deletion (moving right in a) on ties, so deletions come before additions.
      if (d === 0) x = 0;
      else if (k === -d || (k !== d && get(k - 1) < get(k + 1))) x = get(k + 1);
      else x = get(k - 1) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[k + d] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
    trace.push(v);
    prev = v;
  }
  if (!found) return replaceAll();
  const ops: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const before = trace[d - 1]!;
    const get = (k: number) => before[k + d - 1]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && get(k - 1) < get(k + 1)) ? k + 1 : k - 1;
    const prevX = get(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ op: " ", text: a[--x]! });
      y--;
    }
    if (x === prevX) ops.push({ op: "+", text: b[--y]! });
    else ops.push({ op: "-", text: a[--x]! });
  }
  while (x > 0 && y > 0) {
    ops.push({ op: " ", text: a[--x]! });
    y--;
  }
  ops.reverse();
  return ops;
}

/** Hunks in unified format (without file headers); empty when the line sequences are equal. */
export function unifiedHunks(before: string, after: string): string[] {
  if (before === "" || after === "") return wholeFileHunk(before, after);
  const lines = diffLines(splitLines(before), splitLines(after));
  const changed: number[] = [];
  lines.forEach((l, i) => {
    if (l.op !== " ") changed.push(i);
  });
  if (changed.length === 0) return [];
  const out: string[] = [];
  let i = 0;
  while (i < changed.length) {
    const from = Math.max(0, changed[i]! - CONTEXT);
    let last = changed[i]!;
    while (i + 1 < changed.length && changed[i + 1]! - last <= 2 * CONTEXT) last = changed[++i]!;
    i++;
    const to = Math.min(lines.length, last + CONTEXT + 1);
    let aStart = 0;
    let bStart = 0;
    for (let j = 0; j < from; j++) {
      if (lines[j]!.op !== "+") aStart++;
      if (lines[j]!.op !== "-") bStart++;
    }
    const hunk = lines.slice(from, to);
    const aCount = hunk.filter((l) => l.op !== "+").length;
    const bCount = hunk.filter((l) => l.op !== "-").length;
    out.push(`@@ -${hunkRange(aStart, aCount)} +${hunkRange(bStart, bCount)} @@`);
    for (const l of hunk) {
      if (l.text.endsWith(NO_EOL)) {
        out.push(`${l.op}${l.text.slice(0, -NO_EOL.length)}`, NO_NEWLINE);
      } else {
        out.push(`${l.op}${l.text}`);
      }
    }
  }
  return out;
}

/** A created or emptied file: one hunk of additions or deletions, no diffing needed. */
function wholeFileHunk(before: string, after: string): string[] {
  const op = before === "" ? "+" : "-";
  const lines = splitLines(before === "" ? after : before);
  if (lines.length === 0) return [];
  const out = [
    op === "+" ? `@@ -0,0 +${hunkRange(0, lines.length)} @@` : `@@ -${hunkRange(0, lines.length)} +0,0 @@`,
  ];
  for (const l of lines) {
    if (l.endsWith(NO_EOL)) out.push(`${op}${l.slice(0, -NO_EOL.length)}`, NO_NEWLINE);
    else out.push(`${op}${l}`);
  }
  return out;
}

/** A hunk header's `start,count` (git's: the count omitted when it is 1, start 0 for no lines). */
export function hunkRange(start: number, count: number): string {
  const s = count === 0 ? start : start + 1;
  return count === 1 ? `${s}` : `${s},${count}`;
}
