/**
 * Local git repositories for provider tests: a work tree that commits and pushes to a bare repository
 * reached through a `file://` URL. No network, no global git configuration.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { KanonConfig, SkillEntry } from "../../src/model/config.js";

const roots: string[] = [];

/** A fresh temp directory, removed by cleanupTemp(). */
export function tempDir(prefix = "kanon-providers-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  roots.push(dir);
  return dir;
}

export function cleanupTemp(): void {
  for (const dir of roots.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** An environment in which git needs no global configuration and never prompts. */
export function testEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const home = tempDir("kanon-home-");
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Kanon Test",
    GIT_AUTHOR_EMAIL: "kanon@example.test",
    GIT_COMMITTER_NAME: "Kanon Test",
    GIT_COMMITTER_EMAIL: "kanon@example.test",
    GIT_TERMINAL_PROMPT: "0",
    ...extra,
  };
}

/** File content, a symlink (`{ symlink: target }`), or null to delete. */
export type FileSpec = string | Uint8Array | { symlink: string } | null;

export interface TestRepo {
  work: string;
  bare: string;
  /** `file://…/<name>.git` */
  url: string;
  env: NodeJS.ProcessEnv;
  git(...args: string[]): string;
  /** Write files, commit on the current branch, push it; returns the new commit SHA. */
  commit(files: Record<string, FileSpec>, message?: string): string;
  /** Create (or move) a branch at HEAD and check it out. */
  branch(name: string): void;
  checkout(name: string): void;
  /** Tag HEAD (annotated when a message is given) and push the tag. */
  tag(name: string, message?: string): void;
  head(): string;
}

export function writeFiles(dir: string, files: Record<string, FileSpec>): void {
  for (const [rel, spec] of Object.entries(files)) {
    const path = join(dir, rel);
    rmSync(path, { recursive: true, force: true });
    if (spec === null) continue;
    mkdirSync(dirname(path), { recursive: true });
    if (typeof spec === "object" && "symlink" in spec) symlinkSync(spec.symlink, path);
    else writeFileSync(path, spec);
  }
}

/** A repository named `<name>.git` holding `files` in one commit on `main`. */
export function createRepo(
  files: Record<string, FileSpec>,
  options: { name?: string; env?: NodeJS.ProcessEnv } = {},
): TestRepo {
  const env = options.env ?? testEnv();
  const root = tempDir("kanon-repo-");
  const name = options.name ?? "skills";
  const bare = join(root, `${name}.git`);
  const work = join(root, "work");
  const run = (cwd: string, args: string[]) =>
    execFileSync("git", args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  run(root, ["init", "--quiet", "--bare", "-b", "main", bare]);
  run(root, ["init", "--quiet", "-b", "main", work]);
  run(work, ["remote", "add", "origin", bare]);
  const repo: TestRepo = {
    work,
    bare,
    url: pathToFileURL(bare).href,
    env,
    git: (...args) => run(work, args),
    commit(files, message = "update") {
      writeFiles(work, files);
      run(work, ["add", "--all"]);
      run(work, ["commit", "--quiet", "--allow-empty", "-m", message]);
      run(work, ["push", "--quiet", "--force", "origin", "HEAD"]);
      return run(work, ["rev-parse", "HEAD"]);
    },
    branch(branchName) {
      run(work, ["checkout", "--quiet", "-B", branchName]);
    },
    checkout(branchName) {
      run(work, ["checkout", "--quiet", branchName]);
    },
    tag(tagName, message) {
      run(work, message ? ["tag", "-a", tagName, "-m", message] : ["tag", tagName]);
      run(work, ["push", "--quiet", "origin", `refs/tags/${tagName}`]);
    },
    head: () => run(work, ["rev-parse", "HEAD"]),
  };
  repo.commit(files, "initial");
  return repo;
}

export const skillMd = (name: string, body = `About ${name}.`) => `---\nname: ${name}\n---\n\n${body}\n`;

export function config(skills: SkillEntry[]): KanonConfig {
  return { version: 1, instructions: { files: [] }, skills, mcp: { servers: {} }, hooks: [], metadata: {} };
}

/** The text of a provider child's file. */
export function fileText(files: { rel: string; content: Uint8Array }[], rel: string): string | undefined {
  const f = files.find((x) => x.rel === rel);
  return f ? Buffer.from(f.content).toString("utf8") : undefined;
}
