/**
 * The neutral hook envelope: one stdin object with the same keys in every agent, and one reply
 * (plain text, or `{context, decision, reason}`) that kanon's hook runner delivers through each
 * agent's own channel. This file holds the neutral side and the rules that read the manifests; the
 * runner itself is src/runner/ (a standalone file kanon writes at apply time).
 */
import type { HookEntry, HookEnvelope, KanonConfig } from "../../model/config.js";
import type { AgentManifest, ContextLimit, EventSupport } from "../../model/manifest.js";

/** The `envelope` key of every stdin object: bumped only when a key changes meaning. */
export const ENVELOPE_VERSION = 1;

/** KBD's re-anchor ceiling: about 1,200 tokens of English. */
export const DEFAULT_MAX_OUTPUT_CHARS = 4800;

/** Built-in hooks kanon adds itself are named `kanon/<handler>`; a kanon.yaml hook may not be. */
export const BUILTIN_PREFIX = "kanon/";

/**
 * What kanon's runner adds to the environment of a neutral hook's command, in every agent
 * (runner.js, runHook): the agent's id, and its session id when the agent gave one.
 */
export const RUNNER_ENVIRONMENT: readonly string[] = ["KANON_AGENT", "KANON_SESSION_ID"];

/** Where kanon's runner and node are on this machine (resolved at apply time, so a short PATH does not matter). */
export interface HookMachine {
  node: string;
  runner: string;
}

/**
 * The envelope's keys in their order. Facts an agent does not send are null, never absent. `tool` is
 * `{name, input, output}` on tool events (name in kanon's neutral spelling) and null elsewhere.
 */
export const ENVELOPE_KEYS = [
  "envelope",
  "event",
  "agent",
  "session_id",
  "cwd",
  "transcript_path",
  "prompt",
  "tool",
  "source",
  "trigger",
  "reason",
  "native",
] as const;

/**
 * The envelope a command hook has: its own `envelope`, else kanon.yaml's `hooks_envelope`, else
 * native. Only command hooks can have the neutral one (the runner is a command); built-ins always do.
 */
export function hookEnvelope(hook: HookEntry, defaultEnvelope: KanonConfig["hooks_envelope"]): HookEnvelope {
  if (hook.builtin !== undefined) return "neutral";
  if ((hook.type || "command") !== "command") return "native";
  return hook.envelope ?? defaultEnvelope ?? "native";
}

/** Where a hook's context lands, and whether the hook can block there. */
export interface Delivery {
  /** `at event`: in the agent's request right after the event; `next prompt`: with the next prompt of the same session, once. */
  context: "at event" | "next prompt" | "not delivered";
  /** Through which channel, for `kanon hooks` and the docs; null when not delivered. */
  channel: string | null;
  /** The agent's limit on that channel (null: none known). */
  limit: ContextLimit | null;
  block: boolean;
}

/** Events after which the session goes on, so that context kept from them can still be delivered. */
function sessionGoesOn(event: string): boolean {
  return event !== "SessionEnd";
}

/** The event a neutral hook is rendered on: its own, or where its context lands (`envelope.as`). */
export function envelopeTarget(
  manifest: AgentManifest,
  event: string,
): { support: EventSupport; matcher?: string } | undefined {
  const events = manifest.hooks.events;
  const support = Object.hasOwn(events, event) ? events[event] : undefined;
  const as = support?.envelope?.as;
  if (!support || !as) return support && { support };
  const target = Object.values(events).find((e) => e.native === as.event);
  return target && { support: target, matcher: as.matcher };
}

const CONTEXT_CHANNEL = {
  additionalContext: (native: string) => `hookSpecificOutput.additionalContext of ${native}`,
  stdout: (native: string) => `stdout of ${native}`,
  plugin: () => "kanon's plugin: the system prompt of the session's next requests",
} as const;

const CARRY_CHANNEL = {
  runner: "kept by kanon's runner; the kanon/carry hook delivers it with the next prompt",
  plugin: "kept by kanon's plugin; delivered with the next prompt",
} as const;

/**
 * A neutral hook's delivery for one agent: at its event where the agent takes context there (through
 * the runner's reply), else with the next prompt where the agent can carry, else not at all. An
 * async hook is never waited for, so its context can only be carried.
 */
export function neutralDelivery(
  manifest: AgentManifest,
  event: string,
  o: { blocking: boolean; async: boolean },
): Delivery {
  const target = envelopeTarget(manifest, event);
  const none: Delivery = { context: "not delivered", channel: null, limit: null, block: false };
  if (!target) return none;
  const { support } = target;
  // The runner blocks with exit 2 (and the reason on stderr), which every agent that blocks takes.
  const block = o.blocking && !o.async && support.block.can && support.block.how.includes("exit2");
  const how = support.envelope?.context;
  if (how && !o.async)
    return {
      context: "at event",
      channel: CONTEXT_CHANNEL[how](support.native),
      limit: carriedLimit(support),
      block,
    };
  const carry = manifest.hooks.envelope.carry;
  if (carry && sessionGoesOn(event)) {
    const prompt = manifest.hooks.events.UserPromptSubmit;
    return { context: "next prompt", channel: CARRY_CHANNEL[carry], limit: carriedLimit(prompt), block };
  }
  return { ...none, block };
}

function carriedLimit(support: EventSupport | undefined): ContextLimit | null {
  return support?.context?.limit ?? null;
}

/** A native hook's delivery: where the agent itself puts the hook's output (nowhere, on OpenCode). */
export function nativeDelivery(support: EventSupport | undefined, async: boolean): Delivery {
  if (!support?.context || async)
    return { context: "not delivered", channel: null, limit: null, block: !!support?.block.can && !async };
  return {
    context: "at event",
    channel: support.context.channel,
    limit: support.context.limit,
    block: support.block.can && !async,
  };
}

/** A limit as the docs say it: `10,000 UTF-16 code units` or `2,500 tokens of UTF-8 bytes ÷ 4`. */
export function limitText(limit: ContextLimit): string {
  const n = limit.max.toLocaleString("en-US");
  return limit.unit === "utf16" ? `${n} UTF-16 code units` : `${n} tokens of UTF-8 bytes ÷ 4`;
}

/** The JSON Schema of the envelope (`kanon schema --envelope`). */
export function envelopeSchema(
  events: readonly string[],
  agents: readonly string[],
): Record<string, unknown> {
  const text = (description: string) => ({ type: ["string", "null"], description });
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "kanon hook envelope",
    description:
      "The stdin of a hook with envelope: neutral, one JSON object with the same keys in every agent. A fact the agent does not send is null. The hook answers on stdout with plain text (context for the model) or one JSON object {context, decision, reason}.",
    type: "object",
    required: [...ENVELOPE_KEYS],
    additionalProperties: false,
    properties: {
      envelope: { const: ENVELOPE_VERSION, description: "Version of this envelope." },
      event: {
        type: "string",
        examples: [...events],
        description:
          "kanon's neutral event name: kanon.yaml's `event` (a PostCompact hook rendered on SessionStart still says PostCompact).",
      },
      agent: { enum: [...agents], description: "The agent that ran the hook." },
      session_id: text("The agent's session id."),
      cwd: { type: "string", description: "The session's working directory." },
      transcript_path: text("The session transcript (null where the agent has none, e.g. Kimi Code)."),
      prompt: text("UserPromptSubmit: the prompt as text (Kimi Code's content parts joined)."),
      tool: {
        type: ["object", "null"],
        description: "Tool events: the tool call; null on other events.",
        required: ["name", "input", "output"],
        additionalProperties: false,
        properties: {
          name: {
            type: ["string", "null"],
            description:
              "The tool in kanon's neutral spelling (Bash, Edit, Write, …); other tools (MCP) as the agent names them.",
          },
          input: { description: "The tool's arguments as the agent sends them, or null." },
          output: { description: "PostToolUse: the tool's result as the agent sends it; otherwise null." },
        },
      },
      source: text(
        "SessionStart: startup, resume, clear or compact (a neutral PostCompact hook rendered on SessionStart sees compact).",
      ),
      trigger: text("PreCompact and PostCompact: manual or auto."),
      reason: text("SessionEnd and Interrupt: why, where the agent says."),
      native: { description: "The agent's own stdin payload, untouched (null if it was not JSON)." },
    },
  };
}

/** The JSON Schema of a hook's JSON reply on stdout (plain text is the same as `{"context": text}`). */
export function replySchema(): Record<string, unknown> {
  return {
    type: "object",
    additionalProperties: false,
    properties: {
      context: { type: "string", description: "Text for the model." },
      decision: {
        enum: ["block", "allow"],
        description: "block: with blocking: true, block where the event can block.",
      },
      reason: { type: "string", description: "Why it blocks; shown where the agent shows a block's reason." },
    },
  };
}
