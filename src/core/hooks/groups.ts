/**
 * The Claude-shaped hook document (`{ "<Event>": [{ "matcher"?, "hooks": [handler] }] }`) that Claude
 * settings.json and Codex hooks.json share. Each hook is its own group, in kanon.yaml order; groups
 * with the same event and matcher are not coalesced (byte-compatible with the Go original). Gemini
 * CLI's settings.json `hooks` has the same shape, with named handlers.
 */
import { isPlainObject, setOwn } from "../../formats/values.js";
import type { AgentManifest, HookRead, HookTimeouts, NativeHook } from "../../model/manifest.js";

export function hookGroups(
  hooks: NativeHook[],
  options: { namePrefix?: string } = {},
): Record<string, unknown[]> {
  const events: Record<string, unknown[]> = {};
  for (const h of hooks) {
    const all: Record<string, unknown> = { ...h.fields, type: h.type };
    if (h.args && h.args.length > 0) all.args = h.args;
    if (h.async) all.async = true;
    if (h.command !== undefined) all.command = h.command;
    if (h.timeout && h.timeout > 0) all.timeout = h.timeout;
    const handler: Record<string, unknown> = {};
    // Agents that name handlers (Gemini CLI) get the hook's name, prefixed so kanon knows its own.
    if (options.namePrefix !== undefined) handler.name = `${options.namePrefix}${h.name}`;
    // The other keys in sorted order, as the Go original's encoder wrote them.
    for (const k of Object.keys(all).sort()) handler[k] = all[k];
    const group: Record<string, unknown> = { hooks: [handler] };
    if (h.matcherText) group.matcher = h.matcherText;
    const list = Object.hasOwn(events, h.event) ? events[h.event]! : [];
    list.push(group);
    // An event Claude does not know is passed through as written, even `__proto__`.
    setOwn(events, h.event, list);
  }
  return events;
}

/** How an agent's Claude-shaped hook document is read back. */
export interface HookGroupsRead {
  /** Word in `skipped unsupported <agent> <label> field`. */
  label: string;
  /** The file's path, for the lines about hooks left where they are. */
  path: string;
  /**
   * Handlers that kanon wrote have names starting with this (Gemini CLI): only they are imported,
   * under their own names; the user's handlers stay where they are, each reported.
   */
  namePrefix?: string;
  /** The file is the agent's MCP file too, whose reader reports its other keys (and scans secrets). */
  sharedWithMcp?: boolean;
}

/** One document being read: the agent, how its file is read, and the hooks and warnings so far. */
interface Reading {
  manifest: AgentManifest;
  o: HookGroupsRead;
  out: HookRead;
  /** The neutral event of each native one. */
  byNative: Map<string, string>;
}

/**
 * The Claude-shaped hook document read back (import): each handler is one hook, in file order.
 * Whatever cannot be read (a group that is not an object, a handler with a field of the wrong kind)
 * is left where it is, with a warning, and the rest is read.
 */
export function readHookGroups(manifest: AgentManifest, text: string, o: HookGroupsRead): HookRead {
  const agent = manifest.id;
  const doc: unknown = JSON.parse(text.replace(/^\uFEFF/, "") || "{}");
  const out: HookRead = { hooks: [], named: o.namePrefix !== undefined, order: "event", warnings: [] };
  if (!isPlainObject(doc)) throw new Error("top level is not an object");
  if (!o.sharedWithMcp) {
    out.document = doc;
    for (const key of Object.keys(doc)) {
      if (key !== "hooks")
        out.warnings.push(`skipped unsupported ${agent} ${o.label} field ${JSON.stringify(key)}`);
    }
  }
  const events = doc.hooks;
  if (events === undefined) return out;
  if (!isPlainObject(events)) {
    out.warnings.push(`left ${agent} hooks raw because hooks is not an object`);
    return out;
  }
  const byNative = new Map(Object.entries(manifest.hooks.events).map(([neutral, e]) => [e.native, neutral]));
  const r: Reading = { manifest, o, out, byNative };
  for (const [event, items] of Object.entries(events)) {
    if (!Array.isArray(items)) {
      left(r, event, "", "it is not a list");
      continue;
    }
    for (const item of items) readGroup(r, event, item);
  }
  return out;
}

/** A warning about part of an event's hooks that stays in the file as it is. */
function left(r: Reading, event: string, what: string, why: string): void {
  r.out.warnings.push(`left ${r.manifest.id} hook event ${JSON.stringify(event)} ${what}raw because ${why}`);
}

/** One `{ matcher?, hooks: [handler] }` group of an event. */
function readGroup(r: Reading, event: string, item: unknown): void {
  const { namePrefix } = r.o;
  const agent = r.manifest.id;
  if (!isPlainObject(item)) {
    left(r, event, "item ", "it is not an object");
    return;
  }
  if (!Array.isArray(item.hooks)) {
    left(r, event, "item ", "hooks is not a list");
    return;
  }
  // A group with none of kanon's handlers is the user's: each handler is reported below, once.
  const ours =
    namePrefix === undefined ||
    item.hooks.some((h) => isPlainObject(h) && typeof h.name === "string" && h.name.startsWith(namePrefix));
  for (const key of Object.keys(item)) {
    if (ours && key !== "hooks" && key !== "matcher")
      r.out.warnings.push(
        `skipped unsupported ${agent} hook ${JSON.stringify(event)} field ${JSON.stringify(key)}`,
      );
  }
  if (item.matcher !== undefined && typeof item.matcher !== "string") {
    left(r, event, "item ", "matcher is not a string");
    return;
  }
  if (ours && item.hooks.length > 1)
    r.out.warnings.push(
      `${agent} hook event ${JSON.stringify(event)} has ${item.hooks.length} handlers in one group; kanon writes each as its own group`,
    );
  for (const handler of item.hooks) readHandler(r, event, item.matcher, handler);
}

/** One handler of a group: a hook, unless it cannot be read or (with a name prefix) is the user's. */
function readHandler(r: Reading, event: string, matcher: string | undefined, handler: unknown): void {
  const { manifest, o, out } = r;
  const { namePrefix } = o;
  const agent = manifest.id;
  if (!isPlainObject(handler)) {
    left(r, event, "handler ", "it is not an object");
    return;
  }
  const type = typeof handler.type === "string" ? handler.type : "command";
  const others = otherFields(manifest, type);
  const problem = handlerProblem(handler, others);
  if (problem) {
    left(r, event, "handler ", problem);
    return;
  }
  if (namePrefix !== undefined) {
    const name = handler.name;
    if (typeof name !== "string" || !name.startsWith(namePrefix)) {
      out.warnings.push(
        `left ${agent} hook ${JSON.stringify(event)} (${JSON.stringify(handler.command ?? handler.type ?? "")}) in ${o.path} where it is: kanon did not write it (its name does not start with ${JSON.stringify(namePrefix)}) and would add a copy beside it`,
      );
      return;
    }
  }
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(handler)) {
    if (others.has(key)) fields[key] = handler[key];
    else if (!HANDLER_FIELDS.has(key) && !(namePrefix !== undefined && key === "name"))
      out.warnings.push(
        `skipped unsupported ${agent} hook ${JSON.stringify(event)} field ${JSON.stringify(key)}`,
      );
  }
  const h: NativeHook = {
    name: namePrefix !== undefined ? (handler.name as string).slice(namePrefix.length) : "",
    neutralEvent: r.byNative.get(event) ?? event,
    event,
    matcher: { kind: "all" },
    // A handler without a type is a command handler (Claude's and Codex's schemas default it so).
    type,
    fields,
  };
  if (matcher !== undefined && matcher !== "") h.matcherText = matcher;
  if (handler.command !== undefined) h.command = handler.command as string;
  if (handler.args !== undefined) h.args = handler.args as string[];
  if (handler.timeout !== undefined)
    h.timeout = toSeconds(handler.timeout as number, manifest.hooks.timeouts.unit);
  if (handler.async !== undefined) h.async = handler.async as boolean;
  out.hooks.push(h);
}

const HANDLER_FIELDS = new Set(["type", "command", "args", "timeout", "async"]);

/**
 * The handler fields besides the command ones that the agent's table writes natively for this type,
 * by their native name (statusMessage, url, …), each with the kind of value kanon.yaml holds for it.
 */
function otherFields(manifest: AgentManifest, type: string): Map<string, FieldKind> {
  const out = new Map<string, FieldKind>();
  const table = Object.hasOwn(manifest.hooks.handlers, type) ? manifest.hooks.handlers[type]! : undefined;
  for (const [neutral, f] of Object.entries(table?.fields ?? {})) {
    const kind = FIELD_KINDS[neutral];
    if (f.support === "native" && kind) out.set(f.name ?? neutral, kind);
  }
  // The field that raises an event's context limit, which kanon writes for neutral hooks
  // (import takes it back out, see import/hooks.ts).
  if (type === "command")
    for (const e of Object.values(manifest.hooks.events))
      if (e.context?.limit?.raise) out.set(e.context.limit.raise, "number");
  return out;
}

type FieldKind = "string" | "boolean" | "number" | "strings" | "string map" | "object";

/** What kanon.yaml holds in each handler field besides the command ones (src/source/schema.ts). */
const FIELD_KINDS: Record<string, FieldKind> = {
  shell: "string",
  if: "string",
  status_message: "string",
  url: "string",
  server: "string",
  tool: "string",
  prompt: "string",
  model: "string",
  async_rewake: "boolean",
  continue_on_block: "boolean",
  allowed_env_vars: "strings",
  headers: "string map",
  input: "object",
};

function isKind(value: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case "string":
    case "boolean":
    case "number":
      return typeof value === kind;
    case "strings":
      return Array.isArray(value) && value.every((v) => typeof v === "string");
    case "string map":
      return isPlainObject(value) && Object.values(value).every((v) => typeof v === "string");
    case "object":
      return isPlainObject(value);
  }
}

function handlerProblem(h: Record<string, unknown>, others: ReadonlyMap<string, FieldKind>): string | null {
  for (const [key, kind] of others)
    if (h[key] !== undefined && !isKind(h[key], kind))
      return `${key} is not ${kind === "object" ? "an object" : `a ${kind}`}`;
  for (const key of ["type", "command"])
    if (h[key] !== undefined && typeof h[key] !== "string") return `${key} is not a string`;
  if (h.args !== undefined && !(Array.isArray(h.args) && h.args.every((a) => typeof a === "string")))
    return "args is not a list of strings";
  if (h.timeout !== undefined && !(typeof h.timeout === "number" && h.timeout >= 0))
    return "timeout is not a number";
  if (h.async !== undefined && typeof h.async !== "boolean") return "async is not true or false";
  return null;
}

/** A native timeout in seconds (the neutral unit). */
export function toSeconds(value: number, unit: HookTimeouts["unit"]): number {
  return unit === "ms" ? value / 1000 : value;
}
