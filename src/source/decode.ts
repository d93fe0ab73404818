/**
 * Decoding kanon.yaml against the schema. The fast path (js-yaml, about five times faster than a
 * positional parse on a large home) accepts only documents with nothing to report; anything else —
 * a syntax error, a wrong type, an unknown key, a scalar that needs the Go original's coercions —
 * goes through the positional decoder, which produces the `FILE:LINE:COL` messages. Both paths
 * decode valid documents to the same value (tested as a property).
 */
import * as jsYaml from "js-yaml";
import type { Decoded } from "./decode-positional.js";
import type { Schema } from "./schema.js";

export type { Decoded };

// The core schema (no timestamps or binary) plus merge keys (`<<`), which Go's yaml.v3 also reads.
// (`types` is exported at run time but missing from the type definitions.)
const { merge } = (jsYaml as unknown as { types: { merge: jsYaml.Type } }).types;
const YAML_SCHEMA = jsYaml.CORE_SCHEMA.extend([merge]);

/** Thrown inside the fast path: the document needs the positional decoder. */
const SLOW = Symbol("slow path");

export async function decodeYaml(text: string, file: string, schema: Schema): Promise<Decoded> {
  const fast = decodeFast(text, schema);
  if (fast !== SLOW) return { value: fast, errors: [], warnings: [] };
  const { decodePositional } = await import("./decode-positional.js");
  return decodePositional(text, file, schema);
}

export function decodeFast(text: string, schema: Schema): unknown | typeof SLOW {
  let data: unknown;
  try {
    data = jsYaml.load(text, { schema: YAML_SCHEMA });
  } catch {
    return SLOW;
  }
  try {
    return convert(data, schema);
  } catch (e) {
    if (e === SLOW) return SLOW;
    throw e;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function convert(value: unknown, s: Schema): unknown {
  if (value === null || value === undefined) return undefined;
  switch (s.kind) {
    case "string":
      if (typeof value !== "string") throw SLOW;
      return value;
    case "int":
      if (typeof value !== "number" || !Number.isSafeInteger(value)) throw SLOW;
      return value;
    case "bool":
      if (typeof value !== "boolean") throw SLOW;
      return value;
    case "any":
      return value;
    case "array":
      if (!Array.isArray(value)) throw SLOW;
      return value.map((item) => convert(item, s.items));
    case "map":
    case "object": {
      if (!isPlainObject(value)) throw SLOW;
      const result: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const fieldSchema =
          s.kind === "map" ? s.values : Object.hasOwn(s.fields, key) ? s.fields[key] : undefined;
        if (!fieldSchema) throw SLOW;
        const v = convert(value[key], fieldSchema);
        if (v !== undefined) result[key] = v;
        else if (s.kind === "map") throw SLOW;
      }
      return result;
    }
  }
}
