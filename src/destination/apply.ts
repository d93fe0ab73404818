/**
 * Writing a plan. Every file is first written to a temporary file beside its destination (with its
 * final mode); only when all of them are ready are they renamed into place, so a failure leaves no
 * destination changed and no file is ever partially written.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile, rename, rmdir, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { KanonError } from "../core/types.js";
import { osErrorText } from "../source/fs-errors.js";
import { type Change, sha256 } from "./plan.js";

export async function applyChanges(changes: readonly Change[]): Promise<void> {
  const createdDirs: string[] = [];
  const staged: { temp: string; change: Change }[] = [];
  try {
    for (const change of changes) {
      await ensureDir(dirname(change.path), createdDirs);
      const temp = join(
        dirname(change.path),
        `.${basename(change.path)}.kanon-${randomBytes(6).toString("hex")}.tmp`,
      );
      staged.push({ temp, change });
      await writeFileDurably(temp, change.after, change.mode);
    }
    for (const { change } of staged) await assertUnchanged(change);
  } catch (e) {
    await Promise.all(staged.map((s) => unlink(s.temp).catch(() => {})));
    for (const d of createdDirs.reverse()) await rmdir(d).catch(() => {});
    if (e instanceof KanonError) throw e;
    const err = e as NodeJS.ErrnoException;
    throw new KanonError(`cannot write ${err.path ?? "destination"}: ${osErrorText(e)}; nothing was written`);
  }
  for (const { temp, change } of staged) {
    try {
      await rename(temp, change.path);
    } catch (e) {
      throw new KanonError(`cannot write ${change.path}: ${osErrorText(e)}`);
    }
  }
}

async function writeFileDurably(path: string, data: Uint8Array, mode: number): Promise<void> {
  const handle = await open(path, "wx", 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(path, mode);
}

/** Create `dir` and missing parents, remembering which ones were created (removed again on failure). */
async function ensureDir(dir: string, created: string[]): Promise<void> {
  const missing: string[] = [];
  let d = dir;
  for (;;) {
    const st = await stat(d).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return null;
      throw e;
    });
    if (st) {
      if (!st.isDirectory())
        throw new KanonError(`cannot write into ${d}: it is a file, not a directory; nothing was written`);
      break;
    }
    missing.push(d);
    const parent = dirname(d);
    if (parent === d) break;
    d = parent;
  }
  for (const m of missing.reverse()) {
    await mkdir(m, { mode: 0o755 });
    created.push(m);
  }
}

/** Another program (often the agent itself) may have written a co-owned file since it was planned. */
async function assertUnchanged(change: Change): Promise<void> {
  if (change.action !== "update" || !change.file.merge || !change.before) return;
  const now = await readFile(change.path).catch(() => null);
  if (!now || sha256(now) !== sha256(change.before)) {
    throw new KanonError(
      `${change.path} changed while kanon was applying; nothing was written, run the command again`,
    );
  }
}
