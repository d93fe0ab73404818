/**
 * A file system for tests that acts inside kanon's windows: the disk (realFs), with a callback run
 * right before each write kanon makes, given the operation and its destination. A test writes a
 * file there, creates a directory or throws an OS error, exactly between kanon's looks and its writes,
 * deterministically and in-process. Operations:
 *
 * - `stage`: a temporary file is written; the path is the destination it is to become. Every file is
 *   staged after the plan and the prompt, before kanon's last look before its first rename.
 * - `rename`, `link` (a new file put in place; it never overwrites), `unlink`: right before the
 *   system call, after kanon's last look at that path.
 * - `writeNew` (any other new file: the history, the record's temporary file), `mkdir`, `rmdir`.
 */
import { basename, dirname, join } from "node:path";
import { type DestinationFs, realFs } from "../../src/destination/fs.js";

export type WriteOp = "stage" | "writeNew" | "mkdir" | "rename" | "link" | "unlink" | "rmdir";

const TEMP = /^\.(.*)\.kanon-\d+-[0-9a-f]{12}\.tmp$/;

export function windowFs(before: (op: WriteOp, path: string) => void): DestinationFs & { ops: string[] } {
  const ops: string[] = [];
  const at =
    <A extends unknown[]>(name: (...args: A) => [WriteOp, string], write: (...args: A) => void) =>
    (...args: A) => {
      const [op, path] = name(...args);
      ops.push(`${op} ${path}`);
      before(op, path);
      write(...args);
    };
  return {
    ...realFs,
    ops,
    mkdir: at((p) => ["mkdir", p], realFs.mkdir),
    writeNew: at((p) => {
      const staged = TEMP.exec(basename(p));
      return staged ? ["stage", join(dirname(p), staged[1]!)] : ["writeNew", p];
    }, realFs.writeNew),
    rename: at((_from, to) => ["rename", to], realFs.rename),
    link: at((_from, to) => ["link", to], realFs.link),
    unlink: at((p) => ["unlink", p], realFs.unlink),
    rmdir: at((p) => ["rmdir", p], realFs.rmdir),
  };
}
