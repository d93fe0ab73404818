/**
 * Local git repositories for provider tests: a work tree that commits, and a bare repository with what
 * it published, reached through a `file://` URL. No network, no global git configuration.
 */
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { KanonConfig, SkillEntry } from "../../src/model/config.js";
import { GIT_NO_HOUSEKEEPING } from "../support/cli.js";
import { importCommit } from "../support/git-import.js";

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
    ...GIT_NO_HOUSEKEEPING,
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
  /** Write files, commit on the current branch, publish it; returns the new commit SHA. */
  commit(files: Record<string, FileSpec>, message?: string): string;
  /** Create (or move) a branch at HEAD and check it out. */
  branch(name: string): void;
  checkout(name: string): void;
  /** Tag HEAD (annotated when a message is given) and publish the tag. */
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

/**
 * Repositories this file has built, by name and content, and an empty pair (bare + work tree with its
 * origin): a test gets a recursive copy of one, far cheaper than the git processes that built it
 * (three to start a pair, three per commit). Each copy is the test's own. An entry whose folder
 * cleanupTemp removed is built again.
 */
const built = new Map<string, string>();
const BLANK = "\0blank";

function template(key: string): string | undefined {
  const dir = built.get(key);
  return dir && existsSync(dir) ? dir : undefined;
}

/** A copy of the pair at `from` into `root`, its bare repository named `<name>.git`, origin set to it. */
function copyPair(from: string, fromName: string, root: string, name: string): void {
  const cp = (a: string, b: string) => cpSync(a, b, { recursive: true, verbatimSymlinks: true });
  cp(join(from, `${fromName}.git`), join(root, `${name}.git`));
  cp(join(from, "work"), join(root, "work"));
  const config = join(root, "work/.git/config");
  writeFileSync(
    config,
    readFileSync(config, "utf8").replace(join(from, `${fromName}.git`), join(root, `${name}.git`)),
  );
}

/**
 * The repository whose bare side is `<root>/<name>.git`. The bare repository borrows the work tree's
 * objects (objects/info/alternates, a relative path, so copies keep it), so publishing a commit or a
 * tag is writing its ref there: what `git push` would leave, without the two processes and the pack
 * it takes (a push cost ~0.12 s of CPU here, a third of a commit's).
 */
function openRepo(root: string, name: string, env: NodeJS.ProcessEnv): TestRepo {
  const bare = join(root, `${name}.git`);
  const work = join(root, "work");
  const run = (cwd: string, args: string[]) => {
    // A repository createRepo built has no index yet (importCommit writes none): git reads HEAD's
    // tree into one before anything works in the work tree.
    if (!existsSync(join(work, ".git/index"))) git(work, env, ["read-tree", "HEAD"]);
    return git(cwd, env, args).trim();
  };
  /** Sets `ref` in the bare repository to what it is in the work tree (a loose ref: nothing packs them). */
  const publish = (ref: string) => {
    const target = join(bare, ref);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, readFileSync(join(work, ".git", ref)));
  };
  const branchRef = () =>
    /^ref: (refs\/heads\/.+)\n$/.exec(readFileSync(join(work, ".git/HEAD"), "utf8"))![1]!;
  /** HEAD's commit, read as `git rev-parse HEAD` would (a loose ref; HEAD detached or on a branch). */
  const head = () => {
    const text = readFileSync(join(work, ".git/HEAD"), "utf8");
    return (
      text.startsWith("ref: ") ? readFileSync(join(work, ".git", text.slice(5).trim()), "utf8") : text
    ).trim();
  };
  return {
    work,
    bare,
    url: pathToFileURL(bare).href,
    env,
    git: (...args) => run(work, args),
    commit(files, message = "update") {
      writeFiles(work, files);
      run(work, ["add", "--all"]);
      run(work, ["commit", "--quiet", "--allow-empty", "-m", message]);
      publish(branchRef());
      return head();
    },
    branch(branchName) {
      run(work, ["checkout", "--quiet", "-B", branchName]);
    },
    checkout(branchName) {
      run(work, ["checkout", "--quiet", branchName]);
    },
    tag(tagName, message) {
      run(work, message ? ["tag", "-a", tagName, "-m", message] : ["tag", tagName]);
      publish(`refs/tags/${tagName}`);
    },
    head,
  };
}

const git = (cwd: string, env: NodeJS.ProcessEnv, args: string[]) =>
  execFileSync("git", args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/**
 * A repository named `<name>.git` holding `files` in one commit on `main`. The commit is written by
 * `git fast-import` (one process where add and commit took two); the work tree holds the files and
 * gets its index when a test first runs git in it (openRepo).
 */
export function createRepo(
  files: Record<string, FileSpec>,
  options: { name?: string; env?: NodeJS.ProcessEnv } = {},
): TestRepo {
  const env = options.env ?? testEnv();
  const root = tempDir("kanon-repo-");
  const name = options.name ?? "skills";
  const key = JSON.stringify([name, files]);
  const same = template(key);
  if (same) {
    copyPair(same, name, root, name);
    return openRepo(root, name, env);
  }
  let blank = template(BLANK);
  if (!blank) {
    blank = tempDir("kanon-repo-blank-");
    git(blank, env, ["init", "--quiet", "--bare", "-b", "main", "repo.git"]);
    git(blank, env, ["init", "--quiet", "-b", "main", "work"]);
    // What `git remote add origin` writes, without its process.
    appendFileSync(
      join(blank, "work/.git/config"),
      `[remote "origin"]\n\turl = ${join(blank, "repo.git")}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`,
    );
    writeFileSync(join(blank, "repo.git/objects/info/alternates"), "../../work/.git/objects\n");
    built.set(BLANK, blank);
  }
  copyPair(blank, "repo", root, name);
  const repo = openRepo(root, name, env);
  writeFiles(repo.work, files);
  importCommit(repo.work, env, "refs/heads/main", files, "initial");
  writeFileSync(join(repo.bare, "refs/heads/main"), `${repo.head()}\n`);
  const kept = tempDir("kanon-repo-built-");
  copyPair(root, name, kept, name);
  built.set(key, kept);
  return repo;
}

/** A copy of `repo` as it is now (branches, tags, work tree), for a test of its own. */
export function copyRepo(repo: TestRepo): TestRepo {
  const root = tempDir("kanon-repo-");
  const name = basename(repo.bare, ".git");
  copyPair(dirname(repo.bare), name, root, name);
  return openRepo(root, name, repo.env);
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
