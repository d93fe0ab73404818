/**
 * JSON plumbing for Codex hook trust hashes (see trust.ts for the algorithm).
 *
 * Two Codex details force a JSON model of our own instead of `JSON.parse` + `JSON.stringify`:
 * - Codex's serde_json is built with `arbitrary_precision`, so a number inside an MCP hook's `input`
 *   reaches the hash as the object `{"$serde_json::private::Number":"<literal>"}`, where the literal
 *   is the number's text from hooks.json, lightly normalised ({@link serdeNumberLiteral}). We keep
 *   every number's source text for that.
 * - The hash input is compact JSON with object keys sorted by their UTF-8 bytes (Rust `String`
 *   order), which is not JavaScript's UTF-16 order for every key.
 */

import { type Node, parseTree } from "jsonc-parser";
import { sha256Hex } from "../../model/crypto.js";
import { compareBytes } from "../../model/text.js";

/** A JSON number with the exact text it was written with. */
export class JsonNumber {
  constructor(readonly literal: string) {}
}

/** A parsed JSON value that keeps number literals. Objects are Maps, so no key is special. */
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
export type JsonObject = Map<string, JsonValue>;

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return value instanceof Map;
}

/** Parse strict JSON (as serde_json would accept it), keeping number literals. Throws SyntaxError. */
export function parseJsonText(text: string): JsonValue {
  JSON.parse(text); // strictness: jsonc-parser alone would accept comments and trailing commas
  const root = parseTree(text, [], { allowTrailingComma: false, disallowComments: true });
  if (!root) throw new SyntaxError("empty JSON document");
  return fromNode(root, text);
}

function fromNode(node: Node, text: string): JsonValue {
  switch (node.type) {
    case "null":
      return null;
    case "boolean":
      return node.value as boolean;
    case "string":
      return node.value as string;
    case "number":
      return new JsonNumber(text.slice(node.offset, node.offset + node.length));
    case "array":
      return (node.children ?? []).map((child) => fromNode(child, text));
    case "object": {
      const out: JsonObject = new Map();
      for (const prop of node.children ?? []) {
        const [key, value] = prop.children ?? [];
        if (key && value) out.set(key.value as string, fromNode(value, text));
      }
      return out;
    }
    default:
      throw new SyntaxError(`unexpected JSON node ${node.type}`);
  }
}

/** Convert an already-parsed JavaScript value. Numbers get the text `JSON.stringify` gives them. */
export function fromJsValue(value: unknown, path = "$"): JsonValue {
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`${path}: ${value} is not a JSON number`);
    return new JsonNumber(JSON.stringify(value));
  }
  if (Array.isArray(value)) return value.map((item, i) => fromJsValue(item, `${path}[${i}]`));
  if (typeof value === "object") {
    const out: JsonObject = new Map();
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v !== undefined) out.set(k, fromJsValue(v, `${path}.${k}`));
    }
    return out;
  }
  throw new TypeError(`${path}: a ${typeof value} is not a JSON value`);
}

/**
 * The text serde_json (with `arbitrary_precision`) keeps for a number literal: an integer literal as
 * written except that `-0` becomes `0`; a literal with a fraction or exponent as written except that
 * the exponent is `e` followed by an explicit sign (`1E2` → `1e+2`, `1.0E-05` → `1.0e-05`).
 * Verified against Codex 0.171.0 for 1.50, 1E2, 1e07, 1.0E-05, -0, -0.0, -0e0, 0.000, -7,
 * 18446744073709551616, -9223372036854775809 and 12345678901234567890123.
 */
export function serdeNumberLiteral(literal: string): string {
  const m = /^(-?)(\d+)(\.\d+)?(?:[eE]([+-]?)(\d+))?$/.exec(literal);
  if (!m) throw new SyntaxError(`not a JSON number: ${literal}`);
  const [, sign, int, frac, expSign, exp] = m;
  if (frac === undefined && exp === undefined) return sign === "-" && /^0+$/.test(int!) ? "0" : literal;
  const exponent = exp === undefined ? "" : `e${expSign || "+"}${exp}`;
  return `${sign}${int}${frac ?? ""}${exponent}`;
}

/** A value of the hash identity, after Codex's TOML round trip (no null exists there). */
export type CanonValue = string | boolean | bigint | SerdeNumber | CanonValue[] | CanonObject;
export type CanonObject = Map<string, CanonValue>;

/** A number inside MCP `input`, which serde_json serialises as its private map. */
export class SerdeNumber {
  constructor(readonly literal: string) {}
}

const SERDE_NUMBER_KEY = "$serde_json::private::Number";

/** Compact JSON with object keys sorted by UTF-8 bytes, as `serde_json::to_vec` of the sorted value. */
export function canonicalJson(value: CanonValue): string {
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "bigint") return value.toString();
  if (value instanceof SerdeNumber) {
    return `{${JSON.stringify(SERDE_NUMBER_KEY)}:${JSON.stringify(value.literal)}}`;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const keys = [...value.keys()].sort(compareBytes);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value.get(k)!)}`).join(",")}}`;
}

/** `sha256:` and the lowercase hex SHA-256 of the UTF-8 text. */
export function sha256Tagged(text: string): string {
  return `sha256:${sha256Hex(text)}`;
}
