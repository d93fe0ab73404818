/**
 * The file-system operations plan, apply and undo make, and nothing more: the one seam between them
 * and the disk. `realFs` is node:fs (synchronous: thousands of small files are read and written
 * several times faster than with promises); `dryRunFs` reads the disk and writes nothing (so a dry
 * run takes the same path and meets the same errors as the real one); a test passes its own, to make
 * a write land inside kanon's window (test/support/window-fs.ts).
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { READ_LIMIT, readBounded } from "../model/bounded-read.js";

export interface DestinationFs {
  /** lstat: null when nothing is there (ENOENT), a thrown error otherwise. */
  lstat(path: string): Stats | null;
  /** stat (symlinks followed): null when nothing is there. */
  stat(path: string): Stats | null;
  /** A regular file's bytes, bounded (model/bounded-read.ts): a FIFO, a device or a socket is refused at once. */
  readFile(path: string): Buffer;
  readlink(path: string): string;
  readdir(path: string): string[];
  mkdir(path: string, mode: number): void;
  /** Creates `path`, which must not exist, holding `data` with `mode`; flushed to disk when `flush`. */
  writeNew(path: string, data: Uint8Array, mode: number, flush: boolean): void;
  /** Overwrites the first `size` bytes of a file with zeros, flushed (a leftover that may hold a token). */
  zero(path: string, size: number): void;
  rename(from: string, to: string): void;
  /** A second name for `existing`; fails (EEXIST) if `path` exists: a rename that never overwrites. */
  link(existing: string, path: string): void;
  unlink(path: string): void;
  rmdir(path: string): void;
}

export const realFs: DestinationFs = {
  lstat: (path) => lstatSync(path, { throwIfNoEntry: false }) ?? null,
  stat: (path) => statSync(path, { throwIfNoEntry: false }) ?? null,
  // Agents' files, the record, its history and backups: READ_LIMIT.destination and .state are one size.
  readFile: (path) => readBounded(path, { limit: READ_LIMIT.destination }).bytes,
  readlink: (path) => readlinkSync(path),
  readdir: (path) => readdirSync(path),
  mkdir: (path, mode) => mkdirSync(path, { mode }),
  writeNew(path, data, mode, flush) {
    const fd = openSync(path, "wx", 0o600);
    try {
      let offset = 0;
      while (offset < data.length) offset += writeSync(fd, data, offset);
      if (flush) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (mode !== 0o600) chmodSync(path, mode);
  },
  zero(path, size) {
    if (size === 0) return;
    const fd = openSync(path, "r+");
    try {
      const zeros = Buffer.alloc(Math.min(size, 1 << 20));
      for (let offset = 0; offset < size; )
        offset += writeSync(fd, zeros, 0, Math.min(zeros.length, size - offset), offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  },
  rename: (from, to) => renameSync(from, to),
  link: (existing, path) => linkSync(existing, path),
  unlink: (path) => unlinkSync(path),
  rmdir: (path) => rmdirSync(path),
};

/** Reads the disk, writes nothing: every write succeeds without touching it. */
export const dryRunFs: DestinationFs = {
  ...realFs,
  mkdir: () => {},
  writeNew: () => {},
  zero: () => {},
  rename: () => {},
  link: () => {},
  unlink: () => {},
  rmdir: () => {},
};
