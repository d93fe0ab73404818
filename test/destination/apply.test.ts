import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyChanges } from "../../src/destination/apply.js";
import { planChanges } from "../../src/destination/plan.js";
import type { TargetFile } from "../../src/model/types.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kanon-apply-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = (rel: string, content: string, extra: Partial<TargetFile> = {}): TargetFile => ({
  agent: "claude",
  path: join(dir, rel),
  content: Buffer.from(content),
  mode: 0o644,
  ...extra,
});
const all = (): string[] => readdirSync(dir, { recursive: true }).map(String).sort();

describe("apply", () => {
  it("writes nothing when any file cannot be written, and removes what it staged", async () => {
    writeFileSync(join(dir, "keep.md"), "old\n");
    const plan = await planChanges([
      file("keep.md", "new\n"),
      file("fresh/deep/a.md", "a\n"),
      file("blocker/b.md", "b\n"),
    ]);
    // Between plan and apply, a file appears where a directory is needed.
    writeFileSync(join(dir, "blocker"), "a file where a directory should be\n");
    expect(() => applyChanges(plan.changes)).toThrow(
      `cannot write into ${join(dir, "blocker")}: it is a file, not a directory; nothing was written`,
    );
    expect(readFileSync(join(dir, "keep.md"), "utf8")).toBe("old\n");
    expect(all()).toEqual(["blocker", "keep.md"]);
  });

  it("stops without writing when a co-owned file changes between plan and apply", async () => {
    const settings = join(dir, "settings.json");
    writeFileSync(settings, '{"theme": "dark"}\n');
    const plan = await planChanges([
      file("a.md", "a\n"),
      file("settings.json", "", {
        merge: { kind: "value", format: "json", key: "hooks" },
        managed: { hooks: {} },
      }),
    ]);
    writeFileSync(settings, '{"theme": "light"}\n');
    expect(() => applyChanges(plan.changes)).toThrow(
      `${settings} changed while kanon was applying; nothing was written`,
    );
    expect(readFileSync(settings, "utf8")).toBe('{"theme": "light"}\n');
    expect(existsSync(join(dir, "a.md"))).toBe(false);
  });

  it("gives kanon-owned files their rendered mode and reports a mode change as a change", async () => {
    writeFileSync(join(dir, "run.sh"), "#!/bin/sh\n", { mode: 0o644 });
    const plan = await planChanges([file("run.sh", "#!/bin/sh\n", { mode: 0o755 })]);
    expect(plan.changes).toHaveLength(1);
    expect(plan.changes[0]).toMatchObject({ action: "update", beforeMode: 0o644, mode: 0o755 });
    applyChanges(plan.changes);
    expect(statSync(join(dir, "run.sh")).mode & 0o777).toBe(0o755);
    expect((await planChanges([file("run.sh", "#!/bin/sh\n", { mode: 0o755 })])).changes).toEqual([]);
  });

  it("merges into an existing alternative file (opencode.jsonc) instead of creating the first name", async () => {
    mkdirSync(join(dir, "oc"));
    writeFileSync(join(dir, "oc/opencode.jsonc"), '{\n  // mine\n  "model": "x",\n}\n');
    const plan = await planChanges([
      file("oc/opencode.json", "{}\n", {
        merge: { kind: "entries", format: "jsonc", key: "mcp" },
        managed: { mcp: { s: { type: "local", command: ["s"] } } },
        alternatives: [join(dir, "oc/opencode.jsonc")],
      }),
    ]);
    expect(plan.changes[0]!.path).toBe(join(dir, "oc/opencode.jsonc"));
    applyChanges(plan.changes);
    expect(readdirSync(join(dir, "oc"))).toEqual(["opencode.jsonc"]);
    expect(readFileSync(join(dir, "oc/opencode.jsonc"), "utf8")).toContain("// mine");
  });
});
