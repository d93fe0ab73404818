/** Reading a skill directory into memory, so that rendering stays a pure function of the source. */
import { readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { isInside } from "../core/names.js";
import { READ_LIMIT, ReadRefused, readBounded } from "../model/bounded-read.js";
import type { TreeFile } from "../model/source.js";
import { compareBytes } from "../model/text.js";

export interface ReadTreeOptions {
  /**
   * Read a symlinked file as the file it points to (local skills), when its real path is inside this
   * folder (the Kanon home): a link that leaves it is refused, like a special file. Without it, see
   * onSymlink.
   */
  followFileSymlinksWithin?: string;
  /** Called for a symlink inside the tree that is not followed: return to skip it, or throw to reject the tree. */
  onSymlink?: (rel: string) => void;
  /** Called for a special file (socket, fifo, device); without it, one is refused. */
  onSpecial?: (rel: string) => void;
}

/**
 * Every regular file under `root` in lexical walk order (names sorted byte-wise at each level, as
 * Go's filepath.WalkDir does, which the provider content hash depends on), skipping `.git` folders.
 * Each file is read through the bounded reader (a regular file, at most READ_LIMIT.home bytes).
 * Synchronous reads: for many small files they are several times faster than the promise API, and
 * a command has nothing else to do meanwhile.
 */
export async function readTree(root: string, options: ReadTreeOptions = {}): Promise<TreeFile[]> {
  return readTreeSync(root, options);
}

function readTreeSync(root: string, options: ReadTreeOptions = {}): TreeFile[] {
  const files: TreeFile[] = [];
  const within = options.followFileSymlinksWithin;
  const special =
    options.onSpecial ??
    ((rel: string) => {
      throw new ReadRefused(join(root, rel), "is not a regular file");
    });
  const walk = (dir: string, prefix: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true });
    entries.sort((a, b) => compareBytes(a.name, b.name));
    for (const entry of entries) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== ".git") walk(abs, rel);
      } else if (entry.isSymbolicLink()) {
        if (within === undefined) {
          options.onSymlink?.(rel);
          continue;
        }
        const real = realPath(abs);
        if (real === null) continue; // dangling: nothing to read (as before)
        if (!isInside(within, real)) throw new ReadRefused(abs, `is a symlink to ${real}, outside ${within}`);
        const file = readSymlinked(abs);
        if (file) files.push({ rel, content: file.bytes, mode: file.mode });
      } else if (entry.isFile()) {
        const { bytes, mode } = readBounded(abs, { limit: READ_LIMIT.home, noFollow: true });
        files.push({ rel, content: bytes, mode });
      } else {
        special(rel);
      }
    }
  };
  walk(root, "");
  return files;
}

function realPath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** A followed symlink's file; null when it points at a directory (skipped, as before). */
function readSymlinked(path: string): { bytes: Buffer; mode: number } | null {
  try {
    return readBounded(path, { limit: READ_LIMIT.home });
  } catch (e) {
    if (e instanceof ReadRefused && e.reason.startsWith("is a directory")) return null;
    throw e;
  }
}
