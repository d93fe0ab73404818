import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readProviderTree } from "../../src/providers/provider-tree.js";
import { cleanupTemp, tempDir, writeFiles } from "./helpers.js";

afterAll(cleanupTemp);

describe("readProviderTree", () => {
  it("rejects a root that is a symlink, missing, or a file", async () => {
    const dir = tempDir();
    writeFiles(dir, { "real/s/SKILL.md": "s", file: "x" });
    symlinkSync(join(dir, "real"), join(dir, "link"));
    await expect(readProviderTree("p", join(dir, "link"))).rejects.toThrow(
      'git skill provider "p" root is a symlink',
    );
    await expect(readProviderTree("p", join(dir, "file"))).rejects.toThrow(
      'git skill provider "p" root is not a directory',
    );
    await expect(readProviderTree("p", join(dir, "none"))).rejects.toThrow(
      `git skill provider "p": lstat ${join(dir, "none")}: no such file or directory`,
    );
  });

  it("rejects a SKILL.md that is not a regular file", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "s", "SKILL.md"), { recursive: true });
    await expect(readProviderTree("p", dir)).rejects.toThrow(
      'git skill provider "p" child "s": skill "s" source SKILL.md is not a regular file',
    );
  });

  it("rejects special files, after every child passed the symlink checks", async () => {
    const dir = tempDir();
    writeFiles(dir, { "a/SKILL.md": "a", "b/SKILL.md": "b" });
    execFileSync("mkfifo", [join(dir, "a", "pipe")]);
    await expect(readProviderTree("p", dir)).rejects.toThrow(
      'skill "a" source contains non-regular file "pipe"',
    );
    symlinkSync("/etc/passwd", join(dir, "b", "link"));
    await expect(readProviderTree("p", dir)).rejects.toThrow(
      'git skill provider "p" child "b": skill "b" source contains symlink "link"',
    );
  });

  it("ignores dot entries (even symlinks) and top-level files", async () => {
    const dir = tempDir();
    writeFiles(dir, { "s/SKILL.md": "s", "README.md": "r" });
    symlinkSync("/", join(dir, ".escape"));
    writeFileSync(join(dir, ".hidden"), "h");
    const tree = await readProviderTree("p", dir);
    expect(tree.children.map((c) => c.name)).toEqual(["s"]);
  });

  it("skips .git directories inside a child and sorts children byte-wise", async () => {
    const dir = tempDir();
    writeFiles(dir, {
      "b/SKILL.md": "b",
      "B/SKILL.md": "B",
      "a/SKILL.md": "a",
      "a/.git/config": "x",
      "a/.gitignore": "g",
    });
    const tree = await readProviderTree("p", dir);
    expect(tree.children.map((c) => c.name)).toEqual(["B", "a", "b"]);
    expect(tree.children[1]!.files.map((f) => f.rel)).toEqual([".gitignore", "SKILL.md"]);
  });
});
