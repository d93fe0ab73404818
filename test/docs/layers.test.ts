/** docs/development.md states the layer order that `npm run deps` enforces. */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { IMPORTS, LAYERS } from "../../.dependency-cruiser.mjs";
import { ROOT } from "../support/cli.js";

describe("layers", () => {
  const folders = LAYERS.flat();

  it("are listed in docs/development.md in the order the checker enforces", () => {
    const page = readFileSync(join(ROOT, "docs/development.md"), "utf8");
    const start = page.indexOf("```\nsrc/\n");
    expect(start).toBeGreaterThanOrEqual(0);
    const block = page.slice(start, page.indexOf("```", start + 3));
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

  it("allow exactly the imports between folders that the code makes", () => {
    const src = join(ROOT, "src");
    const used: Record<string, Set<string>> = Object.fromEntries(folders.map((f) => [f, new Set<string>()]));
    const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => /\.tsx?$/.test(f));
    for (const file of files) {
      if (!file.includes("/")) continue; // src/*.d.ts: declarations, no imports between folders
      const from = file.split("/")[0]!;
      const text = readFileSync(join(src, file), "utf8");
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
        const to = relative(src, resolve(dirname(join(src, file)), m[1]!)).split("/")[0]!;
        if (to !== from) used[from]!.add(to);
      }
    }
    const declared = Object.fromEntries(Object.entries(IMPORTS).map(([f, list]) => [f, [...list].sort()]));
    expect(Object.fromEntries(Object.entries(used).map(([f, set]) => [f, [...set].sort()]))).toEqual(
      declared,
    );
  });
});
