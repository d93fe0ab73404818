/** How `kanon import` reads this machine: shared by the import command and `kanon ui`'s import mode. */
import { existsSync } from "node:fs";
import { AGENT_IDS, AGENTS, selectAgents } from "../agents/index.js";
import { readSecretStore, secretStorePath } from "../destination/secrets.js";
import type { Paths, Source } from "../model/source.js";
import { KanonError, type Scope } from "../model/types.js";
import { loadLock } from "../providers/lock-file.js";
import { loadConfig } from "../source/load.js";
import { loadSource } from "../source/source.js";
import type { HookNames } from "./hooks.js";
import { checkPolicies, type Imported, importMachine } from "./read.js";

/** The flags that say how to read this machine (`kanon import`, and `kanon ui` for its import mode). */
export interface MachineFlags {
  secretPolicy: string;
  instructionPolicy: string;
  hookNames: string;
}

/** Where import reads: the Kanon home's paths, the scope and `--agent`, resolved by the command. */
export interface MachineInput {
  paths: Paths;
  scope: Scope;
  /** `--agent`: all, or one agent id. */
  agent: string;
  env: NodeJS.ProcessEnv;
  progress?: (line: string) => void;
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
export async function readMachine(input: MachineInput, opts: MachineFlags): Promise<Imported> {
  checkMachineFlags(opts);
  const warnings: string[] = [];
  const home = await homeProviders(input, warnings);
  // Values the store has already keep their names there (--secret-policy store).
  const store =
    opts.secretPolicy === "store"
      ? readSecretStore(secretStorePath(input.env, input.paths.userHome))
      : { secrets: {}, warnings: [] };
  warnings.push(...store.warnings);
  const all = input.agent === "" || input.agent === "all";
  const imported = await importMachine({
    // Every agent kanon knows is read; those off by default join `agents:` only when found.
    agents: all ? AGENTS : selectAgents(input.agent),
    allAgents: everyAgent(),
    scope: input.scope,
    instructionPolicy: opts.instructionPolicy,
    secretPolicy: opts.secretPolicy,
    storedSecrets: store.secrets,
    hookNames: opts.hookNames as HookNames,
    ...(home ? { home } : {}),
  });
  return { ...imported, warnings: [...warnings, ...imported.warnings] };
}

/**
 * The existing home loaded with its kanon.lock when it has git skill providers, so that their skills
 * come back as the provider entries; without it (or when it does not load) they come back as local
 * skills.
 */
async function homeProviders(input: MachineInput, warnings: string[]): Promise<Source | undefined> {
  const { paths } = input;
  if (!existsSync(paths.config)) return undefined;
  try {
    const { config } = await loadConfig(paths, AGENT_IDS);
    if (!config.skills.some((s) => s.git && s.enabled !== false)) return undefined;
    return await loadSource(config, paths, {
      lock: await loadLock(paths.home),
      env: input.env,
      ...(input.progress ? { progress: input.progress } : {}),
    });
  } catch (e) {
    warnings.push(
      `could not load the Kanon home's git skill providers (${(e as Error).message.split("\n")[0]}); their skills are imported as local skills`,
    );
    return undefined;
  }
}
