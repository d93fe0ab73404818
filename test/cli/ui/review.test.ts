import { describe, expect, it } from "vitest";
import { checkReviewed, type Reviewed } from "../../../src/cli/ui/review.js";

const change = (path: string, after: string, extra: Partial<Reviewed> = {}): Reviewed => ({
  path,
  agent: "codex",
  action: "update",
  before: Buffer.from("old\n"),
  after: Buffer.from(after),
  mode: 0o644,
  beforeMode: 0o644,
  ...extra,
});
const reviewed = [change("/h/a", "A\n"), change("/h/b", "B\n"), change("/h/c", "C\n")];

describe("the re-plan check before applying", () => {
  it("returns the fresh changes for the selected paths when they are what was reviewed", () => {
    const fresh = [change("/h/a", "A\n"), change("/h/b", "B2\n"), change("/h/c", "C\n")];
    expect(checkReviewed(reviewed, fresh, ["/h/a", "/h/c"], "/h").map((c) => c.path)).toEqual([
      "/h/a",
      "/h/c",
    ]);
    expect(checkReviewed(reviewed, fresh, ["/h/c"], "/h")[0]).toBe(fresh[2]);
  });

  it("refuses a selected change whose content changed since it was reviewed", () => {
    const variants: Partial<Reviewed>[] = [
      { after: Buffer.from("B2\n") },
      { before: Buffer.from("edited\n") },
      { before: null, action: "create" },
      { mode: 0o600 },
      { attention: "changed since kanon last wrote it" },
    ];
    for (const v of variants) {
      const fresh = [reviewed[0]!, change("/h/b", "B\n", v), reviewed[2]!];
      expect(() => checkReviewed(reviewed, fresh, ["/h/a", "/h/b"], "/h")).toThrow(
        "~/b: selected file changed since it was reviewed; reload before applying",
      );
    }
  });

  it("refuses a selected change that is no longer pending, or that now has a conflict", () => {
    expect(() => checkReviewed(reviewed, [reviewed[0]!], ["/h/b"], "/h")).toThrow(
      "~/b: selected file no longer has a pending change; reload before applying",
    );
    expect(() => checkReviewed(reviewed, [change("/h/b", "B\n", { conflict: "x" })], ["/h/b"], "/h")).toThrow(
      "~/b: selected file now has conflicts; reload before applying",
    );
    expect(() => checkReviewed([], reviewed, ["/h/b"], "/h")).toThrow("no longer has a pending change");
  });
});
