/**
 * The home's git questions that take one process when the home has commits and an upstream, and ask
 * again, one thing at a time, when it has not: what `kanon update` and `kanon push` see in a home
 * with no commit yet, or a branch without upstream.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/context.js";
import { upstreamOf } from "../../src/cli/incoming.js";
import { secretsToPush } from "../../src/cli/push-guard.js";
import { type Sandbox, sandbox, sandboxEnv } from "../support/cli.js";

const TOKEN = "ghp_k4N0nF1xtur3T0k3nAAAAAAAAAAAAAAAAAAAA";

let s: Sandbox;
/** A home with one commit (a token in kanon.yaml), no remote. */
let committed: string;
/** A home with no commit yet whose branch follows `committed`'s main, fetched. */
let unborn: string;
let tip: string;

const io = (): Io => ({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: sandboxEnv(s.home),
  cwd: s.work,
  userHome: s.home,
});
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, env: sandboxEnv(s.home), encoding: "utf8", stdio: "pipe" }).trim();

beforeAll(() => {
  s = sandbox();
  committed = join(s.work, "committed");
  unborn = join(s.work, "unborn");
  mkdirSync(committed);
  writeFileSync(join(committed, "kanon.yaml"), `version: 1\n# ${TOKEN}\n`);
  git(s.work, "init", "--quiet", "--initial-branch=main", committed);
  git(committed, "add", "--all");
  git(committed, "commit", "--quiet", "-m", "start");
  tip = git(committed, "rev-parse", "HEAD");
  git(s.work, "init", "--quiet", "--initial-branch=main", unborn);
  appendFileSync(
    join(unborn, ".git/config"),
    `[remote "origin"]\n\turl = ${committed}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n` +
      `[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n`,
  );
  git(unborn, "fetch", "--quiet", "origin");
});
afterAll(() => s.cleanup());

describe("upstreamOf", () => {
  it("a home with no commit yet: no HEAD, and the fast-forward moves it to the upstream", async () => {
    expect(await upstreamOf(unborn, io(), "pull")).toEqual({ head: null, upstream: tip, moves: true });
  });

  it("a branch without upstream: git's own reason, after the failure's name", async () => {
    await expect(upstreamOf(committed, io(), "git [pull --ff-only]")).rejects.toThrow(
      /^git \[pull --ff-only\]: fatal: no upstream configured for branch 'main'$/,
    );
  });
});

describe("secretsToPush", () => {
  it("a home with no commit yet has nothing to push, so nothing to scan", async () => {
    expect(await secretsToPush(unborn, io())).toEqual([]);
  });

  it("a home with commits no remote has: the token's line and commit", async () => {
    expect(await secretsToPush(committed, io())).toEqual([
      { where: "kanon.yaml:2", what: expect.any(String), commit: tip.slice(0, 7) },
    ]);
  });
});
