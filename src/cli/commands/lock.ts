/** `kanon lock`, `lock check`, `lock update`: git skill provider pins in kanon.lock. */

import { KanonError } from "../../model/types.js";
import { checkLock, lock, updateLock } from "../../providers/lock.js";
import { type GlobalFlags, type Io, out, progressOf } from "../context.js";
import { loadValidated } from "../pipeline.js";

export async function lockCommand(flags: GlobalFlags, extra: string[], io: Io): Promise<void> {
  if (extra.length > 0) throw new KanonError(`unknown command "${extra[0]}" for "kanon lock"`);
  const v = await loadValidated(flags, io, { checkAgent: false });
  out(io, `${await lock(v.paths.home, v.loaded.config, io.env, progressOf(io))}\n`);
}

export async function lockCheckCommand(flags: GlobalFlags, io: Io): Promise<void> {
  const v = await loadValidated(flags, io, { checkAgent: false });
  out(
    io,
    `${await checkLock(v.paths.home, v.loaded.config, io.env, { requireLocked: true }, progressOf(io))}\n`,
  );
}

export async function lockUpdateCommand(
  flags: GlobalFlags,
  names: string[],
  opts: { all?: boolean },
  io: Io,
): Promise<void> {
  if (opts.all && names.length > 0) {
    throw new KanonError("use either lock update --all or named git skill providers, not both");
  }
  if (!opts.all && names.length === 0)
    throw new KanonError("lock update requires a git skill provider name or --all");
  const v = await loadValidated(flags, io, { checkAgent: false });
  out(
    io,
    `${await updateLock(v.paths.home, v.loaded.config, io.env, opts.all ? "all" : names, progressOf(io))}\n`,
  );
}
