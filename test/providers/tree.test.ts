import { chmodSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTree } from "../../src/providers/tree.js";
import { cleanupTemp, tempDir, writeFiles } from "./helpers.js";

afterAll(cleanupTemp);

describe("readTree", () => {
  it("reads every regular file with its bytes and permission bits, in lexical walk order", async () => {
    const dir = tempDir();
    const big = "x".repeat(100_000);
    writeFiles(dir, { "SKILL.md": "skill\n", "b/run.sh": "#!/bin/sh\n", "b/empty": "", "a.txt": big });
    chmodSync(join(dir, "b", "run.sh"), 0o750);
    chmodSync(join(dir, "a.txt"), 0o600);
    for (const f of ["SKILL.md", "b/empty"]) chmodSync(join(dir, f), 0o644);
    const files = await readTree(dir);
    expect(files.map((f) => [f.rel, Buffer.from(f.content).toString(), f.mode.toString(8)])).toEqual([
      ["SKILL.md", "skill\n", "644"],
      ["a.txt", big, "600"],
      ["b/empty", "", "644"],
      ["b/run.sh", "#!/bin/sh\n", "750"],
    ]);
  });
});
