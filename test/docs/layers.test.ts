/** The README's Development section states the layer order that `npm run deps` enforces. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LAYERS } from "../../.dependency-cruiser.mjs";
import { ROOT } from "../support/cli.js";

describe("layers", () => {
  const folders = LAYERS.flat();

  it("are listed in the README in the order the checker enforces", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const start = readme.indexOf("```\nsrc/\n");
    const block = readme.slice(start, readme.indexOf("```", start + 3));
    // "  cli/, docs/    the entry points…" → cli, docs; "  agents/<id>/   one folder…" → agents
    const listed = block
      .split("\n")
      .filter((line) => /^ {2}\w/.test(line))
      .flatMap((line) =>
        line
          .trim()
          .split(/\s{2,}/)[0]!
          .split(", "),
      )
      .map((entry) => entry.slice(0, entry.indexOf("/")));
    expect(listed).toEqual(folders);
  });

  it("cover every folder of src/", () => {
    const dirs = readdirSync(join(ROOT, "src"), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(dirs.sort()).toEqual([...folders].sort());
  });
});
