/**
 * A commit written by one `git fast-import`, for test fixtures: blobs, tree, commit and the branch in
 * one process, where `git add` and `git commit` take two (and write the index too). The commit is what
 * `git add --all && git commit` would make of the same files; the index and the work tree are not
 * touched.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A file's content, a symlink's target, or null to delete it. */
export type ImportedFile = string | Uint8Array | { symlink: string } | null;

/** fast-import's spelling of a path: as it is, or C-quoted when it holds a quote or a line break. */
const pathOf = (rel: string) => (/["\n]/.test(rel) || rel.startsWith('"') ? JSON.stringify(rel) : rel);

/**
 * Commits `files` (paths relative to the repository's root) on `branch` of the repository at `work`
 * (a work tree; its `.git` holds the objects), on top of the branch's commit when it has one; returns
 * the new commit. Author and committer are the environment's GIT_COMMITTER_NAME and _EMAIL, dated now.
 */
export function importCommit(
  work: string,
  env: NodeJS.ProcessEnv,
  branch: string,
  files: Record<string, ImportedFile>,
  message: string,
): string {
  const refFile = join(work, ".git", branch);
  const parent = existsSync(refFile) ? readFileSync(refFile, "utf8").trim() : null;
  const chunks: Buffer[] = [];
  const line = (text: string) => chunks.push(Buffer.from(`${text}\n`));
  const data = (bytes: Buffer) => {
    line(`data ${bytes.length}`);
    chunks.push(bytes);
    line("");
  };
  line(`commit ${branch}`);
  line(`committer ${env.GIT_COMMITTER_NAME} <${env.GIT_COMMITTER_EMAIL}> now`);
  data(Buffer.from(message));
  if (parent) line(`from ${parent}`);
  for (const [rel, spec] of Object.entries(files)) {
    if (spec === null) {
      line(`D ${pathOf(rel)}`);
      continue;
    }
    const symlink = typeof spec === "object" && "symlink" in spec;
    line(`M ${symlink ? "120000" : "100644"} inline ${pathOf(rel)}`);
    data(Buffer.from(symlink ? spec.symlink : spec));
  }
  // unpackLimit 0: the objects stay in the pack fast-import wrote, instead of a second process
  // (unpack-objects) that makes them loose.
  execFileSync("git", ["-c", "fastimport.unpackLimit=0", "fast-import", "--quiet", "--date-format=now"], {
    cwd: work,
    env,
    input: Buffer.concat(chunks),
    stdio: ["pipe", "ignore", "pipe"],
  });
  return readFileSync(refFile, "utf8").trim();
}
