/**
 * A Kanon home in the middle of a git merge, rebase, cherry-pick or revert holds half-resolved files:
 * nothing renders from it until git is done. Found from the files git keeps in the repository (a few
 * stats, no git process), so that every diff can afford the check.
 */
import { statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { readBounded } from "../model/bounded-read.js";
import { KanonError } from "../model/types.js";

/** The home is mid-operation: render, diff, apply and the rest say so and stop. */
export class UnsettledHomeError extends KanonError {}

/** `.git`, or the folder a `.git` file (a worktree, a submodule) points to; null when there is none. */
function gitDir(home: string): string | null {
  const dotGit = join(home, ".git");
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(dotGit, { throwIfNoEntry: false });
  } catch {
    // Not a folder at all (a --home that is a file): the command says so itself.
    return null;
  }
  if (!st) return null;
  if (st.isDirectory()) return dotGit;
  try {
    const m = /^gitdir: (.+)$/m.exec(readBounded(dotGit, { limit: 4096 }).bytes.toString("utf8"));
    if (!m) return null;
    const dir = m[1]!.trim();
    return isAbsolute(dir) ? dir : resolve(home, dir);
  } catch {
    return null;
  }
}

/** Throws when the home is in the middle of a git operation, naming it and how to finish it. */
export function assertSettledHome(home: string): void {
  const dir = gitDir(home);
  if (!dir) return;
  const has = (name: string) => statSync(join(dir, name), { throwIfNoEntry: false }) !== undefined;
  const g = `git -C ${home}`;
  const state = has("rebase-merge")
    ? {
        what: "a rebase",
        fix: `resolve the conflicts, ${g} add the files and ${g} rebase --continue, or ${g} rebase --abort`,
      }
    : has("rebase-apply")
      ? has("rebase-apply/applying")
        ? { what: "git am", fix: `${g} am --continue, or ${g} am --abort` }
        : {
            what: "a rebase",
            fix: `resolve the conflicts, ${g} add the files and ${g} rebase --continue, or ${g} rebase --abort`,
          }
      : has("MERGE_HEAD")
        ? { what: "a merge", fix: `resolve the conflicts and ${g} commit, or ${g} merge --abort` }
        : has("CHERRY_PICK_HEAD")
          ? { what: "a cherry-pick", fix: `${g} cherry-pick --continue, or ${g} cherry-pick --abort` }
          : has("REVERT_HEAD")
            ? { what: "a revert", fix: `${g} revert --continue, or ${g} revert --abort` }
            : null;
  if (state)
    throw new UnsettledHomeError(
      `the Kanon home ${home} is in the middle of ${state.what}: ${state.fix}, then run kanon again; nothing was written`,
    );
}
