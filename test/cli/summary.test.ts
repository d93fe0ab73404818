/** The apply summary, the elided runtime of a new generated file, and the home's branch line. */
import { describe, expect, it } from "vitest";
import { PLAIN, planDiff, planSummary } from "../../src/cli/diff-text.js";
import { parseBranchLine } from "../../src/cli/home-git.js";
import type { Change } from "../../src/destination/plan.js";

const change = (agent: string, action: string, after = "x\n", elided?: Change["file"]["elided"]): Change =>
  ({
    file: {
      agent,
      path: `/h/${agent}`,
      content: Buffer.from(after),
      mode: 0o644,
      ...(elided ? { elided } : {}),
    },
    path: `/h/${agent}`,
    action,
    before: action === "create" ? null : Buffer.from("old\n"),
    after: Buffer.from(after),
    mode: 0o644,
    beforeMode: action === "create" ? null : 0o644,
  }) as Change;

describe("planSummary", () => {
  it("counts per agent in plan order, then the total; deletions count once plans have them", () => {
    const changes = [
      change("codex", "create"),
      change("claude", "update"),
      change("codex", "update"),
      change("claude", "delete"),
      change("claude", "create"),
    ];
    expect(planSummary(changes)).toBe(
      [
        "  codex:  1 to create, 1 to update",
        "  claude: 1 to create, 1 to update, 1 to delete",
        "5 file change(s): 2 to create, 2 to update, 1 to delete",
        "",
      ].join("\n"),
    );
  });

  it("says No changes. for an empty plan", () => {
    expect(planSummary([])).toBe("No changes.\n");
  });
});

describe("a new file with elided lines", () => {
  const text = ["h1", "r1", "r2", "r3", "t1", "t2", "r4", "r5", ""].join("\n");
  const elided = [
    { from: 1, to: 4, what: "3 lines of runtime" },
    { from: 6, to: 8, what: "2 lines of runtime" },
  ];

  it("shows the kept lines as added and each elided range as one line", () => {
    expect(planDiff([change("opencode", "create", text, elided)], PLAIN).toString()).toBe(
      [
        "--- /dev/null",
        "+++ /h/opencode",
        "@@ -0,0 +1,8 @@",
        "+h1",
        "@@ … 3 lines of runtime @@",
        "+t1",
        "+t2",
        "@@ … 2 lines of runtime @@",
        "",
      ].join("\n"),
    );
  });

  it("an update shows ordinary hunks", () => {
    const diff = planDiff([change("opencode", "update", text, elided)], PLAIN).toString();
    expect(diff).not.toContain("runtime");
    expect(diff).toContain("+r1\n");
  });
});

describe("parseBranchLine", () => {
  it.each([
    ["## main...origin/main", { branch: "main", upstream: "origin/main", ahead: 0, behind: 0 }],
    ["## main...origin/main [ahead 2]", { branch: "main", upstream: "origin/main", ahead: 2, behind: 0 }],
    ["## main...origin/main [behind 3]", { branch: "main", ahead: 0, behind: 3 }],
    [
      "## feat/x...origin/feat/x [ahead 1, behind 4]",
      { branch: "feat/x", upstream: "origin/feat/x", ahead: 1, behind: 4 },
    ],
    ["## main...origin/main [gone]", { branch: "main", gone: true }],
    ["## main", { branch: "main", upstream: null }],
    ["## No commits yet on main", { branch: "main", unborn: true }],
    ["## HEAD (no branch)", { branch: null }],
  ])("%s", (line, expected) => {
    expect(parseBranchLine(line)).toMatchObject(expected);
  });
});
