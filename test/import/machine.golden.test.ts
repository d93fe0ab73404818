/**
 * A realistic machine (test/fixtures/import/machine: Claude settings with permissions and the
 * user's hooks, a Codex config.toml with comments and profiles, an OpenCode .jsonc with comments, a
 * user plugin, skills in several roots, per-agent instructions) imported by the built binary. The
 * kanon.yaml and the warnings are golden files: `UPDATE_GOLDEN=1 npx vitest run
 * test/import/machine.golden.test.ts` rewrites them; review the diff.
 */
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ROOT, type Sandbox, sandbox } from "../support/cli.js";

const GOLDEN = join(ROOT, "test/golden/import");
let s: Sandbox;
beforeEach(() => {
  s = sandbox();
  cpSync(join(ROOT, "test/fixtures/import/machine"), s.home, { recursive: true });
});
afterEach(() => s.cleanup());

const golden = (name: string, text: string) => {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN) writeFileSync(path, text);
  expect(existsSync(path), `golden ${name} missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(text).toBe(readFileSync(path, "utf8"));
};

it("imports a realistic machine: kanon.yaml, files and warnings", () => {
  const kh = join(s.work, "kh");
  const r = s.run(["--home", kh, "import", "--write", "--instruction-policy", "per-agent"]);
  expect(r.status).toBe(0);
  golden("machine.kanon.yaml", readFileSync(join(kh, "kanon.yaml"), "utf8"));
  golden("machine.warnings", r.stderr.replaceAll(s.home, "~"));
  const files = readdirSync(kh, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(kh.length + 1))
    .sort();
  expect(files).toEqual([
    "instructions/codex.md",
    "instructions/opencode.md",
    "kanon.yaml",
    "skills/commit/SKILL.md",
    "skills/review/SKILL.md",
  ]);
  expect(readFileSync(join(kh, "instructions/opencode.md"), "utf8")).toBe(
    "# OpenCode rules\n\nPrefer small diffs.\n",
  );
  // Everything it imported renders back as it is on the machine: the hand-written hook files'
  // handlers are adopted where they are (layout and the two-handler group kept).
  const diff = s.run(["--home", kh, "diff"], { env: { GITHUB_TOKEN: "x" } }).stdout;
  expect(diff).toBe("No changes.\n");
});
