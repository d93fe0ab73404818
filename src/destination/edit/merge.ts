/**
 * The co-owned file merge: kanon's managed entries go into a file the user also edits, and every
 * other byte of it stays as it was (unlike the Go tool, which re-serialised whole files).
 */
import { applyEdits as applyJsonEdits, modify, type ParseError, parse as parseJsonc } from "jsonc-parser";
import { encodeJson } from "../../formats/json.js";
import { encodeToml } from "../../formats/toml.js";
import { unwritableToml } from "../../formats/toml-limits.js";
import { isPlainObject, type PlainObject } from "../../formats/values.js";
import { KanonError, type MergeSpec } from "../../model/types.js";
import { cannotWrite } from "./errors.js";
import { mergeHookGroups } from "./hook-groups.js";
import { normaliseManaged } from "./intended.js";
import { mergeJson } from "./json-merge.js";
import { mergeToml } from "./toml-merge.js";
import { mergeTomlTables } from "./toml-tables.js";

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
  if (spec.kind === "regions")
    return spec.regions.reduce((text, region) => mergeCoOwned(text, region, managed, path, remove), existing);
  const toml = spec.format === "toml";
  const normalised = normaliseManaged(managed, toml) as PlainObject;
  const desired = normalised[spec.key];
  if (desired === undefined) return existing;
  if (spec.kind === "tables") {
    const text = mergeTomlTables(existing, spec, desired, path);
    return readableBack(text, existing, spec, normalised, path);
  }
  if (spec.kind === "hook-groups") {
    const current = jsonMember(existing, spec.key);
    const combined = mergeHookGroups(current, desired, spec, path);
    // kanon's last groups taken out of a member that held nothing else: the member goes too, rather
    // than staying behind as `"hooks": {}`.
    if (isPlainObject(current) && Object.keys(current).length > 0 && Object.keys(combined).length === 0)
      return applyJsonEdits(existing, modify(existing, [spec.key], undefined, {}));
    return mergeCoOwned(
      existing,
      { kind: "value", format: spec.format, key: spec.key },
      { [spec.key]: combined },
      path,
    );
  }
  if ((spec.kind === "entries" || toml) && !isPlainObject(desired)) {
    throw new KanonError(`cannot merge ${path}: kanon's ${spec.key} is not an object`);
  }
  if (!toml)
    return existing.trim() === "" ? encodeJson(normalised) : mergeJson(existing, spec, desired, path, remove);
  const text =
    existing.trim() === ""
      ? encodeToml(normalised)
      : mergeToml(existing, spec, desired as PlainObject, path, remove);
  return readableBack(text, existing, spec, normalised, path);
}

/**
 * The merged TOML text, unless kanon could not edit it again (formats/toml-syntax.ts). Only a text
 * that changed is checked: a long string of the user's, left as it was, is theirs to keep.
 */
function readableBack(
  text: string,
  existing: string,
  spec: MergeSpec,
  managed: PlainObject,
  path: string,
): string {
  const problem = text === existing ? null : unwritableToml(text, spec, managed);
  if (problem !== null) throw cannotWrite(path, problem);
  return text;
}

/** The value of a top-level member of a JSON(C) text; undefined when absent or unparsable (the merge reports that). */
function jsonMember(text: string, key: string): unknown {
  const errors: ParseError[] = [];
  const doc = parseJsonc(text, errors, { allowTrailingComma: true, allowEmptyContent: true });
  if (errors.length > 0 || !isPlainObject(doc)) return undefined;
  return Object.hasOwn(doc, key) ? doc[key] : undefined;
}
