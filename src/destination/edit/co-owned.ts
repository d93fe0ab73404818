/**
 * One co-owned file against the ownership record: which of its entries are kanon's, which the user's,
 * what kanon removes (entries it wrote before and no longer renders), and whether the merge replaces
 * content kanon did not write or that was edited since kanon wrote it.
 */

import { visit } from "jsonc-parser";
import { nestingProblem } from "../../formats/nesting.js";
import { deepEqual, isPlainObject, type PlainObject, setOwn } from "../../formats/values.js";
import type { MergeSpec } from "../../model/types.js";
import {
  emptyManaged,
  mergeRegions,
  type OwnedEntries,
  type OwnedRegion,
  ownedLabels,
  ownedRegions,
  ownsSomething,
  type Replaces,
  valueHash,
} from "../record.js";
import { cannotParse, notAnObject, topLevelNotObject } from "./errors.js";
import { mergeHandlers } from "./handlers.js";
import { normaliseManaged } from "./intended.js";
import { nodeValue } from "./json-editor.js";
import { parseLenient } from "./json-merge.js";
import { mergeCoOwned } from "./merge.js";
import { parseToml } from "./toml-merge.js";

export interface CoOwnedPlan {
  /** The new text (the existing text itself when nothing changes). */
  text: string;
  /** kanon's entries after the merge, for the record. */
  owned: Pick<OwnedEntries, "names" | "handlers" | "labels" | "regions">;
  /** Labels of kanon's entries taken out (`mcpServers.github`, `PreToolUse Bash: guard`). */
  removed: string[];
  /** Set when the merge overwrites or removes an entry kanon did not write or that was edited since. */
  replaces?: Replaces;
}

type Region = Exclude<MergeSpec, { kind: "regions" }>;

/**
 * Every region of `spec` in turn (one, unless it is a `regions` merge), and then the regions the
 * record has for this file that `spec` no longer has: those are merged with nothing rendered, which
 * takes kanon's entries there out (Gemini settings.json once kanon renders no hooks).
 */
export function planCoOwned(
  existing: string,
  spec: MergeSpec,
  managed: Record<string, unknown>,
  path: string,
  previous: OwnedEntries | undefined,
  implied: Readonly<Record<string, Readonly<Record<string, string>>>> = {},
): CoOwnedPlan {
  // Parsers and walks recurse per level: a hostile depth would overflow the stack.
  const deep = nestingProblem(existing, spec.format);
  if (deep) throw cannotParse(path, deep);
  const regions = mergeRegions(spec);
  const before = ownedRegions(previous);
  const keys = new Set(regions.map((r) => r.key));
  const gone =
    previous === undefined
      ? []
      : mergeRegions(previous.merge).filter((r) => !keys.has(r.key) && before.has(r.key));
  if (spec.kind !== "regions" && gone.length === 0)
    return planRegion(existing, spec, managed, path, before.get(spec.key), implied[spec.key]);

  let text = existing;
  const owned: Record<string, OwnedRegion> = {};
  const removed: string[] = [];
  let replaces: Replaces | undefined;
  for (const region of [...regions, ...gone]) {
    const values = keys.has(region.key) ? managed : emptyManaged(region);
    const plan = planRegion(text, region, values, path, before.get(region.key), implied[region.key]);
    text = plan.text;
    removed.push(...plan.removed);
    if (plan.replaces === "edited" || (plan.replaces === "foreign" && replaces === undefined))
      replaces = plan.replaces;
    if (ownsSomething(plan.owned)) owned[region.key] = plan.owned;
  }
  const result =
    spec.kind === "regions" ? { regions: owned } : (owned[spec.key] ?? ({} satisfies OwnedRegion));
  return { text, owned: result, removed, ...(replaces ? { replaces } : {}) };
}

/** One region: one member of the document (`spec.key`). */
function planRegion(
  existing: string,
  spec: Region,
  managed: Record<string, unknown>,
  path: string,
  previous: OwnedRegion | undefined,
  implied: Readonly<Record<string, string>> | undefined,
): CoOwnedPlan {
  const doc = parseDocument(existing, spec.format, path);
  const current = doc[spec.key];
  if (spec.kind === "handlers") {
    const desired = (managed[spec.key] ?? {}) as PlainObject;
    const merged = mergeHandlers(current, desired, new Set(previous?.handlers ?? []), path, spec.key);
    // Unchanged (the everyday case) or nothing to add to a file without hooks: no edit, no second parse.
    const unchanged =
      current === undefined ? Object.keys(merged.value).length === 0 : deepEqual(current, merged.value);
    const text = unchanged
      ? existing
      : mergeCoOwned(existing, { ...spec, kind: "value" }, { [spec.key]: merged.value }, path);
    return {
      text,
      owned: { handlers: merged.owned },
      removed: merged.removed,
      // A handler of kanon's edited by hand is put back: its bytes are saved first, and undo has them.
      ...(merged.edited.length > 0 ? { replaces: "edited" as const } : {}),
    };
  }
  if (spec.kind === "value")
    return { text: mergeCoOwned(existing, spec, managed, path), owned: {}, removed: [] };
  if (spec.kind === "hook-groups" || spec.kind === "tables") {
    // kanon's groups and tables name themselves in the file; the record keeps their hook names.
    const desired = managed[spec.key];
    if (desired === undefined) return { text: existing, owned: {}, removed: [] };
    const labels = ownedLabels(spec, desired);
    const empty = Array.isArray(desired) ? desired.length === 0 : isPlainObject(desired) && !labels.length;
    // Nothing to write and nothing there to take out: the member is not added.
    if (empty && current === undefined) return { text: existing, owned: {}, removed: [] };
    const text = mergeCoOwned(existing, spec, managed, path);
    const removed =
      text === existing
        ? []
        : (previous?.labels ?? []).filter((l) => !labels.includes(l)).map((l) => `${spec.key}: ${l}`);
    return { text, owned: labels.length > 0 ? { labels } : {}, removed };
  }

  if (current !== undefined && !isPlainObject(current)) throw notAnObject(path, spec.key);
  const rendered = (normaliseManaged(managed, spec.format === "toml") as PlainObject)[spec.key] as
    | PlainObject
    | undefined;
  const desired = rendered && implied ? withoutImplied(rendered, current, implied) : rendered;
  const before = previous?.names ?? {};
  const names: Record<string, string> = {};
  let replaces: Replaces | undefined;
  const mark = (name: string, value: unknown) => {
    const mine = before[name];
    if (mine === undefined) replaces ??= "foreign";
    else if (mine !== valueHash(value)) replaces = "edited";
  };
  for (const [name, value] of Object.entries(desired ?? {})) {
    names[name] = valueHash(value);
    const there = current?.[name];
    if (there !== undefined && !deepEqual(there, value)) mark(name, there);
  }
  const remove = Object.keys(before).filter((name) => !Object.hasOwn(names, name));
  const removed: string[] = [];
  for (const name of remove) {
    if (current === undefined || !Object.hasOwn(current, name)) continue;
    removed.push(`${spec.key}.${name}`);
    mark(name, current[name]);
  }
  // Nothing to remove and every entry as rendered (the everyday case), or only removals of entries
  // already gone (an empty entries key is not added): no edit, no second parse.
  const nothing =
    removed.length === 0 &&
    (current === undefined
      ? Object.keys(desired ?? {}).length === 0
      : Object.entries(desired ?? {}).every(([name, value]) => deepEqual(current[name], value)));
  const text = nothing ? existing : mergeCoOwned(existing, spec, { [spec.key]: desired ?? {} }, path, remove);
  return { text, owned: { names }, removed, ...(replaces ? { replaces } : {}) };
}

/**
 * Each entry as rendered, less the members the agent assumes where the entry on disk leaves them
 * out (Claude's `type: "stdio"`): they mean the same there, so the entry keeps its bytes and the
 * record its hash.
 */
function withoutImplied(
  rendered: PlainObject,
  current: PlainObject | undefined,
  implied: Readonly<Record<string, string>>,
): PlainObject {
  const out: PlainObject = {};
  for (const [name, entry] of Object.entries(rendered)) {
    const there = current !== undefined && Object.hasOwn(current, name) ? current[name] : undefined;
    if (!isPlainObject(entry) || !isPlainObject(there)) {
      setOwn(out, name, entry);
      continue;
    }
    const kept: PlainObject = {};
    for (const [key, value] of Object.entries(entry))
      if (Object.hasOwn(there, key) || !Object.hasOwn(implied, key) || implied[key] !== value)
        setOwn(kept, key, value);
    setOwn(out, name, kept);
  }
  return out;
}

/**
 * Whether a co-owned file holds nothing but kanon's managed keys, empty: no other key, no value in
 * them, no comment (a file kanon created and has taken its last entry out of is then deleted).
 */
export function holdsNothing(text: string, spec: MergeSpec, path: string): boolean {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const keys = new Set(mergeRegions(spec).map((r) => r.key));
  const doc = parseDocument(body, spec.format, path);
  const empty = (v: unknown) =>
    Array.isArray(v) ? v.length === 0 : isPlainObject(v) && Object.keys(v).length === 0;
  if (!Object.entries(doc).every(([k, v]) => keys.has(k) && empty(v))) return false;
  if (spec.format === "toml") {
    // Only blank lines and bare table headers (`[mcp_servers]`); a comment is the user's.
    return body.split(/\r?\n/).every((line) => /^\s*(\[\[?[^#\]]*\]\]?)?\s*$/.test(line));
  }
  let comment = false;
  visit(body, {
    onComment: () => {
      comment = true;
    },
  });
  return !comment;
}

/** The co-owned document as values (a byte-order mark and a comment-only JSONC file read as `{}`). */
function parseDocument(text: string, format: MergeSpec["format"], path: string): PlainObject {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (body.trim() === "") return {};
  let value: unknown;
  if (format === "toml") return parseToml(body, path);
  try {
    value = JSON.parse(body);
  } catch {
    const root = parseLenient(body, path);
    value = root === undefined ? {} : nodeValue(root);
  }
  if (!isPlainObject(value)) throw topLevelNotObject(path);
  return value;
}
