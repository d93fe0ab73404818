/**
 * What `kanon update` would pull, seen before the Kanon home moves: the upstream commit once fetched,
 * the files the fast-forward would change, their text on either side, and the incoming tree written
 * out into a temporary directory beside the home (through a temporary index: the home's own index,
 * work tree and branch are not touched), so that it can be rendered and reviewed.
 */
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { KanonError } from "../model/types.js";
import type { Io } from "./context.js";
import { git, gitReason } from "./home-git.js";

export interface Upstream {
  /** The home's HEAD commit (null: no commit yet). */
  head: string | null;
  /** The commit of the branch's upstream, as fetched. */
  upstream: string;
  /** A fast-forward to `upstream` moves HEAD (false: up to date, ahead, or diverged). */
  moves: boolean;
}

async function revParse(home: string, rev: string, io: Io): Promise<string | null> {
  const r = await git(["-C", home, "rev-parse", "--verify", "--quiet", `${rev}^{commit}`], { io });
  return r.failure ? null : r.stdout.trim();
}

/**
 * HEAD's commit (null: none yet) and the upstream's, in one git process when both resolve; else
 * one at a time, so that a missing upstream fails with git's own reason for it.
 */
async function headAndUpstream(home: string, io: Io, failure: string): Promise<[string | null, string]> {
  const both = await git(["-C", home, "rev-parse", "HEAD^{commit}", "@{upstream}^{commit}"], { io });
  const shas = both.stdout.split("\n").filter(Boolean);
  if (both.failure === null && shas.length === 2 && shas.every((s) => /^[0-9a-f]+$/.test(s))) {
    return [shas[0]!, shas[1]!];
  }
  const head = await revParse(home, "HEAD", io);
  const r = await git(["-C", home, "rev-parse", "--verify", "@{upstream}^{commit}"], { io });
  if (r.failure) throw new KanonError(`${failure}: ${gitReason(r.output) || r.failure}`);
  return [head, r.stdout.trim()];
}

/** After a fetch: where the branch's upstream is, and whether `git merge --ff-only` would move HEAD. */
export async function upstreamOf(home: string, io: Io, failure: string): Promise<Upstream> {
  const [head, upstream] = await headAndUpstream(home, io, failure);
  if (head === null) return { head, upstream, moves: true };
  if (head === upstream) return { head, upstream, moves: false };
  const ff = await git(["-C", home, "merge-base", "--is-ancestor", head, upstream], { io });
  return { head, upstream, moves: ff.failure === null };
}

/** The paths (`/`-separated, relative to the home) whose content or mode differs between two commits. */
export async function changedPaths(
  home: string,
  from: string | null,
  to: string,
  io: Io,
): Promise<Set<string>> {
  const args =
    from === null
      ? ["ls-tree", "-r", "-z", "--name-only", to]
      : ["diff", "--no-renames", "--no-ext-diff", "-z", "--name-only", from, to];
  const r = await git(["-C", home, ...args], { io });
  if (r.failure)
    throw new KanonError(`git [${args.slice(0, -2).join(" ")}]: ${r.failure}: ${gitReason(r.output)}`);
  return new Set(r.stdout.split("\u0000").filter(Boolean));
}

/** A file's bytes as text in a commit (a symlink's: its target), or null when the commit has none there. */
export async function textAt(
  home: string,
  commit: string | null,
  rel: string,
  io: Io,
): Promise<string | null> {
  if (commit === null) return null;
  const r = await git(["-C", home, "cat-file", "blob", `${commit}:${rel}`], { io });
  return r.failure ? null : r.stdout;
}

/**
 * Runs `use` with the tree of `commit` written out into a temporary directory, removed afterwards
 * whatever happens. It sits beside the home, so that a path kanon.yaml writes relative to the home
 * and leading out of it (`../shared/x.md`) names the same file; the provider cache (`.kanon`, not
 * in git) is the home's own, so nothing already fetched is fetched again.
 */
export async function withTree<T>(
  home: string,
  commit: string,
  io: Io,
  use: (dir: string) => Promise<T>,
): Promise<T> {
  let dir: string;
  try {
    dir = mkdtempSync(join(dirname(home), `.${basename(home)}.incoming-`));
  } catch {
    // A home whose folder this user cannot write to: the system's temporary folder will do.
    dir = mkdtempSync(join(tmpdir(), "kanon-incoming-"));
  }
  const index = `${dir}.index`;
  try {
    for (const args of [
      ["read-tree", commit],
      ["checkout-index", "--all", `--prefix=${dir}/`],
    ]) {
      const r = await git(["-C", home, ...args], { io, env: { GIT_INDEX_FILE: index } });
      if (r.failure) throw new KanonError(`git [${args[0]}]: ${r.failure}: ${gitReason(r.output)}`);
    }
    const cache = join(home, ".kanon");
    if (existsSync(cache) && !existsSync(join(dir, ".kanon"))) symlinkSync(cache, join(dir, ".kanon"));
    return await use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(index, { force: true });
  }
}
