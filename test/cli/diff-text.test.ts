import { describe, expect, it } from "vitest";
import { COLOR, PLAIN, paintFor, planDiff } from "../../src/cli/diff-text.js";
import type { Change } from "../../src/destination/plan.js";

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
    expect(planDiff([change("a\nb\n", "a\nc\n")], COLOR)).toBe(
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
    expect(planDiff([change("a\r\nb\r\n", "a\nb\n")], PLAIN)).toBe(
      "--- /h/f.md\n+++ /h/f.md\nLine endings differ; content differs only by line endings.\n",
    );
    expect(planDiff([change("x\u0000", "y\u0000")], PLAIN)).toBe(
      "--- /h/f.md\n+++ /h/f.md\nBinary files /h/f.md differ\n",
    );
    expect(planDiff([change("a\nb", "a\nb\n")], PLAIN)).toBe(
      "--- /h/f.md\n+++ /h/f.md\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
    );
    expect(planDiff([change(null, "")], PLAIN)).toBe("--- /dev/null\n+++ /h/f.md\n");
    expect(planDiff([], PLAIN)).toBe("No changes.\n");
  });

  it("merges nearby changes into one hunk with three lines of context", () => {
    const before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n";
    const after = before.replace("2\n", "two\n").replace("8\n", "eight\n").replace("16\n", "sixteen\n");
    const hunks = planDiff([change(before, after)], PLAIN)
      .split("\n")
      .filter((l) => l.startsWith("@@"));
    expect(hunks).toEqual(["@@ -1,11 +1,11 @@", "@@ -13,4 +13,4 @@"]);
  });
});
