/** A partial apply (`kanon ui`): the record claims only what the selected changes write. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { selectChanges } from "../../src/destination/apply-plan.js";
import { planChanges } from "../../src/destination/plan.js";
import { emptyRecord, type OwnershipRecord, sha256 } from "../../src/destination/record.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "kanon-select-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const enc = (s: string) => new TextEncoder().encode(s);

async function setUp() {
  mkdirSync(join(root, "skills/old"), { recursive: true });
  writeFileSync(join(root, "skills/old/SKILL.md"), "old\n");
  writeFileSync(join(root, "CLAUDE.md"), "v1\n");
  const previous: OwnershipRecord = {
    ...emptyRecord(root),
    files: {
      [join(root, "CLAUDE.md")]: { agent: "claude", sha256: sha256("v1\n"), mode: "0644" },
      [join(root, "skills/old/SKILL.md")]: { agent: "claude", sha256: sha256("old\n"), mode: "0644" },
    },
    dirs: [join(root, "skills"), join(root, "skills/old")],
  };
  const plan = await planChanges(
    [
      { agent: "claude", path: join(root, "CLAUDE.md"), content: enc("v2\n"), mode: 0o644 },
      { agent: "claude", path: join(root, "NEW.md"), content: enc("new\n"), mode: 0o644 },
    ],
    { record: previous, root, agents: ["claude"] },
  );
  const by = (action: string) => plan.changes.find((c) => c.action === action)!;
  return { previous, plan, update: by("update"), create: by("create"), del: by("delete") };
}

describe("selectChanges", () => {
  it("keeps the whole plan when everything is selected", async () => {
    const { previous, plan } = await setUp();
    expect(plan.changes.map((c) => c.action).sort()).toEqual(["create", "delete", "update"]);
    expect(plan.emptyDirs).toEqual([join(root, "skills/old"), join(root, "skills")]);
    const all = selectChanges(plan, previous, plan.changes);
    expect(all.record).toEqual(plan.record);
    expect(all.emptyDirs).toEqual(plan.emptyDirs);
    expect(all.changes).toEqual(plan.changes);
  });

  it("claims only what is written: a deletion left out stays kanon's, with its directories", async () => {
    const { previous, plan, update } = await setUp();
    const part = selectChanges(plan, previous, [update]);
    expect(part.changes).toEqual([update]);
    expect(part.record.files).toEqual({
      [join(root, "CLAUDE.md")]: { agent: "claude", sha256: sha256("v2\n"), mode: "0644" },
      [join(root, "skills/old/SKILL.md")]: previous.files[join(root, "skills/old/SKILL.md")],
    });
    expect(part.emptyDirs).toEqual([]);
    expect([...part.record.dirs].sort()).toEqual([join(root, "skills"), join(root, "skills/old")]);
    // The plan itself is not changed.
    expect(plan.changes).toHaveLength(3);
    expect(plan.record.files[join(root, "NEW.md")]).toBeDefined();
  });

  it("an update left out keeps what the record said before; a create left out is not claimed", async () => {
    const { previous, plan, del } = await setUp();
    const part = selectChanges(plan, previous, [del]);
    expect(part.record.files).toEqual({
      [join(root, "CLAUDE.md")]: previous.files[join(root, "CLAUDE.md")],
    });
    expect(part.emptyDirs).toEqual(plan.emptyDirs);
  });
});
