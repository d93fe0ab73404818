/**
 * `git` in the Kanon home, for the commands that sync it across machines (init <repo>, pull, push,
 * update) and for status. The user's own git runs with the user's configuration; output is streamed
 * (pull, push) or kept for the error message (clone), with any credentials of a URL redacted.
 */

import { visible } from "../model/visible.js";
import { type GitExit, redactOutput, spawnGit, withoutRepositoryEnv } from "../providers/git.js";
import { type Io, isTerminal } from "./context.js";

export interface GitOptions {
  io: Io;
  cwd?: string;
  /** Stream git's output through to the user (as it comes, redacted). */
  stream?: boolean;
  /** A URL whose credentials must never be printed. */
  secretUrl?: string;
  /** More such URLs (the home's remotes, for pull and push). */
  secretUrls?: readonly string[];
  /** Variables set for this git only (a temporary index). */
  env?: Readonly<Record<string, string>>;
}

/**
 * Run the user's git. On a terminal git may ask for credentials; elsewhere it fails instead of
 * waiting for an answer nobody can give.
 */
export function git(args: readonly string[], opts: GitOptions): Promise<GitExit> {
  const { io } = opts;
  const secrets = [...(opts.secretUrl ? [opts.secretUrl] : []), ...(opts.secretUrls ?? [])];
  // -C names the repository: GIT_DIR and friends (set inside a git hook, say) must not override it.
  const env = { ...withoutRepositoryEnv(io.env), ...opts.env };
  if (!isTerminal(io.stderr)) env.GIT_TERMINAL_PROMPT = "0";
  return spawnGit(args, {
    cwd: opts.cwd,
    env,
    redact: (text) => secrets.reduce((t, url) => redactOutput(url, t), text),
    // Streamed as it comes, made visible (a remote's message cannot act on the terminal).
    ...(opts.stream ? { onOutput: (text, stream) => io[stream].write(visible(text, true)) } : {}),
  });
}

/**
 * The URLs of the home's remotes (fetch and push): git prints them in pull and push output, and one
 * may carry a token (`https://host/repo.git?private_token=…`, `https://user:token@host/…`).
 */
export async function remoteUrls(home: string, io: Io): Promise<string[]> {
  const r = await git(["-C", home, "config", "--get-regexp", "^remote\\..*\\.(push)?url$"], { io });
  if (r.failure) return [];
  return r.stdout
    .split("\n")
    .map((l) => l.slice(l.indexOf(" ") + 1))
    .filter((u) => u !== "" && !u.includes("\u0000"));
}

/** The lines of git's output that say what went wrong (`fatal:`, `error:`), on one line. */
export function gitReason(output: string): string {
  const lines = output
    .split(/[\r\n]+/)
    .map((l) => l.trim())
    .filter(Boolean);
  const reasons = lines.filter((l) => /^(fatal|error):/.test(l));
  return (reasons.length > 0 ? reasons : lines.slice(-1)).join(" ");
}

export interface BranchState {
  /** null when HEAD is detached. */
  branch: string | null;
  /** No commit yet on the branch. */
  unborn: boolean;
  upstream: string | null;
  /** The upstream branch was deleted on the remote. */
  gone: boolean;
  ahead: number;
  behind: number;
  /** `git status --short` lines of uncommitted changes (untracked files included). */
  changes: string[];
}

/** The `## …` line of `git status --porcelain --branch`, from git's own refs (no fetch). */
export function parseBranchLine(line: string): Omit<BranchState, "changes"> {
  const state = { branch: null, unborn: false, upstream: null, gone: false, ahead: 0, behind: 0 };
  const head = line.replace(/^## /, "");
  const unborn = /^(?:No commits yet on|Initial commit on) (.+)$/.exec(head);
  if (unborn) return { ...state, branch: unborn[1] ?? null, unborn: true };
  if (head.startsWith("HEAD (no branch)")) return state;
  const m = /^(.+?)(?:\.\.\.(\S+))?(?: \[(.+)\])?$/.exec(head);
  if (!m) return { ...state, branch: head };
  const info = m[3] ?? "";
  return {
    ...state,
    branch: m[1] ?? head,
    upstream: m[2] ?? null,
    gone: info === "gone",
    ahead: Number(/ahead (\d+)/.exec(info)?.[1] ?? 0),
    behind: Number(/behind (\d+)/.exec(info)?.[1] ?? 0),
  };
}

/** The home's branch against its upstream (as of the last fetch) and its uncommitted changes. */
export async function branchState(home: string, io: Io): Promise<BranchState | { error: string }> {
  const r = await git(["-C", home, "status", "--porcelain", "--branch"], { io });
  if (r.failure) return { error: `git status: ${r.failure}: ${gitReason(r.output)}` };
  const [first = "", ...rest] = r.stdout.split("\n");
  return { ...parseBranchLine(first), changes: rest.filter((l) => l !== "") };
}
