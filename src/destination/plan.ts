/**
 * Target state → plan: what would change on disk. Stateless, as in the Go original: each rendered
 * file is compared with its destination; co-owned files are merged first (only kanon's entries
 * change); nothing that stops being rendered is deleted.
 */
import { createHash } from "node:crypto";
import { lstat, readFile, realpath, stat } from "node:fs/promises";
import { KanonError, type TargetFile } from "../core/types.js";
import { osErrorText } from "../source/fs-errors.js";
import { mergeCoOwned } from "./edit/index.js";

export interface Change {
  file: TargetFile;
  /** The destination written: `file.path`, an existing alternative of it, or a symlink's target. */
  path: string;
  action: "create" | "update";
  before: Uint8Array | null;
  after: Uint8Array;
  /** Mode the file will have (an existing file keeps its own unless kanon owns it whole). */
  mode: number;
  beforeMode: number | null;
}

export interface Plan {
  changes: Change[];
}

const CONCURRENCY = 32;

export async function planChanges(files: readonly TargetFile[]): Promise<Plan> {
  const results: (Change | null)[] = new Array(files.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      results[i] = await planFile(files[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, files.length) }, worker));
  const changes = results.filter((c): c is Change => c !== null);
  return { changes };
}

async function planFile(file: TargetFile): Promise<Change | null> {
  const path = await chooseDestination(file);
  let before: Buffer;
  let mode: number;
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw new KanonError(`cannot write ${path}: a directory is in the way`);
    mode = st.mode & 0o777;
    before = await readFile(path);
  } catch (e) {
    if (e instanceof KanonError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      return {
        file,
        path,
        action: "create",
        before: null,
        after: file.content,
        mode: file.mode,
        beforeMode: null,
      };
    }
    if (code === "ENOTDIR")
      throw new KanonError(`cannot write ${path}: a parent of it is a file, not a directory`);
    throw new KanonError(`read ${path}: ${osErrorText(e)}`);
  }
  let after: Uint8Array = file.content;
  if (file.merge) {
    const merged = mergeCoOwned(before.toString("utf8"), file.merge, file.managed ?? {}, path);
    after = Buffer.from(merged, "utf8");
  }
  // A co-owned file keeps its mode (a 0600 ~/.claude.json stays 0600); a kanon-owned one gets the rendered mode.
  const targetMode = file.merge ? mode : file.mode;
  if (mode === targetMode && sha256(before) === sha256(after)) return null;
  return {
    file,
    path: await resolveLink(path),
    action: "update",
    before,
    after,
    mode: targetMode,
    beforeMode: mode,
  };
}

/** For co-owned documents with alternative names (opencode.json / opencode.jsonc): the first that exists. */
async function chooseDestination(file: TargetFile): Promise<string> {
  for (const p of [file.path, ...(file.alternatives ?? [])]) {
    if (
      await lstat(p).then(
        () => true,
        () => false,
      )
    )
      return p;
  }
  return file.path;
}

/** A destination that is a symlink is updated at its target. */
async function resolveLink(path: string): Promise<string> {
  const st = await lstat(path);
  return st.isSymbolicLink() ? realpath(path) : path;
}

export function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
