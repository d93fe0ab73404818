/**
 * The one reader of files kanon did not write itself in this run: the Kanon home, the agents' files,
 * the ownership record, its history and backups. Whatever is at a path, the read ends at once and
 * with a bounded number of bytes:
 *
 * - only a regular file is read: a FIFO, a device (`/dev/zero`), a socket or a directory is refused
 *   by what `fstat` says about the opened file (opened non-blocking, so a FIFO with no writer does
 *   not wait; no controlling terminal is taken);
 * - at most `limit` bytes: a larger file is refused before a byte is read; a file is read up to the
 *   size fstat gave (one that says 0, as procfs files do, up to the limit).
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { KanonError } from "./types.js";

const MiB = 1024 * 1024;

/**
 * Limits per kind of file. A Kanon home's files are text and small assets (the large home of
 * `npm run bench` has none above 1 MiB); an agent's co-owned file can be large (Claude Code keeps
 * project history in `~/.claude.json`); the record lists every file kanon owns (15,009 files: 4 MiB).
 * Past 512 MiB a file could not be decoded as one string anyway.
 */
export const READ_LIMIT = {
  home: 64 * MiB,
  destination: 256 * MiB,
  state: 256 * MiB,
} as const;

/** A file that is not read: not a regular file, or too large. `reason` completes `<path>: …`. */
export class ReadRefused extends KanonError {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

export interface BoundedFile {
  bytes: Buffer;
  /** Permission bits. */
  mode: number;
  stat: Stats;
}

export interface ReadOptions {
  limit: number;
  /** Refuse a symlink at `path` itself (its parents are still followed). */
  noFollow?: boolean;
}

/** What a non-regular file is, for messages. */
export function fileKind(st: Stats): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  if (st.isDirectory()) return "a directory";
  if (st.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

const sizeText = (n: number) => (n >= MiB ? `${Math.round((n / MiB) * 10) / 10} MiB` : `${n} bytes`);

/**
 * The bytes of the regular file at `path`. OS errors (ENOENT, EACCES, …) are thrown as they are, for
 * the caller's message; a socket (which cannot be opened: ENXIO) is a ReadRefused like the rest.
 */
export function readBounded(path: string, options: ReadOptions): BoundedFile {
  const flags =
    constants.O_RDONLY |
    constants.O_NONBLOCK |
    constants.O_NOCTTY |
    (options.noFollow ? constants.O_NOFOLLOW : 0);
  let fd: number;
  try {
    fd = openSync(path, flags);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENXIO") throw new ReadRefused(path, "is a socket, not a regular file");
    if (code === "ELOOP" && options.noFollow) throw new ReadRefused(path, "is a symbolic link");
    throw e;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ReadRefused(path, `is ${fileKind(stat)}, not a regular file`);
    return { bytes: readAll(fd, path, stat.size, options.limit), mode: stat.mode & 0o777, stat };
  } finally {
    closeSync(fd);
  }
}

function readAll(fd: number, path: string, size: number, limit: number): Buffer {
  const tooLarge = (n: number) =>
    new ReadRefused(path, `is larger than kanon reads (${sizeText(n)}; at most ${sizeText(limit)})`);
  if (size > limit) throw tooLarge(size);
  if (size > 0) {
    // The size fstat gave, and no more: a file that grows meanwhile is read as it was.
    const buf = Buffer.allocUnsafe(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buf, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return read < size ? buf.subarray(0, read) : buf;
  }
  // Size 0 may be a file whose size the kernel does not know (procfs): read to the end, up to the limit.
  let buf = Buffer.allocUnsafe(Math.min(8192, limit + 1));
  let read = 0;
  for (;;) {
    if (read === buf.length) {
      if (read > limit) throw tooLarge(read);
      const next = Buffer.allocUnsafe(Math.min(buf.length * 2, limit + 1));
      buf.copy(next, 0, 0, read);
      buf = next;
    }
    const n = readSync(fd, buf, read, buf.length - read, null);
    if (n === 0) break;
    read += n;
  }
  if (read > limit) throw tooLarge(read);
  return buf.subarray(0, read);
}
