/**
 * The continuity files of a project, under `<project root>/.kanon/`: the waypoint and its plain-text
 * projection, the pause marker, the stage handoffs and the stage-hook event log. This folder is kept
 * to Node's built-ins and src/model, because the hook runner (a standalone file that loads no bundle)
 * reads the waypoint and prints the re-anchor block with it.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ReadRefused, readBounded } from "../model/bounded-read.js";
import { osErrorText } from "../model/fs-errors.js";
import { KanonError } from "../model/types.js";

export interface ProjectFiles {
  /** The project root (see findProjectRoot), or --project. */
  root: string;
  /** `<root>/.kanon` */
  dir: string;
  waypoint: string;
  waypointLock: string;
  position: string;
  pause: string;
  handoffs: string;
  events: string;
  eventsLock: string;
  /** Stop's advisory note (see builtin.ts). */
  reminder: string;
  /** The waypoint revision each agent session first saw (see builtin.ts). */
  sessions: string;
}

export function projectFiles(root: string): ProjectFiles {
  const dir = join(root, ".kanon");
  return {
    root,
    dir,
    waypoint: join(dir, "waypoint.json"),
    waypointLock: join(dir, "waypoint.lock"),
    position: join(dir, "position.txt"),
    pause: join(dir, "PAUSE"),
    handoffs: join(dir, "handoffs"),
    events: join(dir, "events.jsonl"),
    eventsLock: join(dir, "events.lock"),
    reminder: join(dir, "reminder.json"),
    sessions: join(dir, "sessions"),
  };
}

/**
 * The project root of `start`: the nearest folder at or above it that has a `.kanon` folder (made
 * there by an earlier write, perhaps with --project) or a `.git` (a folder, or the file of a worktree
 * or submodule: the top level `git rev-parse` names). Found without starting git: the hook runner does
 * this on every prompt. Null outside a repository.
 */
export function findProjectRoot(start: string): string | null {
  let dir = resolve(start);
  for (;;) {
    if (exists(join(dir, ".kanon")) || exists(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The files kanon's continuity commands and hooks read larger than this are refused (they are a few KiB). */
export const MAX_FILE_BYTES = 1024 * 1024;

/**
 * A continuity file as text; null when it does not exist. Read by kanon's one bounded reader: a
 * symbolic link, a file that is not regular or one larger than `max` bytes is refused.
 */
export function readSmallFile(path: string, max = MAX_FILE_BYTES): string | null {
  try {
    return readBounded(path, { limit: max, noFollow: true }).bytes.toString("utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    if (e instanceof ReadRefused) throw new KanonError(`read ${e.message}`);
    throw new KanonError(`read ${path}: ${osErrorText(e)}`);
  }
}

/**
 * Writes `text` to `path` so that a reader sees the old file or the new one, never a part: a temporary
 * file beside it, flushed, then renamed over it. The folder is made when missing.
 */
export function writeAtomic(path: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.kanon-${process.pid}-${randomHex(12)}.tmp`);
  const fd = openSync(temp, "wx", mode);
  try {
    writeFileSync(fd, text);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    unlinkSync(temp);
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (e) {
    unlinkSync(temp);
    throw new KanonError(`write ${path}: ${osErrorText(e)}`);
  }
}

/**
 * `n` random hex digits for file names and lock tokens (unique beside the pid and time they go with).
 * Not node:crypto: loading it costs the hook runner milliseconds on every prompt.
 */
export function randomHex(n: number): string {
  let s = "";
  while (s.length < n)
    s += Math.floor(Math.random() * 2 ** 32)
      .toString(16)
      .padStart(8, "0");
  return s.slice(0, n);
}

/** `path` relative to the project root, for messages (`.kanon/waypoint.json`). */
export function shown(files: ProjectFiles, path: string): string {
  return path.startsWith(`${files.root}/`) ? path.slice(files.root.length + 1) : path;
}
