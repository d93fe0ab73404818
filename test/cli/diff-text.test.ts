import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COLOR, changeDiff, PLAIN, paintFor, planDiff, replacesNote } from "../../src/cli/diff-text.js";
import type { Change } from "../../src/destination/plan.js";
import type { ElidedLines } from "../../src/model/types.js";

const change = (before: string | null, after: string): Change => ({
  file: { agent: "claude", path: "/h/f.md", content: Buffer.from(after), mode: 0o644 },
  path: "/h/f.md",
  action: before === null ? "create" : "update",
  before: before === null ? null : Buffer.from(before),
  after: Buffer.from(after),
  mode: 0o644,
  beforeMode: before === null ? null : 0o644,
});

describe("diff text", () => {
  it("colours only on a terminal with NO_COLOR unset (any value, even empty, disables it)", () => {
    const tty = { isTTY: true } as NodeJS.WriteStream;
    const pipe = { isTTY: false } as NodeJS.WriteStream;
    expect(paintFor(tty, {})).toBe(COLOR);
    expect(paintFor(tty, { NO_COLOR: "" })).toBe(PLAIN);
    expect(paintFor(tty, { NO_COLOR: "1" })).toBe(PLAIN);
    expect(paintFor(pipe, {})).toBe(PLAIN);
  });

  it("paints headers bold, hunks cyan, additions green and deletions red, each line reset", () => {
    expect(planDiff([change("a\nb\n", "a\nc\n")], COLOR).toString()).toBe(
      [
        "\u001b[1m--- /h/f.md\u001b[0m",
        "\u001b[1m+++ /h/f.md\u001b[0m",
        "\u001b[36m@@ -1,2 +1,2 @@\u001b[0m",
        " a",
        "\u001b[31m-b\u001b[0m",
        "\u001b[32m+c\u001b[0m",
        "",
      ].join("\n"),
    );
  });

  it("marks line-ending-only changes, binary files and a missing final newline", () => {
    expect(planDiff([change("a\r\nb\r\n", "a\nb\n")], PLAIN).toString()).toBe(
      "--- /h/f.md\n+++ /h/f.md\nLine endings differ; content differs only by line endings.\n",
    );
    expect(planDiff([change("x\u0000", "y\u0000")], PLAIN).toString()).toBe(
      "--- /h/f.md\n+++ /h/f.md\nBinary files /h/f.md differ\n",
    );
    expect(planDiff([change("a\nb", "a\nb\n")], PLAIN).toString()).toBe(
      "--- /h/f.md\n+++ /h/f.md\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
    );
    expect(planDiff([change(null, "")], PLAIN).toString()).toBe("--- /dev/null\n+++ /h/f.md\n");
    expect(planDiff([], PLAIN).toString()).toBe("No changes.\n");
  });

  it("merges nearby changes into one hunk with three lines of context", () => {
    const before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n";
    const after = before.replace("2\n", "two\n").replace("8\n", "eight\n").replace("16\n", "sixteen\n");
    const hunks = planDiff([change(before, after)], PLAIN)
      .toString()
      .split("\n")
      .filter((l) => l.startsWith("@@"));
    expect(hunks).toEqual(["@@ -1,11 +1,11 @@", "@@ -13,4 +13,4 @@"]);
  });
});

describe("diff text of a new file with elided lines", () => {
  /** What changeDiff showed when it split the whole file (the reference). */
  function reference(text: string, elided: ElidedLines[]): string[] {
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    const out = [`@@ -0,0 +1,${lines.length} @@`];
    let i = 0;
    for (const range of [...elided].sort((a, b) => a.from - b.from)) {
      for (; i < range.from && i < lines.length; i++) out.push(`+${lines[i]}`);
      if (range.to > i) out.push(`@@ … ${range.what} @@`);
      i = Math.max(i, range.to);
    }
    for (; i < lines.length; i++) out.push(`+${lines[i]}`);
    return out;
  }
  const range = fc
    .tuple(fc.nat(12), fc.nat(12))
    .map(([a, b]): ElidedLines => ({ from: Math.min(a, b), to: Math.max(a, b), what: `${a}-${b}` }));

  it("shows the lines outside the elided ranges, for any text and ranges", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "bc", "\n", "\n\n", "é"), { maxLength: 20 }).map((p) => p.join("")),
        fc.array(range, { minLength: 1, maxLength: 3 }),
        (text, elided) => {
          const c = change(null, text);
          const diff = changeDiff({ ...c, file: { ...c.file, elided } }, PLAIN);
          expect(diff.slice(2)).toEqual(reference(text, elided));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("diff text of new files, built from their bytes", () => {
  // Pieces that matter to line splitting and decoding: newlines, CR, NUL, multi-byte and invalid UTF-8.
  const piece = fc
    .constantFrom(..."ab\n\n\r\u0000é€😀".split(""), "\r\n", "\udc80")
    .map((p) => (p === "\udc80" ? Buffer.of(0xff) : Buffer.from(p)));
  const bytes = fc.array(piece, { maxLength: 40 }).map((ps) => Buffer.concat(ps));
  const anyChange = fc.record({
    before: fc.option(bytes, { nil: null }),
    after: fc.option(bytes, { nil: null }),
    elided: fc.boolean(),
    replaces: fc.constantFrom(undefined, "foreign", "edited"),
  });

  it("is changeDiff's lines, each followed by a newline, for any content", () => {
    fc.assert(
      fc.property(fc.array(anyChange, { minLength: 1, maxLength: 4 }), fc.boolean(), (specs, color) => {
        const changes: Change[] = specs.map((s, i) => ({
          file: {
            agent: "claude",
            path: `/h/f${i}.md`,
            content: s.after ?? Buffer.alloc(0),
            mode: 0o644,
            ...(s.elided ? { elided: [{ from: 0, to: 1, what: "1 line" }] } : {}),
          },
          path: `/h/f${i}.md`,
          action: s.after === null ? "delete" : s.before === null ? "create" : "update",
          before: s.before,
          after: s.after,
          mode: 0o644,
          beforeMode: s.before === null ? null : 0o600,
          ...(s.replaces ? { replaces: s.replaces as "foreign" | "edited" } : {}),
        }));
        const paint = color ? COLOR : PLAIN;
        const lines = changes.flatMap((c) => {
          const note = replacesNote(c);
          return note
            ? [`${paint.header[0]}${note}${paint.header[1]}`, ...changeDiff(c, paint)]
            : changeDiff(c, paint);
        });
        expect(planDiff(changes, paint).toString("latin1")).toBe(
          Buffer.from(`${lines.join("\n")}\n`).toString("latin1"),
        );
      }),
      { numRuns: 500 },
    );
  });

  it("grows past its first guess of the size (short lines, large files)", () => {
    const changes = [change(null, "\n".repeat(30_000)), change(null, "é\n".repeat(20_000))];
    const lines = changes.flatMap((c) => changeDiff(c, COLOR));
    expect(planDiff(changes, COLOR).equals(Buffer.from(`${lines.join("\n")}\n`))).toBe(true);
  });
});
