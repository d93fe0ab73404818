/** `npm run docs`: regenerate the README sections that come from the agent manifests. */
import { readFileSync, writeFileSync } from "node:fs";
import { AGENTS } from "../agents/index.js";
import { generatedSections, updateReadme } from "./generate.js";

const readme = readFileSync("README.md", "utf8");
const next = updateReadme(readme, generatedSections(AGENTS));
if (next !== readme) {
  writeFileSync("README.md", next);
  console.log("README.md: generated sections updated");
} else {
  console.log("README.md: generated sections up to date");
}
