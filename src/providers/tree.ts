/** Reading a skill directory into memory, so that rendering stays a pure function of the source. */
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import type { TreeFile } from "../model/source.js";
import { compareBytes } from "../model/text.js";

export interface ReadTreeOptions {
  /** Read symlinked files as the files they point to (local skills); otherwise see onSymlink. */
  followFileSymlinks?: boolean;
  /** Called for a symlink inside the tree that is not followed: return to skip it, or throw to reject the tree. */
  onSymlink?: (rel: string) => void;
  /** Called for a special file (socket, fifo, device). */
  onSpecial?: (rel: string) => void;
}

/**
 * Every regular file under `root` in lexical walk order (names sorted byte-wise at each level, as
 * Go's filepath.WalkDir does, which the provider content hash depends on), skipping `.git` folders.
 * Synchronous reads: for many small files they are several times faster than the promise API, and
 * a command has nothing else to do meanwhile.
 */
export async function readTree(root: string, options: ReadTreeOptions = {}): Promise<TreeFile[]> {
  return readTreeSync(root, options);
}

function readTreeSync(root: string, options: ReadTreeOptions = {}): TreeFile[] {
  const files: TreeFile[] = [];
  const walk = (dir: string, prefix: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true });
    entries.sort((a, b) => compareBytes(a.name, b.name));
    for (const entry of entries) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== ".git") walk(abs, rel);
      } else if (entry.isSymbolicLink()) {
        const target = options.followFileSymlinks ? statSync(abs, { throwIfNoEntry: false }) : undefined;
        if (target?.isFile()) files.push({ rel, content: readFileSync(abs), mode: target.mode & 0o777 });
        else options.onSymlink?.(rel);
      } else if (entry.isFile()) {
        files.push({ rel, ...readRegularFile(abs) });
      } else {
        options.onSpecial?.(rel);
      }
    }
  };
  walk(root, "");
  return files;
}

/**
 * A regular file's bytes and permission bits, from one open: the fstat that gives the size also
 * gives the mode (a second stat per file costs a large home thousands of system calls).
 */
function readRegularFile(path: string): { content: Buffer; mode: number } {
  const fd = openSync(path, "r");
  try {
    const { size, mode } = fstatSync(fd);
    // Empty by its size: read to the end anyway (as readFileSync does), in case it is not.
    if (size === 0) return { content: readFileSync(fd), mode: mode & 0o777 };
    const content = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, content, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return { content: read < size ? content.subarray(0, read) : content, mode: mode & 0o777 };
  } finally {
    closeSync(fd);
  }
}
