/**
 * Apply into a project writes files a repository may hold: a secret value going into one that git
 * tracks, or would track (not ignored), is named before anything is written, so that it does not
 * reach the project's remote by the next commit.
 */
import { existsSync } from "node:fs";
import { relative } from "node:path";
import type { Change } from "../destination/plan.js";
import type { Scope } from "../model/types.js";
import type { Io } from "./context.js";
import { git } from "./home-git.js";

export async function trackedSecretWarnings(
  scope: Scope,
  changes: readonly Change[],
  secrets: ReadonlyMap<string, string>,
  io: Io,
): Promise<string[]> {
  if (scope.kind !== "project" || secrets.size === 0 || !existsSync(scope.dir)) return [];
  const cwd = scope.dir;
  const warnings: string[] = [];
  for (const c of changes) {
    if (!c.after) continue;
    const content = Buffer.from(c.after.buffer, c.after.byteOffset, c.after.byteLength);
    const name = [...secrets].find(
      ([, v]) =>
        content.includes(Buffer.from(v)) || content.includes(Buffer.from(JSON.stringify(v).slice(1, -1))),
    )?.[0];
    if (!name) continue;
    const inside = await git(["rev-parse", "--is-inside-work-tree"], { io, cwd });
    if (inside.failure || inside.stdout.trim() !== "true") continue;
    const rel = relative(scope.dir, c.path);
    const tracked = await git(["ls-files", "--error-unmatch", "--", c.path], { io, cwd });
    if (!tracked.failure) {
      warnings.push(
        `${rel} will hold the secret ${name} and git tracks it: the next commit there would publish it (keep the server out of project scope, or stop tracking ${rel})`,
      );
      continue;
    }
    const ignored = await git(["check-ignore", "-q", "--", c.path], { io, cwd });
    if (ignored.failure)
      warnings.push(
        `${rel} will hold the secret ${name} and git would track it (it is not ignored): add ${rel} to the project's .gitignore`,
      );
  }
  return warnings;
}
