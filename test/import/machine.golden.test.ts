/**
 * Realistic machines imported by kanon's command line. test/fixtures/import/machine: Claude settings
 * with permissions and the user's hooks, a Codex config.toml with comments and profiles, an OpenCode
 * .jsonc with comments, a user plugin, skills in several roots, per-agent instructions.
 * test/fixtures/import/gemini-kimi: what kanon applied for Gemini CLI and Kimi Code, then the
 * user's own settings, servers with fields kanon does not write, hooks of their own and a skill.
 * The kanon.yaml, the warnings and the diff are golden files: `UPDATE_GOLDEN=1 npx vitest run
 * test/import/machine.golden.test.ts` rewrites them; review the diff.
 */
import { cpSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { listFiles, ROOT, sandboxPerTest } from "../support/cli.js";

const GOLDEN = join(ROOT, "test/golden/import");
const s = sandboxPerTest();
const { k } = s;
const machine = (name: string) =>
  cpSync(join(ROOT, "test/fixtures/import", name), s.home, { recursive: true });

const golden = (name: string, text: string) => {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN) writeFileSync(path, text);
  expect(existsSync(path), `golden ${name} missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(text).toBe(readFileSync(path, "utf8"));
};

it("imports a realistic machine: kanon.yaml, files and warnings", async () => {
  machine("machine");
  const r = await k("import", "--write", "--no-git", "--instruction-policy", "per-agent");
  expect(r.status).toBe(0);
  golden("machine.kanon.yaml", s.readHome("kanon.yaml"));
  golden("machine.warnings", r.stderr.replaceAll(s.home, "~"));
  expect(listFiles(s.kh)).toEqual([
    "instructions/codex.md",
    "instructions/opencode.md",
    "kanon.yaml",
    "skills/commit/SKILL.md",
    "skills/review/SKILL.md",
  ]);
  expect(s.readHome("instructions/opencode.md")).toBe("# OpenCode rules\n\nPrefer small diffs.\n");
  // Everything it imported renders back as it is on the machine: the hand-written hook files'
  // handlers are adopted where they are (layout and the two-handler group kept).
  const diff = (await s.run(["--home", s.kh, "diff"], { env: { GITHUB_TOKEN: "x" } })).stdout;
  expect(diff).toBe("No changes.\n");
});

it("imports Gemini CLI and Kimi Code: agents: lists them, kanon's hooks come back, the rest is reported", async () => {
  machine("gemini-kimi");
  const r = await k("import", "--write", "--no-git");
  expect(r.status).toBe(0);
  golden("gemini-kimi.kanon.yaml", s.readHome("kanon.yaml"));
  golden("gemini-kimi.warnings", r.stderr.replaceAll(s.home, "~"));
  expect(listFiles(s.kh)).toEqual([
    "instructions/imported.md",
    "kanon.yaml",
    "skills/deploy/SKILL.md",
    "skills/deploy/scripts/deploy.sh",
    "skills/lint/SKILL.md",
    "skills/notes/SKILL.md",
  ]);
  expect(statSync(join(s.kh, "skills/deploy/scripts/deploy.sh")).mode & 0o777).toBe(0o755);
  // What it reported as skipped is all that diff would change: the server fields kanon does not
  // write and kanon's own hook on an event it cannot express. The user's hooks stay where they are.
  const diff = await s.run(["--home", s.kh, "diff"], { env: { GITHUB_TOKEN: "x" } });
  golden("gemini-kimi.diff", diff.stdout.replaceAll(s.home, "~"));
  expect(diff.stdout).not.toContain("secret-scan");
  expect(diff.stdout).not.toContain("notify-send");
});
