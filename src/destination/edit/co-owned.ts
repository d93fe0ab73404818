/**
 * One co-owned file against the ownership record: which of its entries are kanon's, which the user's,
 * what kanon removes (entries it wrote before and no longer renders), and whether the merge replaces
 * content kanon did not write or that was edited since kanon wrote it.
 */

import { deepEqual, isPlainObject, type PlainObject } from "../../formats/values.js";
import type { MergeSpec } from "../../model/types.js";
import { type OwnedEntries, type Replaces, valueHash } from "../record.js";
import { notAnObject, topLevelNotObject } from "./errors.js";
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
  owned: Pick<OwnedEntries, "names" | "handlers">;
  /** Labels of kanon's entries taken out (`mcpServers.github`, `PreToolUse Bash: guard`). */
  removed: string[];
  /** Set when the merge overwrites or removes an entry kanon did not write or that was edited since. */
  replaces?: Replaces;
}

export function planCoOwned(
  existing: string,
  spec: MergeSpec,
  managed: Record<string, unknown>,
  path: string,
  previous: OwnedEntries | undefined,
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
    return { text, owned: { handlers: merged.owned }, removed: merged.removed };
  }
  if (spec.kind === "value")
    return { text: mergeCoOwned(existing, spec, managed, path), owned: {}, removed: [] };

  if (current !== undefined && !isPlainObject(current)) throw notAnObject(path, spec.key);
  const desired = (normaliseManaged(managed, spec.format === "toml") as PlainObject)[spec.key] as
    | PlainObject
    | undefined;
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
