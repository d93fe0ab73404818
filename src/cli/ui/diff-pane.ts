/**
 * The diff pane's lines for one change, with the limits of an interactive view: binary files, a
 * difference only in line endings and empty files get one notice; a long diff is cut after
 * MAX_LINES; a change too large to diff quickly points to `kanon diff`.
 */
import { maskSecrets } from "../../core/secrets.js";
import { differingRange, splitLines, unifiedHunks } from "../unified-diff.js";

/** What the pane compares: the destination's bytes (null: absent) and what would replace them. */
export interface DiffSource {
  path: string;
  action: "create" | "update" | "delete";
  before: Uint8Array | null;
  after: Uint8Array | null;
  mode?: number;
  beforeMode?: number | null;
  /** A co-owned file: secret values in its lines are masked (core/secrets.ts). */
  masked?: boolean;
}

export type PaneLine = { kind: "header" | "hunk" | "add" | "del" | "context" | "note"; text: string };

export const MAX_LINES = 5000;
/**
 * Differing lines (old × new, after the common head and tail are set aside) above which the pane does
 * not diff. The diff itself is bounded, but such a change is not reviewable line by line anyway.
 */
const MAX_CELLS = 2_000_000;

const isBinary = (data: Uint8Array | null) => !!data && data.subarray(0, 8000).includes(0);
const text = (data: Uint8Array | null) => (data ? Buffer.from(data).toString("utf8") : "");

export function paneLines(source: DiffSource): PaneLine[] {
  const oldName = source.action === "create" ? "/dev/null" : source.path;
  const newName = source.action === "delete" ? "/dev/null" : source.path;
  const lines: PaneLine[] = [
    { kind: "header", text: `--- ${oldName}` },
    { kind: "header", text: `+++ ${newName}` },
  ];
  const note = (t: string) => {
    lines.push({ kind: "note", text: t });
    return lines;
  };
  if (source.beforeMode != null && source.mode !== undefined && source.beforeMode !== source.mode) {
    note(`mode ${octal(source.beforeMode)} → ${octal(source.mode)}`);
  }
  if (isBinary(source.before) || isBinary(source.after)) return note("Binary files differ");
  const before = text(source.before);
  const after = text(source.after);
  if (source.action === "create" && after === "") return note("Empty file will be created.");
  if (source.action === "delete" && before === "") return note("Empty file will be deleted.");
  const size = differingSize(before, after);
  if (size.a * size.b > MAX_CELLS) {
    return note(
      `Diff too large to render interactively (${size.a} x ${size.b} lines). Use \`kanon diff\` for full output.`,
    );
  }
  const hunks = unifiedHunks(before, after);
  if (hunks.length === 0) {
    if (before !== after) note("Line endings differ; content is otherwise unchanged.");
    return lines;
  }
  const shown = hunks.slice(0, MAX_LINES);
  for (const h of shown) {
    const kind = h.startsWith("@@")
      ? "hunk"
      : h.startsWith("+")
        ? "add"
        : h.startsWith("-")
          ? "del"
          : "context";
    lines.push({ kind, text: source.masked ? maskSecrets(h) : h });
  }
  if (hunks.length > shown.length) note(`… diff truncated (${hunks.length - shown.length} more lines)`);
  return lines;
}

/** Line counts of the part of each side that differs (the common head and tail removed). */
function differingSize(before: string, after: string): { a: number; b: number } {
  const { start, endA, endB } = differingRange(splitLines(before), splitLines(after));
  return { a: endA - start, b: endB - start };
}

const octal = (mode: number) => `0${mode.toString(8)}`;
