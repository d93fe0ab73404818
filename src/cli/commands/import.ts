/** `kanon import` (alias `add`): the machine's agent settings → a Kanon home (reference §1.3.8, §5.8). */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { AGENT_IDS } from "../../agents/index.js";
import { ChangedError } from "../../destination/apply.js";
import { applyImport } from "../../destination/apply-plan.js";
import type { Change } from "../../destination/plan.js";
import { compareWithHome } from "../../import/home.js";
import { homeChange } from "../../import/plan.js";
import type { HomeFile, Imported } from "../../import/read.js";
import { configYaml, mergeConfigYaml } from "../../import/yaml.js";
import { READ_LIMIT, readBounded } from "../../model/bounded-read.js";
import { KanonError } from "../../model/types.js";
import { ConfigMissingError, loadConfig } from "../../source/load.js";
import { err, type GlobalFlags, type Io, out, warn } from "../context.js";
import { type MachineFlags, readMachine } from "../import-machine.js";
import { pathsOf, rootOf, scopeOf, stateDirOf } from "../pipeline.js";

export interface ImportFlags extends MachineFlags {
  write?: boolean;
  force?: boolean;
  merge?: boolean;
  ui?: boolean;
}

export async function importCommand(flags: GlobalFlags, opts: ImportFlags, io: Io): Promise<void> {
  if (opts.ui) {
    if (opts.write) throw new KanonError("use only one of --ui or --write");
    if (opts.merge) throw new KanonError("use only one of --ui or --merge");
    const { uiCommand } = await import("./ui.js");
    return uiCommand(flags, { ...opts, mode: "import" }, io);
  }
  const paths = pathsOf(flags, io);
  const imported = await readMachine(flags, opts, io);
  warn(io, imported.warnings);
  if (opts.merge) return mergeCommand(flags, paths, imported, opts, io);

  const yaml = configYaml(imported.config);
  if (!opts.write) {
    out(io, yaml);
    return;
  }
  if (existsSync(paths.config) && !opts.force)
    throw new KanonError(`${paths.config} already exists; re-run import with --force to replace it`);
  writeImport(flags, io, [
    textChange(paths.config, yaml),
    ...imported.files.map((f) => homeFile(paths.home, f)),
  ]);
  out(io, `Wrote imported config to ${paths.config}\n`);
}

/** `--merge`: add what the home lacks, report what differs, replace it only with --force. */
async function mergeCommand(
  flags: GlobalFlags,
  paths: ReturnType<typeof pathsOf>,
  imported: Imported,
  opts: ImportFlags,
  io: Io,
): Promise<void> {
  const loaded = await loadConfig(paths, AGENT_IDS).catch((e) => {
    if (e instanceof ConfigMissingError)
      throw new KanonError(
        `${paths.config} does not exist; --merge adds to an existing home (use --write to create one)`,
      );
    throw e;
  });
  warn(io, loaded.warnings);
  const existing = loaded.config;
  const force = !!opts.force;
  const home = await compareWithHome(paths.home, existing, imported);
  const files: HomeFile[] = home.instructions.map((i) => i.file);
  const conflicts: string[] = [];
  for (const sk of home.skills) {
    if (sk.home === "missing") files.push(...sk.files);
    if (sk.home !== "differs") continue;
    conflicts.push(
      `skill ${JSON.stringify(sk.name)} differs from skills/${sk.name}/ in the Kanon home${force ? "; replaced by the imported one" : "; kept the home's (--force replaces it)"}`,
    );
    if (force) files.push(...sk.files);
  }

  // The bytes merged into: kanon.yaml is written only if it still holds them (checked at the rename).
  const original = readBounded(paths.config, { limit: READ_LIMIT.home }).bytes;
  const merged = mergeConfigYaml({
    text: original.toString("utf8"),
    existing,
    imported: imported.config,
    instructions: home.instructions.map((i) => i.entry),
    skills: home.skills,
    force,
  });
  for (const c of [...conflicts, ...merged.conflicts]) err(io, `conflict: ${c}\n`);
  if (!opts.write) {
    out(io, merged.text);
    return;
  }
  if (merged.changes.length === 0 && files.length === 0) {
    out(io, "Nothing to import: the Kanon home already has everything found.\n");
    return;
  }
  const config = textChange(paths.config, merged.text, original);
  writeImport(flags, io, [
    ...(config.after && !original.equals(config.after) ? [config] : []),
    ...files.map((f) => homeFile(paths.home, f)),
  ]);
  for (const c of merged.changes) out(io, `${c}\n`);
  out(io, `Merged imported config into ${paths.config}\n`);
}

/**
 * All files at once or none: the same staged writes as apply, each written only if it is still what
 * was read (a file that appeared or changed meanwhile stops the import; kanon.yaml, first, stops it
 * before anything is written), with a history entry that `kanon undo` takes back.
 */
function writeImport(flags: GlobalFlags, io: Io, changes: Change[]): void {
  const scope = scopeOf(flags, io);
  try {
    const removed = applyImport(stateDirOf(scope, io), rootOf(scope), changes, io.fs);
    if (removed > 0)
      out(io, `Removed ${removed} temporary file(s) left by an interrupted import or apply.\n`);
  } catch (e) {
    if (e instanceof ChangedError && e.written.length === 0)
      throw new KanonError(
        `${e.path} changed while kanon was importing; nothing was written, run the command again`,
      );
    throw e;
  }
}

function homeFile(home: string, f: HomeFile): Change {
  return newFile(join(home, f.rel), f.content, f.mode);
}

/** kanon.yaml: a merge keeps its mode, a new one is 0644. */
function textChange(path: string, text: string, before?: Buffer): Change {
  const mode = before ? statSync(path).mode & 0o7777 : 0o644;
  return newFile(path, Buffer.from(text, "utf8"), mode, before);
}

/**
 * import --write and --merge write the imported mode; what is there now (`before`, when the caller
 * read it already) is saved for `kanon undo`.
 */
function newFile(path: string, content: Uint8Array, mode: number, before?: Buffer): Change {
  const st = statSync(path, { throwIfNoEntry: false });
  return homeChange({
    path,
    action: st ? "update" : "create",
    before: before ?? (st?.isFile() ? readBounded(path, { limit: READ_LIMIT.home }).bytes : null),
    after: content,
    mode,
    beforeMode: st ? st.mode & 0o7777 : null,
  });
}
