/**
 * kanon's own continuity hooks (`continuity:` in kanon.yaml), as neutral hooks on the runner's
 * built-in handlers (src/continuity/builtin.ts): they go through the same support check as the
 * user's hooks, so `kanon hooks` says where each lands in each agent, or why it is left out.
 */
import { BLOCK_MAX } from "../../continuity/block.js";
import { POSITION_MAX } from "../../continuity/waypoint.js";
import type { HookEntry, KanonConfig } from "../../model/config.js";
import type { AgentManifest } from "../../model/manifest.js";
import type { Scope } from "../../model/types.js";
import { BUILTIN_PREFIX, envelopeTarget } from "./envelope.js";
import { type DecideOptions, decideHook, type HookDecision } from "./support.js";

interface Builtin {
  /** What it does, for `kanon hooks`. */
  does: string;
  /** It gives the model context (the others only write files). */
  context: boolean;
}

export const CONTINUITY_BUILTINS: Readonly<Record<string, Builtin>> = {
  reanchor: {
    does: "the waypoint's re-anchor block at session start (and after compaction where SessionStart fires again)",
    context: true,
  },
  "reanchor-compact": { does: "the waypoint's re-anchor block after compaction", context: true },
  position: { does: "the waypoint's one-line position on every prompt", context: true },
  pause: {
    does: "writes .kanon/PAUSE before anything else when the operator interrupts; an agent without an Interrupt event pauses with kanon waypoint pause",
    context: false,
  },
  stop: {
    does: "advisory: notes for the next re-anchor that the session did not move the waypoint; gives no context and never blocks",
    context: false,
  },
};

/** Built-ins are observers with a short deadline (Codex caps Interrupt at 3 s itself). */
const TIMEOUT = 10;

/** The continuity hooks `config` gives `agent`, in the order they are listed by `kanon hooks`. */
function continuityHooks(config: KanonConfig, agent: AgentManifest): HookEntry[] {
  const c = config.continuity;
  if (!c?.reanchor && !c?.position_on_prompt) return [];
  const hook = (name: string, event: string, max: number): HookEntry => ({
    name: `${BUILTIN_PREFIX}${name}`,
    event,
    builtin: name === "reanchor-compact" ? "reanchor" : name,
    max_output_chars: max,
    timeout: TIMEOUT,
    targets: [agent.id],
  });
  const hooks: HookEntry[] = [];
  if (c.reanchor) {
    const max = c.max_chars ?? BLOCK_MAX;
    hooks.push(hook("reanchor", "SessionStart", max));
    // Where the agent's context after compaction comes through SessionStart again (Claude, Codex),
    // the SessionStart hook covers it; elsewhere PostCompact re-anchors (or `kanon hooks` says why not).
    const start = agent.hooks.events.SessionStart;
    if (!start || envelopeTarget(agent, "PostCompact")?.support !== start)
      hooks.push(hook("reanchor-compact", "PostCompact", max));
  }
  if (c.position_on_prompt) hooks.push(hook("position", "UserPromptSubmit", POSITION_MAX));
  if (c.reanchor) {
    hooks.push(hook("pause", "Interrupt", 1));
    hooks.push(hook("stop", "Stop", 1));
  }
  return hooks;
}

/**
 * The decisions for `agent`'s continuity hooks, numbered from `index`. A built-in that gives no
 * context delivers none: nothing is kept for the next prompt, and no carry hook is needed for it.
 */
export function continuityDecisions(
  config: KanonConfig,
  agent: AgentManifest,
  scope: Scope["kind"],
  knownEvents: ReadonlySet<string>,
  options: DecideOptions,
  index: number,
): HookDecision[] {
  return continuityHooks(config, agent).flatMap((hook, i) => {
    const d = decideHook(hook, index + i, agent, scope, knownEvents, options);
    if (!d) return [];
    if (!CONTINUITY_BUILTINS[hook.name.slice(BUILTIN_PREFIX.length)]?.context)
      d.delivery = { ...d.delivery, context: "not delivered", channel: null, limit: null };
    return [d];
  });
}
