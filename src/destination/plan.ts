/**
 * Target state → plan: what would change on disk. Stateless, as in the Go original: each rendered
 * file is compared with its destination; co-owned files are merged first (only kanon's entries
 * change); nothing that stops being rendered is deleted.
 */
import { existsSync, lstatSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { decodeBytes, encodeText } from "../formats/utf8.js";
import { osErrorText } from "../model/fs-errors.js";
import { KanonError, type TargetFile } from "../model/types.js";
import type { mergeCoOwned } from "./edit/index.js";

type Merge = typeof mergeCoOwned;

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

/**
 * Synchronous reads: thousands of small files are read several times faster than with promises. The
 * layout-preserving editors (and their parsers) load only when a co-owned file already exists.
 */
export async function planChanges(files: readonly TargetFile[]): Promise<Plan> {
  const changes: Change[] = [];
  let merge: Merge | undefined;
  for (const file of files) {
    const path = symlinkTarget(chooseDestination(file));
    if (file.merge && !merge && existsSync(path)) merge = (await import("./edit/index.js")).mergeCoOwned;
    const change = planFile(file, path, merge);
    if (change) changes.push(change);
  }
  return { changes };
}

function planFile(file: TargetFile, path: string, merge: Merge | undefined): Change | null {
  let before: Buffer;
  let mode: number;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw new KanonError(`cannot write ${path}: a directory is in the way`);
    mode = st.mode & 0o777;
    before = readFileSync(path);
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
  if (file.merge && !merge)
    throw new KanonError(`${path} appeared while kanon was planning; run the command again`);
  const after = file.merge
    ? encodeText(merge!(decodeBytes(before), file.merge, file.managed ?? {}, path))
    : file.content;
  // A co-owned file keeps its mode (a 0600 ~/.claude.json stays 0600); a kanon-owned one gets the rendered mode.
  const targetMode = file.merge ? mode : file.mode;
  if (mode === targetMode && before.equals(after)) return null;
  return {
    file,
    path,
    action: "update",
    before,
    after,
    mode: targetMode,
    beforeMode: mode,
  };
}

/** For co-owned documents with alternative names (opencode.json / opencode.jsonc): the first that exists. */
function chooseDestination(file: TargetFile): string {
  if (!file.alternatives) return file.path;
  return [file.path, ...file.alternatives].find((p) => lstatSync(p, { throwIfNoEntry: false })) ?? file.path;
}

/**
 * A destination that is a symlink is written at its final target, which need not exist yet (a
 * dangling link stays a link and its target is created); anything else is written where it is.
 */
export function symlinkTarget(path: string): string {
  let p = path;
  for (let hops = 0; hops < 40; hops++) {
    let link: string;
    try {
      if (!lstatSync(p).isSymbolicLink()) return p;
      link = readlinkSync(p);
    } catch {
      return p;
    }
    p = resolve(dirname(p), link);
  }
  throw new KanonError(`cannot write ${path}: too many levels of symbolic links`);
}
