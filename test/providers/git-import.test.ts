/** The fixtures' one-process commit (test/support/git-import.ts) against git add and git commit. */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { importCommit } from "../support/git-import.js";
import { cleanupTemp, type FileSpec, tempDir, testEnv, writeFiles } from "./helpers.js";

afterAll(cleanupTemp);

it("commits the tree git add --all and git commit make of the same files, on top of the branch", () => {
  const env = testEnv();
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  const first: Record<string, FileSpec> = {
    "a/SKILL.md": "one\n",
    "b c/é.txt": "non-ASCII and a space\n",
    'say "hi".md': "a quote in the name\n",
    "bin.dat": new Uint8Array([0, 1, 2, 255]),
    link: { symlink: "a/SKILL.md" },
  };
  const second: Record<string, FileSpec> = { "a/SKILL.md": "two\n", "bin.dat": null, "new/x": "x" };
  const root = tempDir();
  const [imported, committed] = ["imported", "committed"].map((name) => {
    const work = join(root, name);
    git(root, "init", "--quiet", "-b", "main", work);
    return work;
  }) as [string, string];
  const trees: string[][] = [[], []];
  for (const [i, files] of [first, second].entries()) {
    writeFiles(committed, files);
    git(committed, "add", "--all");
    git(committed, "commit", "--quiet", "-m", "change");
    writeFiles(imported, files);
    const commit = importCommit(imported, env, "refs/heads/main", files, "change");
    expect(commit).toBe(git(imported, "rev-parse", "HEAD"));
    trees[0]![i] = git(committed, "rev-parse", "HEAD^{tree}");
    trees[1]![i] = git(imported, "rev-parse", "HEAD^{tree}");
  }
  expect(trees[1]).toEqual(trees[0]);
  expect(git(imported, "log", "--format=%s %an <%ae>")).toBe(
    "change Kanon Test <kanon@example.test>\nchange Kanon Test <kanon@example.test>",
  );
});
