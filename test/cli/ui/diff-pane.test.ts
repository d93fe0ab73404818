import { describe, expect, it } from "vitest";
import { type DiffSource, MAX_LINES, paneLines } from "../../../src/cli/ui/diff-pane.js";

const src = (before: string | null, after: string | null, extra: Partial<DiffSource> = {}): DiffSource => ({
  path: "/h/f",
  action: before === null ? "create" : after === null ? "delete" : "update",
  before: before === null ? null : Buffer.from(before),
  after: after === null ? null : Buffer.from(after),
  ...extra,
});
const texts = (s: DiffSource) => paneLines(s).map((l) => l.text);

describe("diff pane", () => {
  it("shows an update as unified hunks, each line with its kind", () => {
    expect(paneLines(src("a\nb\n", "a\nc\n"))).toEqual([
      { kind: "header", text: "--- /h/f" },
      { kind: "header", text: "+++ /h/f" },
      { kind: "hunk", text: "@@ -1,2 +1,2 @@" },
      { kind: "context", text: " a" },
      { kind: "del", text: "-b" },
      { kind: "add", text: "+c" },
    ]);
  });

  it("uses /dev/null for the missing side and says when an empty file is created or deleted", () => {
    expect(texts(src(null, "x\n"))).toEqual(["--- /dev/null", "+++ /h/f", "@@ -0,0 +1 @@", "+x"]);
    expect(texts(src(null, ""))).toEqual(["--- /dev/null", "+++ /h/f", "Empty file will be created."]);
    expect(texts(src("", null))).toEqual(["--- /h/f", "+++ /dev/null", "Empty file will be deleted."]);
    expect(texts(src("y\n", null))).toEqual(["--- /h/f", "+++ /dev/null", "@@ -1 +0,0 @@", "-y"]);
  });

  it("says binary files differ instead of showing bytes", () => {
    expect(texts(src("a\u0000b", "c"))).toEqual(["--- /h/f", "+++ /h/f", "Binary files differ"]);
  });

  it("says when only line endings differ", () => {
    expect(texts(src("a\r\nb\r\n", "a\nb\n"))).toEqual([
      "--- /h/f",
      "+++ /h/f",
      "Line endings differ; content is otherwise unchanged.",
    ]);
  });

  it("notes a mode change", () => {
    expect(texts(src("a\n", "a\n", { mode: 0o755, beforeMode: 0o644 }))).toEqual([
      "--- /h/f",
      "+++ /h/f",
      "mode 0644 → 0755",
    ]);
  });

  it(`cuts a diff after ${MAX_LINES} lines and says how many are left`, () => {
    const after = Array.from({ length: 6000 }, (_, i) => `line ${i}\n`).join("");
    const lines = paneLines(src(null, after));
    expect(lines).toHaveLength(2 + MAX_LINES + 1);
    expect(lines.at(-1)).toEqual({ kind: "note", text: "… diff truncated (1001 more lines)" });
  });

  it("refuses to diff a change too large to review, and points to kanon diff", () => {
    const side = (tag: string) => Array.from({ length: 1500 }, (_, i) => `${tag} ${i}\n`).join("");
    expect(texts(src(`head\n${side("old")}tail\n`, `head\n${side("new")}tail\n`)).at(-1)).toBe(
      "Diff too large to render interactively (1500 x 1500 lines). Use `kanon diff` for full output.",
    );
    // A one-line change in a large file is small: only the differing lines count.
    const big = side("same");
    expect(texts(src(`${big}x\n${big}`, `${big}y\n${big}`))).toContain("-x");
  });
});
