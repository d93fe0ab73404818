/**
 * The co-owned files each agent's manifest declares and how kanon merges each: the MCP file (entries
 * under the manifest's key) and a hook file that the agent shares with the user. What kanon may take
 * out of a co-owned file is decided by these, never by the ownership record alone.
 */
import { basename } from "node:path";
import type { Agent, ScopedPath } from "../model/manifest.js";
import type { MergeSpec } from "../model/types.js";

export interface DeclaredMerge {
  agent: string;
  /** The names of the files it is declared for (a moved agent home keeps them). */
  files: readonly string[];
  region: Exclude<MergeSpec, { kind: "regions" }>;
}

const names = (paths: readonly ScopedPath[]): string[] => [
  ...new Set(
    paths
      .flatMap((p) => [p.user, p.project])
      .filter((p): p is string => !!p)
      .map((p) => basename(p)),
  ),
];

/**
 * A hook file's merge is the agent's code's to say (`hookFile`): asked for one hook, it says how its
 * hooks share the file, or that they do not (a file kanon owns whole, like OpenCode's plugin).
 */
const PROBE = {
  name: "kanon-probe",
  neutralEvent: "Stop",
  event: "Stop",
  matcher: { kind: "all" as const },
  type: "command",
  command: "true",
  fields: {},
};

export function declaredMerges(agents: readonly Agent[]): DeclaredMerge[] {
  const out: DeclaredMerge[] = [];
  for (const agent of agents) {
    const m = agent.manifest;
    out.push({
      agent: m.id,
      files: names([m.mcp.file, ...(m.mcp.alternatives ?? [])]),
      region: { kind: "entries", format: m.mcp.format, key: m.mcp.key },
    });
    const hookMerge = agent.hookFile([PROBE])?.merge;
    const regions = !hookMerge ? [] : hookMerge.kind === "regions" ? hookMerge.regions : [hookMerge];
    for (const region of regions) out.push({ agent: m.id, files: names([m.hooks.file]), region });
  }
  return out;
}
