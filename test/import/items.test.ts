/**
 * `kanon import` of commands and subagents on a realistic machine (test/fixtures/import/items):
 * hand-written files of every agent, read back through each manifest into neutral items, one item
 * per meaning across agents, the rest reported. kanon.yaml, the warnings and the imported files are
 * golden (`UPDATE_GOLDEN=1 npx vitest run test/import/items.test.ts` rewrites them), and what was
 * imported renders back to what the agents read.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { listFiles, ROOT, sandboxPerTest } from "../support/cli.js";

const GOLDEN = join(ROOT, "test/golden/import");
const s = sandboxPerTest();
const { k } = s;

const golden = (name: string, text: string) => {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN) writeFileSync(path, text);
  expect(existsSync(path), `golden ${name} missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(text).toBe(readFileSync(path, "utf8"));
};

it("imports each agent's commands and subagents: one per meaning, the rest reported", async () => {
  cpSync(join(ROOT, "test/fixtures/import/items"), s.home, { recursive: true });
  const r = await k("import", "--write", "--no-git", "--agent", "all");
  expect(r.status).toBe(0);
  golden("items.kanon.yaml", s.readHome("kanon.yaml"));
  golden("items.warnings", r.stderr.replaceAll(s.home, "~"));
  const files = listFiles(s.kh).filter((f) => f !== "kanon.yaml");
  golden("items.files", files.map((f) => `==> ${f}\n${s.readHome(f)}`).join("\n"));
  expect(files).toEqual([
    "agents/kimi-tester.md",
    "agents/reader.md",
    "agents/tester.md",
    "commands/price.md",
    "commands/review.md",
    "commands/summarize.md",
  ]);
  // What was imported renders what the agents read: the same items, in kanon's own layout (a field
  // kanon skipped is gone), and the copy in OpenCode's singular folder is named for removal.
  golden("items.diff", (await k("diff")).stdout.replaceAll(s.home, "~"));
});

it("--merge adds the commands and subagents the home lacks and reports one that differs (--force replaces it)", async () => {
  mkdirSync(join(s.home, ".claude/commands"), { recursive: true });
  mkdirSync(join(s.home, ".claude/agents"), { recursive: true });
  writeFileSync(join(s.home, ".claude/commands/review.md"), "Review $ARGUMENTS.\n");
  writeFileSync(
    join(s.home, ".claude/agents/reader.md"),
    "---\nname: reader\ndescription: Reads\n---\nRead.\n",
  );
  s.writeHome("version: 1\n", { "agents/reader.md": "---\ndescription: Ours\n---\nOurs.\n" });
  const r = await k("import", "--merge", "--write", "--agent", "claude");
  expect(r.stderr).toBe(
    'conflict: subagent "reader" differs from agents/reader.md in the Kanon home; kept the home\'s (--force replaces it)\n',
  );
  expect(r.stdout).toBe(
    `added command entry "review"\nMerged imported config into ${join(s.kh, "kanon.yaml")}\n`,
  );
  expect(s.readHome("commands/review.md")).toBe("Review $ARGUMENTS.\n");
  expect(s.readHome("kanon.yaml")).toBe("version: 1\ncommands:\n  - name: review\n    targets: [claude]\n");
  expect(s.readHome("agents/reader.md")).toBe("---\ndescription: Ours\n---\nOurs.\n");
  expect((await k("import", "--merge", "--write", "--force", "--agent", "claude")).status).toBe(0);
  expect(s.readHome("agents/reader.md")).toBe("---\ndescription: Reads\n---\nRead.\n");
});

it("leaves a file that is not UTF-8, or holds a NUL, where it is, naming it", async () => {
  mkdirSync(join(s.home, ".claude/commands"), { recursive: true });
  writeFileSync(join(s.home, ".claude/commands/latin1.md"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  writeFileSync(join(s.home, ".claude/commands/nul.md"), "a\u0000b\n");
  writeFileSync(join(s.home, ".claude/commands/fine.md"), "Fine.\n");
  const r = await k("import", "--agent", "claude");
  expect(r.stderr.replaceAll(s.home, "~")).toBe(
    "warning: skipped claude command ~/.claude/commands/latin1.md: it is not UTF-8\n" +
      "warning: skipped claude command ~/.claude/commands/nul.md: it contains a NUL character, which no agent can take\n",
  );
  expect(r.stdout).toContain("commands:\n  - name: fine\n    targets: [claude]\n");
});

it("--merge adds the agents that hold a command the home has to its targets", async () => {
  s.writeFiles({
    ".claude/commands/review.md": "Review $ARGUMENTS.\n",
    ".config/opencode/commands/review.md": "Review $ARGUMENTS.\n",
  });
  s.writeHome("version: 1\ncommands:\n  - name: review\n    targets: [claude]\n", {
    "commands/review.md": "Review $ARGUMENTS.\n",
  });
  const r = await k("import", "--merge", "--write", "--agent", "all");
  expect(r).toMatchObject({ status: 0, stderr: "" });
  expect(r.stdout).toBe(
    `set command "review" targets to claude, opencode\nMerged imported config into ${join(s.kh, "kanon.yaml")}\n`,
  );
  expect(s.readHome("kanon.yaml")).toBe(
    "version: 1\ncommands:\n  - name: review\n    targets: [claude, opencode]\n",
  );
  expect((await k("diff")).stdout).toBe("No changes.\n");
});

it("leaves a subagent without a description where it is, naming it (kanon requires one)", async () => {
  s.write(".claude/agents/nodesc.md", "---\nname: nodesc\n---\nRead.\n");
  s.write(".claude/agents/reader.md", "---\nname: reader\ndescription: Reads\n---\nRead.\n");
  const r = await k("import", "--agent", "claude");
  expect(r.stderr.replaceAll(s.home, "~")).toBe(
    "warning: skipped claude subagent ~/.claude/agents/nodesc.md: it has no description, which kanon requires of a subagent\n",
  );
  expect(r.stdout).toContain("subagents:\n  - name: reader\n    targets: [claude]\n");
  expect(r.stdout).not.toContain("nodesc");
});

it("leaves a Claude Code command that a skill of its name hides where it is; the home it makes applies", async () => {
  mkdirSync(join(s.home, ".claude/commands"), { recursive: true });
  mkdirSync(join(s.home, ".claude/skills/review"), { recursive: true });
  writeFileSync(join(s.home, ".claude/commands/review.md"), "Review $ARGUMENTS.\n");
  writeFileSync(join(s.home, ".claude/commands/fine.md"), "Fine.\n");
  writeFileSync(
    join(s.home, ".claude/skills/review/SKILL.md"),
    "---\nname: review\ndescription: Reviews\n---\nThe skill.\n",
  );
  const r = await k("import", "--write", "--no-git", "--agent", "claude");
  expect(r.stderr.replaceAll(s.home, "~")).toBe(
    'warning: skipped claude command ~/.claude/commands/review.md: Claude Code runs the skill of a command\'s name, never the command, and the skill "review" is imported\n',
  );
  expect(existsSync(join(s.kh, "commands/review.md"))).toBe(false);
  expect(s.readHome("commands/fine.md")).toBe("Fine.\n");
  expect(await k("apply", "--yes", "--agent", "claude")).toMatchObject({ status: 0, stderr: "" });
});

it("leaves an item that differs from one already imported where it is when its new name would be too long", async () => {
  const name = "a".repeat(248);
  mkdirSync(join(s.home, ".claude/commands"), { recursive: true });
  mkdirSync(join(s.home, ".config/opencode/commands"), { recursive: true });
  writeFileSync(join(s.home, `.claude/commands/${name}.md`), "Claude's.\n");
  writeFileSync(join(s.home, `.config/opencode/commands/${name}.md`), "OpenCode's.\n");
  const r = await k("import", "--write", "--no-git", "--agent", "all");
  expect(r.status).toBe(0);
  expect(r.stderr.replaceAll(s.home, "~")).toBe(
    `warning: skipped opencode command ~/.config/opencode/commands/${name}.md: it differs from one already imported, and the name "opencode-${name}" it would take is longer than 255 bytes\n`,
  );
  expect(s.readHome(`commands/${name}.md`)).toBe("Claude's.\n");
});
