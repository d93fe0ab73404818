/** `npm run docs`: regenerate the docs sections that come from the agent manifests, on every page. */
import { writeFileSync } from "node:fs";
import { AGENTS } from "../agents/index.js";
import { generatedSections, updateGenerated } from "./generate.js";
import { readDocPages } from "./pages.js";

const pages = readDocPages(".");
const next = updateGenerated(pages, generatedSections(AGENTS));
const changed = Object.keys(pages).filter((file) => next[file] !== pages[file]);
for (const file of changed) writeFileSync(file, next[file]!);
console.log(
  changed.length > 0 ? `generated sections updated: ${changed.join(", ")}` : "generated sections up to date",
);
