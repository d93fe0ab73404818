/**
 * kanon's handlers inside a Claude-shaped hook document (`{ "<Event>": [{ matcher?, hooks: [handler] }] }`)
 * that the user also writes to: Claude's settings.json `hooks` and Codex's hooks.json. Computed on
 * values; the JSON editor then changes only the text of what differs.
 *
 * A handler is identified by its event, matcher and fields, its type included (handlerKey), so an
 * http, mcp_tool, prompt or agent handler is owned, replaced and removed like a command handler.
 * The user's handlers keep their place: Codex keys its review of a hook by `<file>:<event>:<group>:<handler>`, so moving one
 * would make Codex ask for a review of a hook nobody changed.
 */
import { isPlainObject, type PlainObject, setOwn } from "../../formats/values.js";
import { handlerKey } from "../record.js";
import { cannotEdit } from "./errors.js";

interface Wanted {
  event: string;
  matcher: unknown;
  handler: unknown;
  key: string;
}

export interface HandlerMerge {
  /** The new hook document. */
  value: PlainObject;
  /** Keys of kanon's handlers in the new document, in file order. */
  owned: string[];
  /** Labels of kanon's handlers taken out (`PreToolUse Bash: guard --deny`). */
  removed: string[];
  /** Labels of kanon's handlers edited by hand since kanon wrote them, put back as rendered. */
  edited: string[];
}

/** The handlers of a rendered hook document, in order. */
export function renderedHandlers(desired: PlainObject): Wanted[] {
  const out: Wanted[] = [];
  for (const event of Object.keys(desired)) {
    for (const group of desired[event] as PlainObject[]) {
      for (const handler of group.hooks as unknown[])
        out.push({ event, matcher: group.matcher, handler, key: handlerKey(event, group.matcher, handler) });
    }
  }
  return out;
}

export function handlerLabel(event: string, matcher: unknown, handler: unknown): string {
  const m = typeof matcher === "string" && matcher !== "" ? ` ${matcher}` : "";
  return `${event}${m}: ${handlerWhat(handler)}`;
}

/**
 * What a handler does, in a few words: a command handler's command; any other type (http, mcp_tool,
 * prompt, agent) is named by its type and main field (`http https://…`, `mcp_tool memory/search`).
 */
function handlerWhat(handler: unknown): string {
  if (!isPlainObject(handler)) return "";
  const str = (k: string): string => (typeof handler[k] === "string" ? (handler[k] as string) : "");
  const type = str("type");
  if (type === "" || type === "command") return str("command");
  if (type === "http") return `http ${str("url")}`;
  if (type === "mcp_tool") return `mcp_tool ${str("server")}/${str("tool")}`;
  const prompt = str("prompt").split("\n")[0]!;
  return `${type} ${prompt.length > 40 ? `${prompt.slice(0, 40)}…` : prompt}`;
}

/**
 * Puts the rendered handlers into `current` (the document on disk, undefined when absent): a handler
 * already there (anywhere) is kept where it is; one kanon wrote before (`previous`) that is no longer
 * rendered is removed, or replaced in place by a new handler of the same event and matcher; the rest
 * are appended as one group each. Groups and events kanon empties go; everything else stays.
 */
export function mergeHandlers(
  current: unknown,
  desired: PlainObject,
  previous: ReadonlySet<string>,
  path: string,
  key: string,
): HandlerMerge {
  if (current !== undefined && !isPlainObject(current)) throw cannotEdit(path, `${key} is not an object`);
  const doc: PlainObject = {};
  for (const event of Object.keys(current ?? {})) {
    const groups = (current as PlainObject)[event];
    setOwn(doc, event, Array.isArray(groups) ? groups.map(copyGroup) : groups);
  }
  const wanted = renderedHandlers(desired);
  const missing = new Map<string, number>();
  for (const w of wanted) missing.set(w.key, (missing.get(w.key) ?? 0) + 1);

  // Handlers of kanon's that are no longer rendered, in file order: [event, group, index, key].
  const stale: { event: string; group: PlainObject; index: number; matcher: unknown; handler: unknown }[] =
    [];
  for (const event of Object.keys(doc)) {
    for (const group of groupsOf(doc[event])) {
      (group.hooks as unknown[]).forEach((handler, index) => {
        const k = handlerKey(event, group.matcher, handler);
        const n = missing.get(k) ?? 0;
        if (n > 0) missing.set(k, n - 1);
        else if (previous.has(k)) stale.push({ event, group, index, matcher: group.matcher, handler });
      });
    }
  }

  const removed: string[] = [];
  const edited: string[] = [];
  const wantedKeys = new Set(wanted.map((w) => w.key));
  for (const w of wanted) {
    const n = missing.get(w.key) ?? 0;
    if (n === 0) continue;
    missing.set(w.key, n - 1);
    const slot = stale.findIndex((s) => s.event === w.event && sameMatcher(s.matcher, w.matcher));
    if (slot >= 0) {
      const [s] = stale.splice(slot, 1);
      (s!.group.hooks as unknown[])[s!.index] = w.handler;
      continue;
    }
    // kanon wrote exactly this handler, and it is gone: one in its place that runs the same thing
    // (a timeout changed by hand) is kanon's, edited. It is put back as rendered, in place, never
    // beside it: two copies would run the hook twice.
    if (previous.has(w.key)) {
      // (Once put back, it is rendered: no later handler takes the same place.)
      const hand = handEdited(doc, w, previous, wantedKeys);
      if (hand) {
        edited.push(handlerLabel(w.event, hand.group.matcher, (hand.group.hooks as unknown[])[hand.index]));
        (hand.group.hooks as unknown[])[hand.index] = w.handler;
        continue;
      }
    }
    const group: PlainObject = { hooks: [w.handler] };
    if (typeof w.matcher === "string") group.matcher = w.matcher;
    const groups = doc[w.event];
    if (Array.isArray(groups)) groups.push(group);
    else if (groups === undefined) setOwn(doc, w.event, [group]);
    else throw cannotEdit(path, `${key}.${w.event} is not a list`);
  }
  for (const s of stale) {
    removed.push(handlerLabel(s.event, s.matcher, s.handler));
    (s.group.hooks as unknown[])[s.index] = REMOVED;
  }
  for (const event of Object.keys(doc)) {
    const groups = doc[event];
    if (!Array.isArray(groups)) continue;
    const kept = groups.filter((group) => {
      if (!isPlainObject(group) || !Array.isArray(group.hooks) || !group.hooks.includes(REMOVED)) return true;
      const hooks = group.hooks.filter((h) => h !== REMOVED);
      group.hooks = hooks;
      return hooks.length > 0;
    });
    if (kept.length === groups.length) continue;
    if (kept.length === 0) delete doc[event];
    else setOwn(doc, event, kept);
  }

  const owned: string[] = [];
  const want = new Set(wanted.map((w) => w.key));
  for (const event of Object.keys(doc)) {
    for (const group of groupsOf(doc[event])) {
      for (const handler of group.hooks as unknown[]) {
        const k = handlerKey(event, group.matcher, handler);
        if (want.has(k)) owned.push(k);
      }
    }
  }
  return { value: doc, owned, removed, edited };
}

/** What a handler runs, whatever its timeout or other settings: its type and main fields. */
function runs(handler: unknown): string | null {
  if (!isPlainObject(handler)) return null;
  const f = (k: string) => handler[k] ?? null;
  return JSON.stringify([
    f("type") ?? "command",
    f("command"),
    f("args"),
    f("url"),
    f("server"),
    f("tool"),
    f("prompt"),
  ]);
}

/**
 * The user's-looking handler (not kanon's, not rendered) under `w`'s event and matcher that runs
 * what `w` runs: kanon's handler, edited by hand.
 */
function handEdited(
  doc: PlainObject,
  w: Wanted,
  previous: ReadonlySet<string>,
  wanted: ReadonlySet<string>,
): { group: PlainObject; index: number } | null {
  const target = runs(w.handler);
  for (const group of groupsOf(doc[w.event])) {
    if (!sameMatcher(group.matcher, w.matcher)) continue;
    const hooks = group.hooks as unknown[];
    for (let index = 0; index < hooks.length; index++) {
      const k = handlerKey(w.event, group.matcher, hooks[index]);
      if (previous.has(k) || wanted.has(k) || runs(hooks[index]) !== target) continue;
      return { group, index };
    }
  }
  return null;
}

const REMOVED = Symbol("removed");

function sameMatcher(a: unknown, b: unknown): boolean {
  return (typeof a === "string" ? a : "") === (typeof b === "string" ? b : "");
}

function copyGroup(group: unknown): unknown {
  if (!isPlainObject(group) || !Array.isArray(group.hooks)) return group;
  const copy: PlainObject = {};
  for (const k of Object.keys(group)) setOwn(copy, k, group[k]);
  copy.hooks = [...group.hooks];
  return copy;
}

function groupsOf(groups: unknown): PlainObject[] {
  if (!Array.isArray(groups)) return [];
  return groups.filter((g): g is PlainObject => isPlainObject(g) && Array.isArray(g.hooks));
}
