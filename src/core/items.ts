/**
 * The one answer to "what does agent A get of command or subagent X": its file as written, translated
 * (a placeholder spelt the agent's way, a tool renamed), or nothing, and why. It reads only the
 * agent's manifest; validate (an explicit target that gets nothing is an error), render (what is
 * written), the warnings, `kanon commands`, `kanon agents`, the review and the docs all use it.
 */
import type {
  AgentManifest,
  CommandCapabilities,
  Gate,
  ItemFieldSupport,
  Lacks,
  SubagentCapabilities,
} from "../model/manifest.js";
import type { CommandItem, Item, SubagentItem } from "../model/source.js";
import type { Scope } from "../model/types.js";
import { isExplicit, targetsAgent } from "./hooks/support.js";
import { NEUTRAL_TOOLS } from "./hooks/vocabulary.js";
import { bodyNotes, type FrontValue, itemText, translateArguments } from "./item-text.js";

export interface ItemDecision {
  item: Item;
  agent: string;
  /** The item's targets name the agent (an error instead of a warning when it gets nothing). */
  explicit: boolean;
  outcome: "as-written" | "translated" | "omitted";
  /**
   * Why it is left out: the capability the agent lacks (`plural`: a whole section, "are not
   * supported"), more about it, and where the item uses it (a message prefix).
   */
  missing?: Missing;
  /** How it was translated, one line each. */
  translations: string[];
  /** What changes nothing kanon writes but is worth knowing (text the agent acts on, how it reads arguments). */
  notes: string[];
  /** Conditions outside kanon's control before the agent uses the file (a trusted project). */
  gates: Gate[];
  /** The agent's file: its name in the agent's folder, and its text. */
  native?: { file: string; text: string };
}

export interface Missing {
  capability: string;
  plural?: true;
  detail?: string;
  at: string;
}

/** The section's capabilities, or null when the agent has none (any scope). */
export function itemCapabilities(
  m: AgentManifest,
  kind: Item["kind"],
): CommandCapabilities | SubagentCapabilities | null {
  const caps: CommandCapabilities | SubagentCapabilities | Lacks =
    kind === "command" ? m.commands : m.subagents;
  return "lacks" in caps ? null : caps;
}

const WORD = { command: "slash commands", subagent: "subagents" } as const;
const q = (s: string) => JSON.stringify(s);

/** Decide one item for one agent; null when the item does not target it. */
export function decideItem(item: Item, agent: AgentManifest, scope: Scope["kind"]): ItemDecision | null {
  if (!targetsAgent(item.targets, agent.id)) return null;
  const d: ItemDecision = {
    item,
    agent: agent.id,
    explicit: isExplicit(item.targets, agent.id),
    outcome: "as-written",
    translations: [],
    notes: [],
    gates: [],
  };
  const missing =
    item.kind === "command" ? renderCommand(item, agent, scope, d) : renderSubagent(item, agent, scope, d);
  if (missing) {
    d.outcome = "omitted";
    d.missing = missing;
    // What was found before the item was left out is about a file that is not written.
    d.translations = [];
    d.notes = [];
    d.gates = [];
    delete d.native;
  } else if (d.translations.length > 0) d.outcome = "translated";
  return d;
}

/**
 * The agent's section for the item, or why nothing of it can be written here: the agent lacks the
 * section (or lacks it in this scope), or does not take the item's name. The gates of this scope and
 * what the agent does with the body's text go into `d`.
 */
function sectionFor<C extends CommandCapabilities | SubagentCapabilities>(
  item: Item,
  caps: C | Lacks,
  agent: AgentManifest,
  scope: Scope["kind"],
  d: ItemDecision,
): { caps: C } | Missing {
  const at = item.at.targets ?? item.at.file;
  if ("lacks" in caps)
    return { capability: WORD[item.kind], plural: true, detail: `${agent.displayName} ${caps.lacks}`, at };
  if (caps.root[scope] === null)
    return { capability: `${WORD[item.kind]} in ${scope} scope`, plural: true, at };
  if (caps.names && !new RegExp(caps.names.pattern).test(item.name))
    return {
      capability: `the name ${q(item.name)}`,
      detail: `${agent.displayName} takes ${caps.names.say}`,
      at: item.at.file,
    };
  d.gates = (caps.gates ?? []).filter((g) => g.scopes.includes(scope));
  d.notes.push(...bodyNotes(item.body, caps.bodyNotes));
  return { caps };
}

/** A field the item sets: written (into `front`) under the agent's name for it, dropped (a translation), or missing. */
function field(
  item: Item,
  name: string,
  value: FrontValue | undefined,
  support: ItemFieldSupport,
  front: [string, FrontValue][],
  d: ItemDecision,
): Missing | null {
  if (value === undefined) return null;
  if (support.support === "native") front.push([support.name, value]);
  else if (support.support === "dropped") d.translations.push(`${name} dropped: ${support.why}`);
  else return { capability: `field ${q(name)}`, detail: support.why, at: item.at[name] ?? item.at.file };
  return null;
}

function renderCommand(
  item: CommandItem,
  agent: AgentManifest,
  scope: Scope["kind"],
  d: ItemDecision,
): Missing | null {
  const found = sectionFor<CommandCapabilities>(item, agent.commands, agent, scope, d);
  if (!("caps" in found)) return found;
  const { caps } = found;
  const front: [string, FrontValue][] = [];
  const problem =
    field(item, "description", item.description, caps.fields.description, front, d) ??
    field(item, "argument-hint", item.argumentHint, caps.fields["argument-hint"], front, d);
  if (problem) return problem;
  const body = translateArguments(item.body, caps.arguments, agent.displayName);
  if ("missing" in body) {
    const { line, ...missing } = body.missing;
    return { ...missing, at: `${item.file}:${item.bodyLine + line}: ` };
  }
  d.translations.push(...body.translations);
  d.notes.push(...body.notes);
  d.native = { file: `${item.name}${caps.extension}`, text: itemText(caps.format, front, body.text) };
  return null;
}

function renderSubagent(
  item: SubagentItem,
  agent: AgentManifest,
  scope: Scope["kind"],
  d: ItemDecision,
): Missing | null {
  const found = sectionFor<SubagentCapabilities>(item, agent.subagents, agent, scope, d);
  if (!("caps" in found)) return found;
  const { caps } = found;
  const front: [string, FrontValue][] = [];
  if (caps.nameField) front.push([caps.nameField, item.name]);
  const tools = item.tools && nativeTools(item, item.tools, agent, caps, d);
  if (tools && "capability" in tools) return tools;
  const model = nativeModel(item, agent, caps, d);
  if (model && typeof model !== "string") return model;
  const problem =
    field(item, "description", item.description, caps.fields.description, front, d) ??
    field(item, "tools", tools?.value, caps.fields.tools, front, d) ??
    field(item, "model", model, caps.fields.model, front, d);
  if (problem) return problem;
  for (const [k, v] of Object.entries(caps.fixed ?? {})) front.push([k, v]);
  d.native = { file: `${item.name}${caps.extension}`, text: itemText(caps.format, front, item.body) };
  return null;
}

/**
 * The tool list in the agent's names and form (the manifest's table maps the neutral names; any
 * other name is the agent's own, as written). A tool the agent does not have is dropped: the list
 * only narrows what the subagent may use. A list left empty would give it every tool, so then the
 * subagent is left out.
 */
function nativeTools(
  item: SubagentItem,
  tools: readonly string[],
  agent: AgentManifest,
  caps: SubagentCapabilities,
  d: ItemDecision,
): { value: FrontValue } | Missing {
  const names: string[] = [];
  const dropped: string[] = [];
  for (const tool of tools) {
    const mapped = Object.hasOwn(caps.tools, tool)
      ? caps.tools[tool]!
      : NEUTRAL_NAMES.has(tool)
        ? []
        : [tool];
    if (mapped.length === 0) dropped.push(tool);
    for (const n of mapped) if (!names.includes(n)) names.push(n);
  }
  // Written as the field says: a field the agent lacks is reported by `field`.
  if (caps.fields.tools.support !== "native") return { value: names };
  const list = (xs: readonly string[]) => xs.map(q).join(", ");
  if (names.length === 0)
    return {
      capability: `tools ${list(tools)}`,
      detail: `${agent.displayName} has none of them`,
      at: item.at.tools ?? item.at.file,
    };
  const kept = tools.filter((t) => !dropped.includes(t));
  if (names.length !== kept.length || names.some((n, i) => n !== kept[i]))
    d.translations.push(`tools ${list(kept)} → ${list(names)}`);
  if (dropped.length > 0)
    d.translations.push(`${list(dropped)} dropped from the tools: ${agent.displayName} has no such tool`);
  const form = caps.toolList;
  if (form === "comma") return { value: names.join(", ") };
  if (form === "list") return { value: names };
  // Every tool off, then the listed ones on: the list exactly, an MCP server's tools too.
  d.translations.push('tools as a map: "*" off, each listed one on');
  return { value: { "*": false, ...Object.fromEntries(names.map((n) => [n, true])) } };
}

/** The neutral tool names: one the agent's table lacks is a tool the agent does not have. */
const NEUTRAL_NAMES: ReadonlySet<string> = new Set(NEUTRAL_TOOLS);

/**
 * The model the agent gets: the item's (one name for every agent, or one per agent), `inherit` in
 * the agent's words (or no model where none says it); a name the agent would not take is missing.
 */
function nativeModel(
  item: SubagentItem,
  agent: AgentManifest,
  caps: SubagentCapabilities,
  d: ItemDecision,
): string | Missing | undefined {
  const model = typeof item.model === "object" ? item.model[agent.id] : item.model;
  if (model === undefined) return undefined;
  const at = item.at.model ?? item.at.file;
  if (model === "inherit") {
    if (caps.inherit === null || caps.fields.model.support !== "native")
      d.translations.push(`model "inherit" → no model: ${agent.displayName} runs it on the default model`);
    return caps.inherit ?? undefined;
  }
  if (caps.fields.model.support === "native" && caps.models && !new RegExp(caps.models.pattern).test(model))
    return { capability: `model ${q(model)}`, detail: `${agent.displayName} takes ${caps.models.say}`, at };
  return model;
}

/** `<capability> is not supported` (`are` for a section), and the detail. */
export function missingText(m: Pick<Missing, "capability" | "plural" | "detail">, agent?: string): string {
  return `${m.capability} ${m.plural ? "are" : "is"} not supported${agent ? ` for ${agent}` : ""}${m.detail ? ` (${m.detail})` : ""}`;
}

/** `warning:` text for an implicit target that gets nothing. */
export function itemWarning(d: ItemDecision): string {
  return `${d.missing!.at}${d.item.kind} ${q(d.item.name)} is not rendered for ${d.agent}: ${missingText(d.missing!)}`;
}

/** Validation error for an explicit target that gets nothing. */
export function itemError(d: ItemDecision): string {
  return `${d.missing!.at}${d.item.kind} ${q(d.item.name)} targets ${d.agent} but ${missingText(d.missing!, d.agent)}`;
}
