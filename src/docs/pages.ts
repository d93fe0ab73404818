/** The docs: README.md and every page under docs/, read from the repository's root. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** File name (relative to the root: `README.md`, `docs/hooks.md`) → its text, README first. */
export function readDocPages(root: string): Record<string, string> {
  const files = [
    "README.md",
    ...readdirSync(join(root, "docs"))
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ];
  return Object.fromEntries(files.map((f) => [f, readFileSync(join(root, f), "utf8")]));
}
