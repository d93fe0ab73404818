/** How `kanon import` reads this machine: shared by the import command and `kanon ui`'s import mode. */
import { existsSync } from "node:fs";
import { AGENT_IDS, AGENTS, selectAgents } from "../agents/index.js";
import type { HookNames } from "../core/import/hooks.js";
import { checkPolicies, type Imported, importMachine } from "../import/read.js";
import type { Paths, Source } from "../model/source.js";
import { KanonError } from "../model/types.js";
import { loadLock } from "../providers/lock-file.js";
import { loadConfig } from "../source/load.js";
import { loadSource } from "../source/source.js";
import { type GlobalFlags, type Io, progressOf, warn } from "./context.js";
import { pathsOf, scopeOf } from "./pipeline.js";

/** The flags that say how to read this machine (`kanon import`, and `kanon ui` for its import mode). */
export interface MachineFlags {
  secretPolicy: string;
  instructionPolicy: string;
  hookNames: string;
}

/** Rejects an unknown policy or hook-name style before anything is read. */
export function checkMachineFlags(opts: MachineFlags): void {
  if (opts.hookNames !== "command" && opts.hookNames !== "go")
    throw new KanonError(`unsupported hook names ${JSON.stringify(opts.hookNames)}; use command or go`);
  // Any agent kanon knows may be named, also one off by default.
  checkPolicies({ ...opts, allAgents: AGENT_IDS });
}

// "Every agent" (no targets) means the agents a home without an `agents:` list renders for.
const everyAgent = () => selectAgents("all").map((a) => a.manifest.id);

/** What `kanon import` finds on this machine (or in --project). */
export async function readMachine(flags: GlobalFlags, opts: MachineFlags, io: Io): Promise<Imported> {
  checkMachineFlags(opts);
  const home = await homeProviders(pathsOf(flags, io), io);
  const all = flags.agent === "" || flags.agent === "all";
  return importMachine({
    // Every agent kanon knows is read; those off by default join `agents:` only when found.
    agents: all ? AGENTS : selectAgents(flags.agent),
    allAgents: everyAgent(),
    scope: scopeOf(flags, io),
    instructionPolicy: opts.instructionPolicy,
    secretPolicy: opts.secretPolicy,
    hookNames: opts.hookNames as HookNames,
    ...(home ? { home } : {}),
  });
}

/**
 * The existing home loaded with its kanon.lock when it has git skill providers, so that their skills
 * come back as the provider entries; without it (or when it does not load) they come back as local
 * skills.
 */
async function homeProviders(paths: Paths, io: Io): Promise<Source | undefined> {
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
