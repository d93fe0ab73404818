/** `kanon import` (alias `add`): the machine's agent settings → a Kanon home (reference §1.3.8, §5.8). */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_IDS, AGENTS, selectAgents } from "../../agents/index.js";
import type { HookNames } from "../../core/import/hooks.js";
import { applyChanges } from "../../destination/apply.js";
import type { Change } from "../../destination/plan.js";
import { type HomeFile, type Imported, importMachine } from "../../import/read.js";
import { configYaml, mergeConfigYaml, type SkillMerge } from "../../import/yaml.js";
import { type InstructionFile, instructionPath } from "../../model/config.js";
import type { Source } from "../../model/source.js";
import { KanonError } from "../../model/types.js";
import { hashSkillFiles } from "../../providers/hash.js";
import { loadLock } from "../../providers/lock-file.js";
import { readTree } from "../../providers/tree.js";
import { ConfigMissingError, loadConfig } from "../../source/load.js";
import { loadSource } from "../../source/source.js";
import { type GlobalFlags, type Io, out, progressOf, warn } from "../context.js";
import { pathsOf, scopeOf } from "../pipeline.js";

export interface ImportFlags {
  write?: boolean;
  force?: boolean;
  merge?: boolean;
  secretPolicy: string;
  instructionPolicy: string;
  hookNames: string;
}

export async function importCommand(flags: GlobalFlags, opts: ImportFlags, io: Io): Promise<void> {
  if (opts.hookNames !== "command" && opts.hookNames !== "go")
    throw new KanonError(`unsupported hook names ${JSON.stringify(opts.hookNames)}; use command or go`);
  const paths = pathsOf(flags, io);
  const home = await homeProviders(paths, io);
  const all = flags.agent === "" || flags.agent === "all";
  const imported = await importMachine({
    // Every agent kanon knows is read; those off by default join `agents:` only when found.
    agents: all ? AGENTS : selectAgents(flags.agent),
    // "Every agent" (no targets) means the agents a home without an `agents:` list renders for.
    allAgents: selectAgents("all").map((a) => a.manifest.id),
    scope: scopeOf(flags, io),
    instructionPolicy: opts.instructionPolicy,
    secretPolicy: opts.secretPolicy,
    hookNames: opts.hookNames as HookNames,
    ...(home ? { home } : {}),
  });
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
  applyChanges([...imported.files.map((f) => homeChange(paths.home, f)), textChange(paths.config, yaml)]);
  out(io, `Wrote imported config to ${paths.config}\n`);
}

/**
 * The existing home loaded with its kanon.lock when it has git skill providers, so that their skills
 * come back as the provider entries; without it (or when it does not load) they come back as local
 * skills.
 */
async function homeProviders(paths: ReturnType<typeof pathsOf>, io: Io): Promise<Source | undefined> {
  if (!existsSync(paths.config)) return undefined;
  try {
    const { config } = await loadConfig(paths, AGENT_IDS);
    if (!config.skills.some((s) => s.git && s.enabled !== false)) return undefined;
    return await loadSource(config, paths, {
      lock: await loadLock(paths.home),
      env: io.env,
      ...progressOf(io),
    });
  } catch (e) {
    warn(io, [
      `could not load the Kanon home's git skill providers (${(e as Error).message.split("\n")[0]}); their skills are imported as local skills`,
    ]);
    return undefined;
  }
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
  const files: HomeFile[] = [];
  const conflicts: string[] = [];

  // Skills: the same content is already there; different content is a conflict.
  const bySkill = new Map<string, HomeFile[]>();
  for (const f of imported.files.filter((x) => x.rel.startsWith("skills/"))) {
    const name = f.rel.split("/")[1]!;
    bySkill.set(name, [...(bySkill.get(name) ?? []), f]);
  }
  const skills: SkillMerge[] = [];
  for (const [name, skillFiles] of bySkill) {
    const targets = imported.config.skills.find((e) => e.name === name)?.targets;
    const dir = join(paths.home, "skills", name);
    if (!existsSync(dir)) {
      files.push(...skillFiles);
      skills.push({ name, targets, home: "missing" });
      continue;
    }
    const ours = await readTree(dir, { followFileSymlinks: true });
    const theirs = skillFiles.map((f) => ({ ...f, rel: f.rel.slice(`skills/${name}/`.length) }));
    const same = hashSkillFiles(ours) === hashSkillFiles(theirs);
    skills.push({ name, targets, home: same ? "same" : "differs" });
    if (same) continue;
    conflicts.push(
      `skill ${JSON.stringify(name)} differs from skills/${name}/ in the Kanon home${force ? "; replaced by the imported one" : "; kept the home's (--force replaces it)"}`,
    );
    if (force) files.push(...skillFiles);
  }

  // Instructions: a text the home already has is kept; a new one gets a free file name.
  const homeTexts = existing.instructions.files.map((f) => {
    try {
      return readFileSync(join(paths.home, instructionPath(f)), "utf8").trim();
    } catch {
      return null;
    }
  });
  const instructions: InstructionFile[] = [];
  for (const entry of imported.config.instructions.files) {
    const file = imported.files.find((f) => f.rel === instructionPath(entry))!;
    const text = Buffer.from(file.content).toString("utf8");
    if (homeTexts.includes(text.trim())) continue;
    let rel = file.rel;
    for (let i = 2; existsSync(join(paths.home, rel)); i++) rel = file.rel.replace(/\.md$/, `-${i}.md`);
    files.push({ ...file, rel });
    instructions.push(typeof entry === "string" ? rel : { ...entry, path: rel });
  }

  const merged = mergeConfigYaml({
    text: readFileSync(paths.config, "utf8"),
    existing,
    imported: imported.config,
    instructions,
    skills,
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
    ...files.map((f) => homeChange(paths.home, f)),
    ...(merged.text !== readFileSync(paths.config, "utf8") ? [textChange(paths.config, merged.text)] : []),
  ]);
  for (const c of merged.changes) out(io, `${c}\n`);
  out(io, `Merged imported config into ${paths.config}\n`);
}

function homeChange(home: string, f: HomeFile): Change {
  return change(join(home, f.rel), f.content, f.mode);
}

function textChange(path: string, text: string): Change {
  return change(path, Buffer.from(text, "utf8"), 0o644);
}

function change(path: string, content: Uint8Array, mode: number): Change {
  const exists = existsSync(path);
  return {
    file: { agent: "kanon", path, content, mode },
    path,
    action: exists ? "update" : "create",
    before: null,
    after: content,
    mode,
    beforeMode: null,
  };
}
