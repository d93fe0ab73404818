import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { KANON } from "../../support/cli.js";

/** Every file the bundle loads at start-up: the entry and the chunks it imports statically. */
function startupFiles(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, "utf8");
    seen.set(file, text);
    for (const m of text.matchAll(/(?:^|[;\s}])import\s*(?:[^"'()]*?from\s*)?["'](\.[^"']+)["']/g)) {
      visit(join(dirname(file), m[1]!));
    }
  };
  visit(entry);
  return seen;
}

describe("the bundle", () => {
  it("keeps Ink and React out of every command's start-up: only kanon ui loads them", () => {
    const files = startupFiles(KANON);
    expect(files.size).toBeGreaterThan(1); // the static import scan found the shared chunks
    for (const [file, text] of files) {
      expect(text.includes("yoga"), file).toBe(false);
      expect(text.includes("react.transitional.element"), file).toBe(false);
    }
    const all = [...files.values()].join("\n");
    const ui = /import\("(\.\/chunks\/ui-[^"]+)"\)/.exec(all);
    expect(ui).not.toBeNull();
    const uiChunk = readFileSync(join(dirname(KANON), ui![1]!), "utf8");
    expect(uiChunk).toMatch(/import\("\.\/app-[^"]+"\)/);
  });
});
