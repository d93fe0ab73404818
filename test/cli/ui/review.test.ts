import { describe, expect, it } from "vitest";
import { checkReviewed, type Reviewed } from "../../../src/cli/ui/review.js";

/** An update of `path` from "old\n" to `after`; `v` changes what it is made from. */
const change = (
  path: string,
  after: string,
  v: { before?: string | null; action?: Reviewed["action"]; mode?: number } & Partial<Reviewed> = {},
): Reviewed => {
  const { before = "old\n", mode = 0o644, ...rest } = v;
  const bytes = [before === null ? null : Buffer.from(before), Buffer.from(after), mode];
  return { path, agent: "codex", action: "update", parts: () => [], basis: bytes, ...rest };
};
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
    const variants: [string, Parameters<typeof change>[2]][] = [
      ["B2\n", {}],
      ["B\n", { before: "edited\n" }],
      ["B\n", { before: null, action: "create" }],
      ["B\n", { mode: 0o600 }],
      ["B\n", { attention: "changed since kanon last wrote it" }],
      ["B\n", { basis: [Buffer.from("old\n"), Buffer.from("B\n")] }],
    ];
    for (const [after, v] of variants) {
      const fresh = [reviewed[0]!, change("/h/b", after, v), reviewed[2]!];
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
