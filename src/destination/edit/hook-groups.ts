/**
 * Kanon's hook groups inside a Claude-shaped hook document that the user also edits (Gemini CLI
 * settings.json `hooks`): `{ "<Event>": [{ matcher?, hooks: [handler] }] }`. A group is kanon's when
 * every handler in it has a `name` starting with the spec's prefix; the user's groups stay in place.
 */

import { isPlainObject, type PlainObject, setOwn } from "../../formats/values.js";
import type { MergeSpec } from "../../model/types.js";
import { cannotEdit, notAnObject } from "./errors.js";

type Spec = Extract<MergeSpec, { kind: "hook-groups" }>;

function isKanonGroup(group: unknown, namePrefix: string): boolean {
  if (!isPlainObject(group) || !Array.isArray(group.hooks) || group.hooks.length === 0) return false;
  return group.hooks.every(
    (h) => isPlainObject(h) && typeof h.name === "string" && h.name.startsWith(namePrefix),
  );
}

/** The whole new value of `spec.key`: the user's groups, then kanon's (`desired`) per event. */
export function mergeHookGroups(current: unknown, desired: unknown, spec: Spec, path: string): PlainObject {
  if (!isPlainObject(desired)) throw cannotEdit(path, `kanon's ${spec.key} is not an object`);
  if (current === undefined || current === null) return desired;
  if (!isPlainObject(current)) throw notAnObject(path, spec.key);
  const out: PlainObject = {};
  for (const event of Object.keys(current)) {
    const groups = current[event];
    if (!Array.isArray(groups)) {
      if (Object.hasOwn(desired, event)) throw cannotEdit(path, `${spec.key}.${event} is not an array`);
      setOwn(out, event, groups);
      continue;
    }
    const kept = groups.filter((g) => !isKanonGroup(g, spec.namePrefix));
    // An event that only held kanon's groups, which kanon no longer renders, goes away.
    if (kept.length > 0 || kept.length === groups.length || Object.hasOwn(desired, event))
      setOwn(out, event, kept);
  }
  for (const [event, groups] of Object.entries(desired)) {
    const before = Object.hasOwn(out, event) ? (out[event] as unknown[]) : [];
    setOwn(out, event, [...before, ...(groups as unknown[])]);
  }
  return out;
}
