/**
 * Loading everything rendering needs into memory (instruction texts, skill files, provider trees), so
 * that rendering itself is a pure function of the returned `Source`.
 */
import { statSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { decodeBytes } from "../formats/utf8.js";
import { ReadRefused } from "../model/bounded-read.js";
import { instructionPath, instructionTargets, type KanonConfig } from "../model/config.js";
import { osErrorText, statError } from "../model/fs-errors.js";
import type { InstructionText, LocalSkill, Paths, ProviderSkills, Source } from "../model/source.js";
import { compareBytes, conflictMarkerLine } from "../model/text.js";
import { KanonError } from "../model/types.js";
import type { Lock } from "../providers/lock-types.js";
import { readTree } from "../providers/tree.js";
import { homePathProblem, homeRead, readHomeFile } from "./home-files.js";
import { conflictError, resolveHomePath } from "./load.js";

export interface LoadSourceOptions {
  lock: Lock | null;
  env: NodeJS.ProcessEnv;
  /** Progress lines for git fetches (only on a terminal). */
  progress?: (line: string) => void;
  /** Whether a provider is needed, given its targets: providers no selected agent renders are not fetched. */
  wanted?: (targets: string[] | undefined) => boolean;
}

export async function loadSource(
  config: KanonConfig,
  paths: Paths,
  options: LoadSourceOptions,
): Promise<Source> {
  const [instructions, localSkills, providers] = await Promise.all([
    loadInstructions(config, paths),
    loadLocalSkills(config, paths),
    loadProviders(config, paths, options),
  ]);
  const renameSkillMd =
    providers.length > 0 ? (await import("../providers/frontmatter.js")).rewriteSkillNameBytes : null;
  return { paths, config, instructions, localSkills, providers, renameSkillMd };
}

/** Git providers (git and the provider code load only when kanon.yaml has an enabled one). */
async function loadProviders(
  config: KanonConfig,
  paths: Paths,
  options: LoadSourceOptions,
): Promise<ProviderSkills[]> {
  if (!config.skills.some((s) => s.git && s.enabled !== false)) return [];
  const { materializeProviders } = await import("../providers/materialize.js");
  return materializeProviders(paths.home, config, options.lock, options.env, {
    ...(options.progress ? { progress: options.progress } : {}),
    ...(options.wanted ? { wanted: options.wanted } : {}),
  });
}

async function loadInstructions(config: KanonConfig, paths: Paths): Promise<InstructionText[]> {
  return Promise.all(
    config.instructions.files.map(async (file) => {
      const rel = instructionPath(file);
      const abs = resolveHomePath(rel, paths.home, paths.userHome);
      try {
        const bytes = readHomeFile(homeRead(abs, paths.home, false));
        const text = decodeBytes(bytes);
        const conflict = conflictMarkerLine(text);
        if (conflict !== null) throw conflictError(`${rel}:${conflict}`);
        return { text, targets: instructionTargets(file) };
      } catch (e) {
        if (e instanceof ReadRefused) throw new KanonError(`instruction "${rel}": ${e.message}`);
        if (e instanceof KanonError) throw e; // conflict markers
        throw new KanonError(`instruction "${rel}": ${statError(abs, e).replace(/^stat/, "open")}`);
      }
    }),
  );
}

/** Whether stat finds anything at `path` (false for a missing path and for any error). */
function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/**
 * Local skills (reference §4.3): directories under skills/ (sorted, with SKILL.md, not hidden, not
 * symlinked) render under their directory name, adjusted by a config entry of the same name; config
 * entries without a directory follow in name order. The last entry of a name wins.
 */
async function loadLocalSkills(config: KanonConfig, paths: Paths): Promise<LocalSkill[]> {
  const entries = new Map<string, KanonConfig["skills"][number]>();
  for (const s of config.skills) {
    if (s.git) continue;
    const name = (s.name ?? "").trim();
    if (!name) {
      if (s.enabled === false) continue;
      throw new KanonError("skill name cannot be empty");
    }
    entries.set(name, s);
  }

  const skillsDir = join(paths.home, "skills");
  const dirNames: string[] = [];
  try {
    for (const d of await readdir(skillsDir, { withFileTypes: true })) {
      if (d.isDirectory() && !d.name.startsWith(".")) dirNames.push(d.name);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT")
      throw new KanonError(`read ${skillsDir}: ${(e as Error).message}`);
  }
  dirNames.sort(compareBytes);
  // Synchronous: hundreds of skills are checked faster than promises go through the thread pool.
  const withSkillMd = dirNames.map((n) => (exists(join(skillsDir, n, "SKILL.md")) ? n : null));

  const plan: { name: string; dir: string; targets: string[] | undefined }[] = [];
  const seen = new Set<string>();
  for (const name of withSkillMd) {
    if (!name) continue;
    seen.add(name);
    const entry = entries.get(name);
    if (entry?.enabled === false) continue;
    const dir = entry?.path ? resolveHomePath(entry.path, paths.home, paths.userHome) : join(skillsDir, name);
    plan.push({ name, dir, targets: entry?.targets });
  }
  for (const name of [...entries.keys()].sort(compareBytes)) {
    const entry = entries.get(name)!;
    if (seen.has(name) || entry.enabled === false) continue;
    const dir = entry.path ? resolveHomePath(entry.path, paths.home, paths.userHome) : join(skillsDir, name);
    const st = await stat(dir).catch((e) => {
      throw new KanonError(`skill "${name}": ${statError(dir, e)}`);
    });
    if (!st.isDirectory()) throw new KanonError(`skill "${name}" path must be a directory`);
    plan.push({ name, dir, targets: entry.targets });
  }
  return Promise.all(
    plan.map(async (p) => ({
      name: p.name,
      targets: p.targets,
      files: await readSkill(p.name, p.dir, paths.home),
    })),
  );
}

/** A local skill's files, read as the home's files (home-files.ts): links stay in, nothing special. */
async function readSkill(name: string, dir: string, home: string) {
  const read = homeRead(dir, home, true);
  try {
    const problem = homePathProblem(read, true);
    if (problem) throw new ReadRefused(dir, problem);
    return await readTree(dir, { followFileSymlinksWithin: read.within! });
  } catch (e) {
    if (e instanceof ReadRefused) throw new KanonError(`skill ${JSON.stringify(name)}: ${e.message}`);
    const err = e as NodeJS.ErrnoException;
    throw new KanonError(`skill ${JSON.stringify(name)}: read ${err.path ?? dir}: ${osErrorText(e)}`);
  }
}
