/** The docs table of kanon's continuity hooks per agent, from the same decisions `kanon hooks` shows. */
import { CONTINUITY_BUILTINS, continuityDecisions } from "../core/hooks/continuity.js";
import { BUILTIN_PREFIX } from "../core/hooks/envelope.js";
import { NEUTRAL_EVENTS } from "../core/hooks/vocabulary.js";
import type { KanonConfig } from "../model/config.js";
import type { Agent } from "../model/manifest.js";

const ALL_ON: KanonConfig = {
  version: 1,
  instructions: { files: [] },
  skills: [],
  mcp: { servers: {} },
  hooks: [],
  metadata: {},
  continuity: { reanchor: true, position_on_prompt: true },
};

/** Built-in continuity hooks × agents (user scope): the native event and where its context lands. */
export function continuityHooksTable(agents: readonly Agent[]): { header: string[]; rows: string[][] } {
  const known = new Set(NEUTRAL_EVENTS.map((e) => e.name));
  const decisions = agents.map((a) => continuityDecisions(ALL_ON, a.manifest, "user", known, {}, 0));
  const rows = Object.entries(CONTINUITY_BUILTINS).map(([name, builtin]) => [
    `\`kanon/${name}\``,
    builtin.does,
    ...decisions.map((ds) => {
      const d = ds.find((x) => x.hook.name === `${BUILTIN_PREFIX}${name}`);
      if (!d) return "— (kanon/reanchor: SessionStart fires again after compaction)";
      if (!d.native) return `left out: ${d.missing?.capability ?? "not supported"} is not supported`;
      const where = builtin.context ? d.delivery.context : "runs, gives no context";
      return `\`${d.native.event}\`${d.native.matcherText ? ` (${d.native.matcherText})` : ""}: ${where}`;
    }),
  ]);
  return { header: ["Hook", "What it does", ...agents.map((a) => a.manifest.displayName)], rows };
}
