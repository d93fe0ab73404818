/**
 * The Kanon home's files are read as the home's files. A path kanon.yaml writes relative to the home
 * (or inside it) must stay in the home once symlinks are resolved: a cloned home holding
 * `instructions/shared.md -> ../../../.ssh/id_rsa` is refused, naming the file, as a provider tree
 * with a symlink is. A path written outside the home (`~/notes/rules.md`, `/srv/skills/review`,
 * `../shared/x.md`) is there for everyone reviewing kanon.yaml to see (`kanon update` lists it before
 * it applies a pulled one); inside a folder named that way, symlinks must stay in that folder.
 * Every file is read by the bounded reader: a FIFO, a device or an oversized file is refused at once.
 */
import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { isInside } from "../core/names.js";
import { fileKind, READ_LIMIT, ReadRefused, readBounded } from "../model/bounded-read.js";

export interface HomeRead {
  /** The path as kanon.yaml resolves it. */
  path: string;
  /**
   * The real folder whose files this path may read, or null for an explicit file outside the home
   * (read as named).
   */
  within: string | null;
  /** The path is outside the Kanon home (written so in kanon.yaml). */
  outside: boolean;
}

/** The real path of `path`, or `path` itself when it does not resolve (missing). */
export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Where a path named in kanon.yaml may read: see HomeRead. `dir`: the path names a folder. */
export function homeRead(path: string, home: string, dir: boolean): HomeRead {
  if (isInside(home, path)) return { path, within: realOrSelf(home), outside: false };
  return { path, within: dir ? realOrSelf(path) : null, outside: true };
}

/**
 * Why the file (or folder, for `dir`: its type is the caller's to check) at `read.path` cannot be
 * read as the home's, or null; the reason completes `<path> …`: it resolves outside the folder it
 * must stay in, or it is not a regular file. OS errors (a missing file) are thrown as they are, for
 * the caller's message.
 */
export function homePathProblem(read: HomeRead, dir: boolean): string | null {
  const st = statSync(read.path);
  if (read.within !== null) {
    const real = realpathSync(read.path);
    if (!isInside(read.within, real))
      return `is a symlink to ${real}, outside ${read.outside ? read.within : "the Kanon home"}`;
  }
  if (!dir && !st.isFile()) return `is ${fileKind(st)}, not a regular file`;
  return null;
}

/** The bytes of a file named in kanon.yaml, read as HomeRead says (ReadRefused when it may not be). */
export function readHomeFile(read: HomeRead): Buffer {
  const problem = homePathProblem(read, false);
  if (problem) throw new ReadRefused(read.path, problem);
  return readBounded(read.path, { limit: READ_LIMIT.home }).bytes;
}
