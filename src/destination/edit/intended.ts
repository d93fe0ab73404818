/** The document a merge must produce, computed on values; the edited text is checked against it. */

import { isPlainObject, type PlainObject, setOwn, withMember } from "../../formats/values.js";
import type { MergeSpec } from "../../model/types.js";

/** `remove`: entry names kanon wrote before and no longer renders (an `entries` merge drops them). */
export function intendedDocument(
  existing: PlainObject,
  spec: MergeSpec,
  desired: unknown,
  remove: readonly string[] = [],
): PlainObject {
  if (spec.kind !== "entries") return withMember(existing, spec.key, desired);
  const current = existing[spec.key];
  const entries: PlainObject = {};
  if (isPlainObject(current))
    for (const name of Object.keys(current)) if (!remove.includes(name)) setOwn(entries, name, current[name]);
  for (const [name, value] of Object.entries(desired as PlainObject)) setOwn(entries, name, value);
  return withMember(existing, spec.key, entries);
}

/**
 * Drops undefined members (they mean "absent", as in JSON.stringify); for TOML also null members,
 * which go-toml skips because TOML has no null.
 */
export function normaliseManaged(value: unknown, dropNull: boolean): unknown {
  if (Array.isArray(value))
    return value.map((item) => normaliseManaged(item === undefined ? null : item, dropNull));
  if (!isPlainObject(value)) return value;
  const out: PlainObject = {};
  for (const key of Object.keys(value)) {
    const member = value[key];
    if (member === undefined || (dropNull && member === null)) continue;
    setOwn(out, key, normaliseManaged(member, dropNull));
  }
  return out;
}
