/**
 * The co-owned file merge: kanon's managed entries go into a file the user also edits, and every
 * other byte of it stays as it was (unlike the Go tool, which re-serialised whole files).
 */

import { encodeJson } from "../../formats/json.js";
import { encodeToml } from "../../formats/toml.js";
import { isPlainObject, type PlainObject } from "../../formats/values.js";
import { KanonError, type MergeSpec } from "../../model/types.js";
import { normaliseManaged } from "./intended.js";
import { mergeJson } from "./json-merge.js";
import { mergeToml } from "./toml-merge.js";

/**
 * Returns the new text of the co-owned file at `path` (used in messages only): `existing` with
 * `managed[spec.key]` merged in as `spec` says, or `existing` itself when nothing changes.
 * Throws KanonError when the file cannot be parsed or merged safely.
 */
export function mergeCoOwned(
  existing: string,
  spec: MergeSpec,
  managed: Record<string, unknown>,
  path: string,
  remove: readonly string[] = [],
): string {
  // A byte-order mark is not part of either syntax; keep it in front of whatever the merge gives.
  if (existing.startsWith("\uFEFF"))
    return `\uFEFF${mergeCoOwned(existing.slice(1), spec, managed, path, remove)}`;
  const toml = spec.format === "toml";
  const normalised = normaliseManaged(managed, toml) as PlainObject;
  const desired = normalised[spec.key];
  if (desired === undefined) return existing;
  if ((spec.kind === "entries" || toml) && !isPlainObject(desired)) {
    throw new KanonError(`cannot merge ${path}: kanon's ${spec.key} is not an object`);
  }
  if (existing.trim() === "") return toml ? encodeToml(normalised) : encodeJson(normalised);
  return toml
    ? mergeToml(existing, spec, desired as PlainObject, path, remove)
    : mergeJson(existing, spec, desired, path, remove);
}
