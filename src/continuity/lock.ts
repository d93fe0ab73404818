/**
 * A lock file that serialises the writers of one continuity file across processes (two agents' hooks,
 * a hook and the CLI). Node has no flock, so the lock is a file created exclusively (`O_EXCL`) that
 * holds its owner's pid, host, a random token and the time; it is removed when the work is done.
 *
 * A lock whose owner died (a `kill -9` between create and remove) is stale: its pid is gone on this
 * host, or it is older than STALE_MS on any host (a writer holds it for milliseconds). A stale lock is
 * broken by renaming it aside (one rename wins) and checking that what was moved is the stale lock
 * that was read; a live lock moved by a late breaker is linked back.
 */
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { osErrorText } from "../model/fs-errors.js";
import { KanonError } from "../model/types.js";
import { randomHex, readSmallFile } from "./files.js";

/** A lock older than this is stale even when its pid looks alive (pids are reused). */
export const STALE_MS = 30_000;
/** An empty lock file older than this is stale. */
const UNWRITTEN_STALE_MS = 2000;
/** How long a writer waits for a live lock before it gives up with a message. */
const WAIT_MS = 10_000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms: number) => Atomics.wait(sleeper, 0, 0, ms);

interface Owner {
  pid: number;
  host: string;
  token: string;
  at: number;
}

function parseOwner(text: string): Owner | null {
  const [pid, host, token, at] = text.trim().split(" ");
  if (!pid || !host || !token || !at || !/^\d+$/.test(pid) || !/^\d+$/.test(at)) return null;
  return { pid: Number(pid), host, token, at: Number(at) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function isStale(path: string, text: string, now: number): boolean {
  const owner = parseOwner(text);
  if (!owner) {
    // Created but never written (its writer died in between: writing takes microseconds), or not
    // kanon's: judged by its age.
    try {
      return now - statSync(path).mtimeMs > UNWRITTEN_STALE_MS;
    } catch {
      return false;
    }
  }
  if (now - owner.at > STALE_MS) return true;
  return owner.host === hostname() && !alive(owner.pid);
}

function breakStale(path: string, seen: string): void {
  const aside = `${path}.stale-${process.pid}-${randomHex(8)}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else broke or released it
  }
  let moved: string | null = null;
  try {
    moved = readSmallFile(aside);
  } catch {
    // unreadable: treat it as the stale lock
  }
  if (moved !== null && moved !== seen) {
    // Another writer took the lock between the read and the rename: give it back.
    try {
      linkSync(aside, path);
    } catch {
      // a third writer holds it now; both finish, each removes only its own lock
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // already gone
  }
}

/**
 * Runs `work` while holding the lock file `path`; waits for a live lock (up to `waitMs`), breaks a
 * stale one.
 */
export function withLock<T>(path: string, work: () => T, waitMs = WAIT_MS): T {
  const token = `${process.pid} ${hostname()} ${randomHex(16)}`;
  let owner = "";
  const deadline = Date.now() + waitMs;
  let pause = 1;
  let madeFolder = false;
  for (;;) {
    let fd: number | undefined;
    owner = `${token} ${Date.now()}\n`;
    try {
      fd = openSync(path, "wx", 0o644);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && !madeFolder) {
        mkdirSync(dirname(path), { recursive: true });
        madeFolder = true;
        continue;
      }
      if (code !== "EEXIST") throw new KanonError(`lock ${path}: ${osErrorText(e)}`);
    }
    if (fd !== undefined) {
      try {
        writeFileSync(fd, owner);
      } finally {
        closeSync(fd);
      }
      break;
    }
    let seen: string | null | undefined;
    try {
      seen = readSmallFile(path);
    } catch {
      // a lock that is not a small regular file: never broken; reported when the wait is over
    }
    if (seen === null) continue; // released meanwhile
    const now = Date.now();
    if (seen !== undefined && isStale(path, seen, now)) {
      breakStale(path, seen);
      continue;
    }
    if (now > deadline) {
      const o = seen === undefined ? null : parseOwner(seen);
      throw new KanonError(
        `${path} is held${o ? ` by process ${o.pid} on ${o.host} since ${new Date(o.at).toISOString()}` : ""}; if no kanon command or hook is running, delete it`,
      );
    }
    sleep(pause + Math.random() * pause);
    pause = Math.min(pause * 2, 50);
  }
  try {
    return work();
  } finally {
    let current: string | null = null;
    try {
      current = readSmallFile(path);
    } catch {
      // leave what we cannot read
    }
    if (current === owner) {
      try {
        unlinkSync(path);
      } catch {
        // already broken as stale
      }
    }
  }
}
