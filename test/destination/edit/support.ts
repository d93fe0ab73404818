import { readFileSync } from "node:fs";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { mergeCoOwned } from "../../../src/destination/edit/index.js";
import { isPlainObject, type PlainObject } from "../../../src/formats/values.js";
import type { MergeSpec } from "../../../src/model/types.js";

export function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/merge/${name}`, import.meta.url), "utf8");
}

/** Replaces exactly one occurrence of `search`; fails loudly when the fixture does not hold it once. */
export function replaceOnce(text: string, search: string, replacement: string): string {
  const at = text.indexOf(search);
  if (at < 0 || text.indexOf(search, at + 1) >= 0)
    throw new Error(`expected exactly one ${JSON.stringify(search)}`);
  return text.slice(0, at) + replacement + text.slice(at + search.length);
}

/** The document a merge should produce, computed independently from the editors. */
export function intendedAfter(existing: PlainObject, spec: MergeSpec, managed: PlainObject): PlainObject {
  const desired = managed[spec.key];
  const result = { ...existing };
  if (spec.kind === "value") result[spec.key] = desired;
  else {
    const current = existing[spec.key];
    result[spec.key] = { ...(isPlainObject(current) ? current : {}), ...(desired as PlainObject) };
  }
  return result;
}

export function parseAny(text: string, format: MergeSpec["format"]): PlainObject {
  return format === "toml"
    ? (parseToml(text) as PlainObject)
    : (parseJsonc(text, [], { allowTrailingComma: true }) ?? {});
}

/** Merges, then checks that the result parses to the intended document and that merging again changes nothing. */
export function mergeChecked(
  existing: string,
  spec: MergeSpec,
  managed: PlainObject,
  path = "test-file",
): string {
  const result = mergeCoOwned(existing, spec, managed, path);
  const intended = intendedAfter(parseAny(existing, spec.format), spec, managed);
  const actual = parseAny(result, spec.format);
  if (JSON.stringify(sortDeep(actual)) !== JSON.stringify(sortDeep(intended))) {
    throw new Error(`merge result does not parse to the intended document:\n${result}`);
  }
  const again = mergeCoOwned(result, spec, managed, path);
  if (again !== result) throw new Error(`merging twice changed the text again:\n${again}`);
  return result;
}

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortDeep(value[key])]),
  );
}
