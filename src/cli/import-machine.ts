/** How `kanon import` reads this machine: shared by the import command and `kanon ui`'s import mode. */
import { selectAgents } from "../agents/index.js";
import type { HookNames } from "../core/import/hooks.js";
import { checkPolicies, type Imported, importMachine } from "../import/read.js";
import { KanonError } from "../model/types.js";
import type { GlobalFlags, Io } from "./context.js";
import { scopeOf } from "./pipeline.js";

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
  checkPolicies({ ...opts, allAgents: everyAgent() });
}

// "Every agent" (no targets) means the agents a home without an `agents:` list renders for.
const everyAgent = () => selectAgents("all").map((a) => a.manifest.id);

/** What `kanon import` finds on this machine (or in --project). */
export async function readMachine(flags: GlobalFlags, opts: MachineFlags, io: Io): Promise<Imported> {
  checkMachineFlags(opts);
  return importMachine({
    agents: selectAgents(flags.agent),
    allAgents: everyAgent(),
    scope: scopeOf(flags, io),
    instructionPolicy: opts.instructionPolicy,
    secretPolicy: opts.secretPolicy,
    hookNames: opts.hookNames as HookNames,
  });
}
