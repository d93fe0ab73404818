/**
 * The one answer to "can agent A run hook H as written, translated, or not at all, and why". It reads
 * only the agent's manifest; validate (explicit targets fail), render (what gets written), the
 * warnings (implicit targets), `kanon hooks`, `status` and the docs all use it.
 */

import type { HookEntry, HookEnvelope, KanonConfig } from "../../model/config.js";
import type { AgentManifest, EventSupport, Gate, HandlerSupport, NativeHook } from "../../model/manifest.js";
import type { Scope } from "../../model/types.js";
import {
  BUILTIN_PREFIX,
  DEFAULT_MAX_OUTPUT_CHARS,
  type Delivery,
  envelopeTarget,
  type HookMachine,
  hookEnvelope,
  nativeDelivery,
  neutralDelivery,
} from "./envelope.js";
import { isNativeList, parseNeutralMatcher, regexProblem, writeNames } from "./matcher.js";
import { commandLine, protectFromExpansion } from "./quote.js";
import { hookVariables, unsetVariables, unsetVariablesMissing } from "./variables.js";
import { HANDLER_FIELDS, NEUTRAL_EVENTS, NEUTRAL_TOOLS, neutralEvent, neutralHandler } from "./vocabulary.js";

/**
 * as-written: the agent runs the hook as kanon.yaml says. translated: it runs the same hook in another
 * form. passed-through: written for an agent that drops events it does not know, on an event kanon
 * does not know either (a new event, or a typo). omitted: not written for this agent.
 */
export type Outcome = "as-written" | "translated" | "passed-through" | "omitted";

export interface HookDecision {
  hook: HookEntry;
  /** Position in kanon.yaml's hooks list. */
  index: number;
  agent: string;
  /** The hook names this agent in `targets` (errors instead of warnings when it cannot run). */
  explicit: boolean;
  outcome: Outcome;
  /** Why it is omitted: the missing capability, e.g. `event "Notification"`, and an optional detail. */
  missing?: { capability: string; detail?: string };
  /** How it was translated, one line each. */
  translations: string[];
  /** Facts worth knowing that change nothing kanon writes (clamped timeouts, unknown Claude events). */
  notes: string[];
  gates: Gate[];
  native?: NativeHook;
  /** native: the agent's own stdin and output rules; neutral: run through kanon's hook runner. */
  envelope: HookEnvelope;
  /** Where the hook's output reaches the model on this agent, and whether it can block. */
  delivery: Delivery;
}

export interface DecideOptions {
  /** kanon.yaml's `hooks_envelope`. */
  envelope?: KanonConfig["hooks_envelope"];
  /** Where node and kanon's runner are (neutral hooks run them); placeholders when absent. */
  machine?: HookMachine;
  /**
   * The variables any agent, or kanon's runner, sets for the hooks it runs (hookVariables): a hook
   * that uses one is left out for an agent that does not set it. Absent: this agent's and the runner's.
   */
  variables?: ReadonlySet<string>;
}

/** What a neutral hook's command names when the machine was not asked (tests, `kanon hooks`). */
const PLACEHOLDER_MACHINE: HookMachine = { node: "node", runner: "kanon-hook-runner.mjs" };

/** The event a hook fires on: `event`, or `name` when event is empty (the Go original's rule). */
export function hookEvent(hook: HookEntry): string {
  return hook.event?.trim() ? hook.event : hook.name;
}

export function targetsAgent(targets: string[] | undefined, agent: string): boolean {
  return !targets || targets.length === 0 || targets.includes("all") || targets.includes(agent);
}

export function isExplicit(targets: string[] | undefined, agent: string): boolean {
  return !!targets && !targets.includes("all") && targets.includes(agent);
}

/** The value of a handler field as kanon writes it: empty strings, lists and maps, zero and false are unset. */
export function handlerFieldValue(hook: HookEntry, field: string): unknown {
  const value = (hook as unknown as Record<string, unknown>)[field];
  if (value === undefined || value === null || value === "" || value === false) return undefined;
  if (typeof value === "number" && value <= 0) return undefined;
  if (Array.isArray(value)) return value.length > 0 ? value : undefined;
  if (typeof value === "object" && Object.keys(value).length === 0) return undefined;
  return value;
}

/** The neutral event names kanon knows: the vocabulary's. Validation adds every manifest's own events. */
const NEUTRAL_EVENT_NAMES: ReadonlySet<string> = new Set(NEUTRAL_EVENTS.map((e) => e.name));

/** Why a hook is left out for an agent: the capability it lacks, e.g. `event "Notification"`. */
type Missing = NonNullable<HookDecision["missing"]>;

/** Where a neutral hook is rendered: its own event, or the one its context lands on (envelopeTarget). */
type Target = ReturnType<typeof envelopeTarget>;

/**
 * Decide one hook for one agent; `null` when the hook does not target the agent at all (or is
 * disabled). `knownEvents` are the events kanon knows anywhere: a pass-through agent gets an event
 * outside its table only when kanon has never heard of it.
 */
export function decideHook(
  hook: HookEntry,
  index: number,
  agent: AgentManifest,
  scope: Scope["kind"],
  knownEvents: ReadonlySet<string> = NEUTRAL_EVENT_NAMES,
  options: DecideOptions = {},
): HookDecision | null {
  if (hook.enabled === false || !targetsAgent(hook.targets, agent.id)) return null;
  const event = hookEvent(hook);
  if (!event) return null;
  const d: HookDecision = {
    hook,
    index,
    agent: agent.id,
    explicit: isExplicit(hook.targets, agent.id),
    outcome: "as-written",
    translations: [],
    notes: [],
    gates: agent.hooks.gates.filter((g) => g.scopes.includes(scope)),
    envelope: hookEnvelope(hook, options.envelope),
    delivery: { context: "not delivered", channel: null, limit: null, block: false },
  };
  const missing = renderHook(hook, event, agent, scope, knownEvents, options, d);
  if (!missing) return d;
  d.outcome = "omitted";
  d.missing = missing.detail
    ? { capability: missing.capability, detail: missing.detail }
    : { capability: missing.capability };
  d.gates = [];
  d.delivery = { context: "not delivered", channel: null, limit: null, block: false };
  return d;
}

/** The agent's name and pinned version, as notes name it. */
const who = (agent: AgentManifest) => `${agent.displayName} ${agent.hooks.verified.version}`;

/**
 * The hook as the agent will run it, step by step: event and handler type, then each field, the
 * variables its command uses that the agent does not set, the runner's command line for a neutral
 * hook, the timeout, the command and the matcher. The first capability the agent lacks stops it (the
 * hook is left out); on success `d` gets the native hook, its outcome and where its output goes.
 * Translations and notes collect on `d` as the steps go.
 */
function renderHook(
  hook: HookEntry,
  event: string,
  agent: AgentManifest,
  scope: Scope["kind"],
  knownEvents: ReadonlySet<string>,
  options: DecideOptions,
  d: HookDecision,
): Missing | null {
  const caps = agent.hooks;
  const neutral = d.envelope === "neutral";
  if (!caps.file[scope]) return { capability: `hooks in ${scope} scope` };

  // Own properties only: an event or type named "toString" must not find Object.prototype.
  const support = Object.hasOwn(caps.events, event) ? caps.events[event] : undefined;
  if (!support) {
    if (!caps.passThrough || knownEvents.has(event)) return { capability: `event ${JSON.stringify(event)}` };
    d.notes.push(
      `kanon does not know event ${JSON.stringify(event)}: it is written as is, and ${who(agent)} ignores it unless it is one of its own`,
    );
  }

  const type = hook.type || "command";
  const handler = caps.handlers[type];
  if (!handler) return { capability: `type ${JSON.stringify(type)}` };
  // A built-in hook runs one of the runner's own handlers instead of a command.
  const required = hook.builtin !== undefined ? [] : (neutralHandler(type)?.required ?? []);
  const absent = required.find((f) => handlerFieldValue(hook, f) === undefined);
  if (absent) return { capability: `type ${type} without ${absent}` };

  // A neutral hook may be rendered on the event where its context lands (PostCompact → SessionStart).
  const target = neutral && support ? envelopeTarget(agent, event) : undefined;
  const redirect = target?.matcher !== undefined ? target : undefined;
  if (redirect && hook.matcher && parseNeutralMatcher(hook.matcher).kind !== "all")
    return {
      capability: `matcher ${JSON.stringify(hook.matcher)} on a neutral ${event} hook`,
      detail: `it is rendered on ${redirect.support.native} (${redirect.matcher}), which does not say the ${support!.matcher}`,
    };
  const native: NativeHook = {
    name: hook.name,
    neutralEvent: event,
    event: redirect?.support.native ?? support?.native ?? event,
    matcher: { kind: "all" },
    type,
    fields: {},
  };
  const fieldProblem = translateFields(hook, event, type, handler, agent, native, d);
  if (fieldProblem) return fieldProblem;
  const unset = unsetVariables(hook, agent, neutral, options.variables ?? hookVariables([agent]));
  if (unset.length > 0) return unsetVariablesMissing(unset, agent);
  if (native.timeout && support?.maxTimeoutSec && native.timeout > support.maxTimeoutSec) {
    d.notes.push(`${who(agent)} caps ${event} timeouts at ${support.maxTimeoutSec} s`);
  }
  if (neutral) runThroughRunner(hook, event, agent, handler, support, target, options.machine, native, d);
  const problem =
    translateTimeout(hook, agent, native, d) ??
    protectCommand(agent, native, d) ??
    (redirect
      ? translateMatcher(redirect.matcher, redirect.support.native, redirect.support, agent, native, d)
      : translateMatcher(hook.matcher, event, support, agent, native, d));
  if (problem) return problem;
  // The settings loader would expand `$NAME` in a matcher as well (a regex rarely needs it).
  if (caps.expandsVariables && native.matcherText && /\$[\w{]/.test(native.matcherText))
    return {
      capability: `matcher ${JSON.stringify(hook.matcher)}`,
      detail: `${agent.displayName} would expand its $ when it loads its settings`,
    };

  d.native = native;
  d.outcome = !support ? "passed-through" : d.translations.length > 0 ? "translated" : "as-written";
  d.delivery = neutral
    ? neutralDelivery(agent, event, { blocking: !!hook.blocking, async: !!hook.async })
    : nativeDelivery(support, !!hook.async);
  return null;
}

/** Each handler field is native (under the agent's name for it), translated, dropped, or missing. */
function translateFields(
  hook: HookEntry,
  event: string,
  type: string,
  handler: HandlerSupport,
  agent: AgentManifest,
  native: NativeHook,
  d: HookDecision,
): Missing | null {
  for (const field of HANDLER_FIELDS) {
    const value = handlerFieldValue(hook, field);
    if (value === undefined) continue;
    // A neutral hook's command and args go to the runner, whose own command line replaces them.
    if (d.envelope === "neutral" && (field === "command" || field === "args")) continue;
    const fs = handler.fields[field];
    if (!fs || fs.support === "none") {
      return { capability: `field ${JSON.stringify(field)}`, detail: `for type ${JSON.stringify(type)}` };
    }
    if (fs.support === "dropped") {
      d.translations.push(`${field} dropped: ${fs.why}`);
      continue;
    }
    if (fs.support === "native" && fs.events && !fs.events.includes(event)) {
      return {
        capability: `field ${JSON.stringify(field)} on ${event}`,
        detail: `${agent.displayName} honours it only on ${fs.events.join(", ")}, and never runs the hook elsewhere`,
      };
    }
    if (fs.support === "native") {
      if (COMMAND_FIELDS.includes(field)) (native as unknown as Record<string, unknown>)[field] = value;
      else native.fields[fs.name ?? field] = value;
      continue;
    }
    switch (fs.how) {
      case "posix-command-line":
        native.command = commandLine([hook.command ?? "", ...(value as string[])]);
        d.translations.push("args → one POSIX-quoted command line");
        break;
      default:
        return { capability: `field ${JSON.stringify(field)}` };
    }
  }
  return null;
}

/**
 * A neutral hook runs kanon's runner, which runs the hook's command: the runner's command line
 * replaces the command, and the agent's context limit is raised to the hook's bound where it can be.
 */
function runThroughRunner(
  hook: HookEntry,
  event: string,
  agent: AgentManifest,
  handler: HandlerSupport,
  support: EventSupport | undefined,
  target: Target,
  machine: HookMachine | undefined,
  native: NativeHook,
  d: HookDecision,
): void {
  const redirect = target?.matcher !== undefined ? target : undefined;
  const runs = runnerCommand(hook, event, agent, redirect?.support ?? support, machine);
  if (runsInExecForm(hook, agent, handler)) {
    native.command = runs[0]!;
    native.args = runs.slice(1);
  } else native.command = commandLine(runs);
  native.neutral = true;
  if (redirect)
    d.translations.push(
      `rendered on ${redirect.support.native} with the matcher ${JSON.stringify(redirect.matcher)}, which ${agent.displayName} fires right after compaction and whose context reaches the model`,
    );
  const limit = (redirect?.support ?? support)?.context?.limit;
  const max = hook.max_output_chars || DEFAULT_MAX_OUTPUT_CHARS;
  // Every code point is at most 4 bytes, so max tokens of bytes ÷ 4 holds max characters.
  if (limit?.raise && limit.unit === "bytes/4" && max > limit.max && target?.support.envelope?.context)
    native.fields[limit.raise] = max;
}

/**
 * Whether the runner is started in the agent's exec form (no shell in between), where the agent has
 * one. Not for a shell command where the agent rewrites exec-form arguments (execSubstitutes): the
 * command then reaches the runner through the agent's shell form untouched, and the runner's shell
 * reads the variable from the environment, as in a native shell-form hook, whatever the project path
 * holds. A hook with args keeps exec form, and the agent's substitution in its argv, as a native one.
 */
function runsInExecForm(hook: HookEntry, agent: AgentManifest, handler: HandlerSupport): boolean {
  if (handler.fields.args?.support !== "native") return false;
  const shellCommand = hook.builtin === undefined && !(hook.args && hook.args.length > 0);
  return !(shellCommand && agent.hooks.execSubstitutes?.length);
}

/** The timeout within the agent's range, in its unit (kanon.yaml says seconds). */
function translateTimeout(
  hook: HookEntry,
  agent: AgentManifest,
  native: NativeHook,
  d: HookDecision,
): Missing | null {
  if (native.timeout === undefined || agent.hooks.passThrough) return null;
  const t = agent.hooks.timeouts;
  const min = t.minSec ?? 0;
  const max = t.maxSec ?? Number.POSITIVE_INFINITY;
  if (native.timeout < min || native.timeout > max)
    return {
      capability: `timeout ${native.timeout} s`,
      detail: `${agent.displayName} takes ${min}–${max} s`,
    };
  if (t.unit === "ms") {
    native.timeout *= 1000;
    d.translations.push(`timeout ${hook.timeout} s → ${native.timeout} ms`);
  }
  return null;
}

/** An agent that expands `$VAR` in its settings would change the command before the shell sees it. */
function protectCommand(agent: AgentManifest, native: NativeHook, d: HookDecision): Missing | null {
  if (!agent.hooks.expandsVariables || native.command === undefined) return null;
  const protectedCommand = protectFromExpansion(native.command);
  if ("problem" in protectedCommand)
    return {
      capability: "command",
      detail: `${agent.displayName} expands $VAR in its settings before the shell runs the hook, and ${protectedCommand.problem}`,
    };
  if (protectedCommand.command !== native.command) {
    native.command = protectedCommand.command;
    d.translations.push("$ in the command protected from the settings loader's $VAR expansion");
  }
  return null;
}

/**
 * The runner's command line for a neutral hook: `<node> <runner> <agent> <event> <hook> [options]`
 * and then the hook's command (`--sh <command line>`, or `-- <argv>` for an exec-form hook with args)
 * or `--builtin <handler>`. Nothing in it changes with kanon's version, so an upgrade leaves Codex's
 * review hashes alone; the runner's own code is in the file it names.
 */
function runnerCommand(
  hook: HookEntry,
  event: string,
  agent: AgentManifest,
  support: AgentManifest["hooks"]["events"][string] | undefined,
  machine: HookMachine = PLACEHOLDER_MACHINE,
): string[] {
  const t = agent.hooks.timeouts;
  // The agent's deadline: the runner stops the command before it, so that the agent sees an answer.
  let timeout = hook.timeout || t.defaultSec;
  if (support?.maxTimeoutSec) timeout = Math.min(timeout, support.maxTimeoutSec);
  const argv = [machine.node, machine.runner, agent.id, event, hook.name];
  argv.push("--max", String(hook.max_output_chars || DEFAULT_MAX_OUTPUT_CHARS), "--timeout", String(timeout));
  if (hook.blocking) argv.push("--block");
  if (hook.async) argv.push("--async");
  if (hook.builtin !== undefined) argv.push("--builtin", hook.builtin);
  else if (hook.args && hook.args.length > 0) argv.push("--", hook.command ?? "", ...hook.args);
  else argv.push("--sh", hook.command ?? "");
  return argv;
}

/** The fields NativeHook carries by their own names, for the runtimes kanon generates. */
const COMMAND_FIELDS: readonly string[] = ["command", "args", "timeout", "async"];

function translateMatcher(
  text: string | undefined,
  event: string,
  support: EventSupport | undefined,
  agent: AgentManifest,
  native: NativeHook,
  d: HookDecision,
): Missing | null {
  const caps = agent.hooks;
  if (text === undefined || text === "") return null;
  // Pass-through agents read the neutral dialect itself: keep the text.
  if (caps.passThrough) {
    native.matcherText = text;
    native.matcher = parseNeutralMatcher(text);
    return null;
  }
  const parsed = parseNeutralMatcher(text);
  const kind = support?.matcher ?? neutralEvent(event)?.matcher ?? "none";
  // A dialect that is only a regex (no exact lists) matches everything with no matcher at all, and
  // would read `*` as an invalid regex (Kimi Code then never runs the hook).
  const regexOnly = caps.matcher.listSeparators.length === 0;
  if (parsed.kind === "all") {
    if (!regexOnly) native.matcherText = text;
    return null;
  }
  if (kind === "none") {
    d.notes.push(`${event} takes no matcher; ${agent.displayName} ignores it`);
    if (!regexOnly) native.matcherText = text;
    return null;
  }
  const capability = `matcher ${JSON.stringify(text)}`;
  if (parsed.kind === "regex") {
    if (support?.exactValue)
      return {
        capability,
        detail: `${agent.displayName} compares ${event} matchers exactly, not as a regex`,
      };
    const problem = regexProblem(parsed.source, caps.matcher.regex);
    if (problem) return { capability, detail: `it ${problem}` };
    native.matcher = parsed;
    native.matcherText = text;
    return null;
  }

  // An exact list: map each name to what this agent calls it.
  const names: string[] = [];
  const dropped: string[] = [];
  for (const name of parsed.names) {
    let mapped: string[];
    if (kind === "tool") {
      mapped = (NEUTRAL_TOOLS as readonly string[]).includes(name) ? (caps.tools[name] ?? []) : [name];
    } else {
      mapped = !support?.values || support.values.includes(name) ? [name] : [];
    }
    if (mapped.length === 0) dropped.push(name);
    for (const m of mapped) if (!names.includes(m)) names.push(m);
  }
  if (names.length === 0) {
    const what = kind === "tool" ? "tool" : `${event} ${kind}`;
    return {
      capability,
      detail: `${agent.displayName} has no ${what} ${dropped.map((n) => JSON.stringify(n)).join(", ")}`,
    };
  }
  if (support?.exactValue && kind !== "tool") {
    if (names.length > 1)
      return {
        capability,
        detail: `${agent.displayName} compares ${event} matchers with one ${kind} exactly`,
      };
    native.matcher = { kind: "names", names };
    native.matcherText = names[0]!;
    return null;
  }
  native.matcher = { kind: "names", names };
  const sameNames = names.length === parsed.names.length && names.every((n, i) => n === parsed.names[i]);
  if (caps.matcher.regex === null) {
    // Evaluated by kanon's own runtime for this agent: names are data, no text to write.
    if (!sameNames)
      d.translations.push(
        `matcher ${JSON.stringify(text)} → ${names.map((n) => JSON.stringify(n)).join(", ")}`,
      );
  } else if (sameNames && isNativeList(text, names, caps.matcher)) {
    native.matcherText = text;
  } else {
    native.matcherText = writeNames(names, caps.matcher);
    d.translations.push(`matcher ${JSON.stringify(text)} → ${JSON.stringify(native.matcherText)}`);
  }
  if (dropped.length > 0) {
    d.translations.push(
      `${dropped.map((n) => JSON.stringify(n)).join(", ")} dropped from the matcher: ${agent.displayName} has no such ${kind === "tool" ? "tool" : kind}`,
    );
  }
  return null;
}

/** What the runner's carry handler puts between two carried contexts (runner.js, BUILTINS.carry). */
const CARRY_SEPARATOR = "\n\n";

/**
 * kanon's own `kanon/carry` hook for an agent whose runner keeps context for the next prompt (see
 * EnvelopeCapabilities.carry), when one of its hooks has context to keep: on UserPromptSubmit, it
 * delivers what the session's earlier hooks left, once. Its bound is the sum of theirs and of the
 * separators between them, so that each context arrives whole up to its own bound.
 */
export function carryHook(decisions: readonly HookDecision[], agent: AgentManifest): HookEntry | null {
  if (agent.hooks.envelope.carry !== "runner") return null;
  const carried = decisions.filter(
    (d) => d.agent === agent.id && d.native && d.delivery.context === "next prompt",
  );
  if (carried.length === 0) return null;
  const bounds = carried.reduce((sum, d) => sum + (d.hook.max_output_chars || DEFAULT_MAX_OUTPUT_CHARS), 0);
  const max = bounds + CARRY_SEPARATOR.length * (carried.length - 1);
  return {
    name: `${BUILTIN_PREFIX}carry`,
    event: "UserPromptSubmit",
    builtin: "carry",
    max_output_chars: max,
    targets: [agent.id],
  };
}

/** The hooks an agent gets, as it will run them, in kanon.yaml order. */
export function nativeHooks(decisions: readonly HookDecision[], agent: string): NativeHook[] {
  return decisions.filter((d) => d.agent === agent && d.native).map((d) => d.native!);
}

/** `warning:` text for an implicit target that is left out. */
export function omissionWarning(d: HookDecision): string {
  const m = d.missing!;
  return `hook ${JSON.stringify(d.hook.name)} is not rendered for ${d.agent}: ${m.capability} is not supported${m.detail ? ` (${m.detail})` : ""}`;
}

/** Validation error for an explicit target that cannot run the hook. */
export function omissionError(d: HookDecision): string {
  const m = d.missing!;
  return `hook ${JSON.stringify(d.hook.name)} targets ${d.agent} but ${m.capability} is not supported for ${d.agent}${m.detail ? ` (${m.detail})` : ""}`;
}
