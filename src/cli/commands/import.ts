/** `kanon import` (alias `add`): the machine's agent settings → a Kanon home (reference §1.3.8, §5.8). */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_IDS } from "../../agents/index.js";
import { applyChanges } from "../../destination/apply.js";
import type { Change } from "../../destination/plan.js";
import { compareWithHome } from "../../import/home.js";
import { homeChange } from "../../import/plan.js";
import type { HomeFile, Imported } from "../../import/read.js";
import { configYaml, mergeConfigYaml } from "../../import/yaml.js";
import { KanonError } from "../../model/types.js";
import { ConfigMissingError, loadConfig } from "../../source/load.js";
import { type GlobalFlags, type Io, out, warn } from "../context.js";
import { type MachineFlags, readMachine } from "../import-machine.js";
import { pathsOf } from "../pipeline.js";

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
  if (opts.merge) return mergeCommand(paths, imported, opts, io);

  const yaml = configYaml(imported.config);
  if (!opts.write) {
    out(io, yaml);
    return;
  }
  if (existsSync(paths.config) && !opts.force)
    throw new KanonError(`${paths.config} already exists; re-run import with --force to replace it`);
  // All files at once or none: the same staged writes as apply.
  applyChanges([...imported.files.map((f) => homeFile(paths.home, f)), textChange(paths.config, yaml)]);
  out(io, `Wrote imported config to ${paths.config}\n`);
}

/** `--merge`: add what the home lacks, report what differs, replace it only with --force. */
async function mergeCommand(
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

  const merged = mergeConfigYaml({
    text: readFileSync(paths.config, "utf8"),
    existing,
    imported: imported.config,
    instructions: home.instructions.map((i) => i.entry),
    skills: home.skills,
    force,
  });
  for (const c of [...conflicts, ...merged.conflicts]) io.stderr.write(`conflict: ${c}\n`);
  if (!opts.write) {
    out(io, merged.text);
    return;
  }
  if (merged.changes.length === 0 && files.length === 0) {
    out(io, "Nothing to import: the Kanon home already has everything found.\n");
    return;
  }
  applyChanges([
    ...files.map((f) => homeFile(paths.home, f)),
    ...(merged.text !== readFileSync(paths.config, "utf8") ? [textChange(paths.config, merged.text)] : []),
  ]);
  for (const c of merged.changes) out(io, `${c}\n`);
  out(io, `Merged imported config into ${paths.config}\n`);
}

function homeFile(home: string, f: HomeFile): Change {
  return newFile(join(home, f.rel), f.content, f.mode);
}

function textChange(path: string, text: string): Change {
  return newFile(path, Buffer.from(text, "utf8"), 0o644);
}

/** import --write and --merge write without comparing: the file's mode is the imported one. */
function newFile(path: string, content: Uint8Array, mode: number): Change {
  return homeChange({
    path,
    action: existsSync(path) ? "update" : "create",
    before: null,
    after: content,
    mode,
    beforeMode: null,
  });
}
