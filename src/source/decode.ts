/**
 * Decoding kanon.yaml against the schema. The fast path (simple-yaml.ts for documents in the plain
 * block style, js-yaml for the rest: both about five times faster than a positional parse on a large
 * home) accepts only documents with nothing to report; anything else — a syntax error, a wrong type,
 * an unknown key, a scalar that needs the Go original's coercions — goes through the positional
 * decoder, which produces the `FILE:LINE:COL` messages. The paths decode valid documents to the same
 * value (tested as a property).
 */
import { isPlainObject } from "../formats/values.js";
import type { Decoded } from "./decode-positional.js";
import { MAX_ALIASED_VALUES, RESERVED_NAMES, unwritableChar } from "./limits.js";
import type { Schema } from "./schema.js";
import { BAIL, parseSimpleYaml } from "./simple-yaml.js";

export type { Decoded };

/** Thrown inside the fast path: the document needs the positional decoder. */
const SLOW = Symbol("slow path");

export async function decodeYaml(text: string, file: string, schema: Schema): Promise<Decoded> {
  const fast = await decodeFast(text, schema);
  if (fast !== SLOW) return { value: fast, errors: [], warnings: [] };
  const { decodePositional } = await import("./decode-positional.js");
  return decodePositional(text, file, schema);
}

export async function decodeFast(text: string, schema: Schema): Promise<unknown | typeof SLOW> {
  let data = parseSimpleYaml(text);
  if (data === BAIL) data = (await import("./read-js-yaml.js")).readJsYaml(text);
  if (data === BAIL) return SLOW;
  // js-yaml shares aliased values; walking them may cost far more than the text (the positional
  // decoder bounds it and says so).
  const budget = { left: text.length + MAX_ALIASED_VALUES };
  try {
    return convert(data, schema, budget);
  } catch (e) {
    if (e === SLOW) return SLOW;
    throw e;
  }
}

/** Anything the positional decoder would report (see decode-positional.ts) goes there. */
function convert(value: unknown, s: Schema, budget: { left: number }): unknown {
  if (--budget.left < 0) throw SLOW;
  if (value === null || value === undefined) return undefined;
  switch (s.kind) {
    case "string":
      if (typeof value !== "string" || unwritableChar(value, !!s.enum)) throw SLOW;
      return value;
    case "int":
      if (typeof value !== "number" || !Number.isSafeInteger(value)) throw SLOW;
      if (value < (s.minimum ?? 0) || value > (s.maximum ?? Number.MAX_SAFE_INTEGER)) throw SLOW;
      return value;
    case "bool":
      if (typeof value !== "boolean") throw SLOW;
      return value;
    case "stringOr":
      return convert(value, typeof value === "string" ? { kind: "string" } : s.object, budget);
    case "any":
      if (Array.isArray(value)) return value.map((item) => convert(item, s, budget) ?? null);
      if (isPlainObject(value)) return convert(value, { kind: "map", values: s }, budget);
      if (typeof value === "string" && !unwritableChar(value, false)) return value;
      if (typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value))) return value;
      throw SLOW;
    case "array":
      if (!Array.isArray(value)) throw SLOW;
      return value.map((item) => {
        if (item === null || item === undefined) throw SLOW;
        return convert(item, s.items, budget);
      });
    case "map":
    case "object": {
      if (!isPlainObject(value)) throw SLOW;
      const result: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const fieldSchema =
          s.kind === "map" ? s.values : Object.hasOwn(s.fields, key) ? s.fields[key] : undefined;
        if (!fieldSchema) throw SLOW;
        if (s.kind === "map" && (RESERVED_NAMES.has(key) || unwritableChar(key, true))) throw SLOW;
        const v = convert(value[key], fieldSchema, budget);
        if (v !== undefined) result[key] = v;
        else if (s.kind === "map") throw SLOW;
      }
      return result;
    }
  }
}
