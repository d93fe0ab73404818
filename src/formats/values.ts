/**
 * Plain-data helpers shared by the encoders and the co-owned file editors. Values are what JSON or
 * TOML parsers return: null, booleans, numbers, bigints, strings, dates, arrays and plain objects.
 */

import { compareBytes } from "../model/text.js";

export type PlainObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is PlainObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}

/** Structural equality; object key order does not matter, NaN equals NaN, dates compare by instant text. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Date || b instanceof Date) {
    // TOML local dates override toISOString, so this also tells a local date from an offset one.
    return a instanceof Date && b instanceof Date && a.toISOString() === b.toISOString();
  }
  const aKeys = Object.keys(a);
  if (aKeys.length !== Object.keys(b).length) return false;
  for (const key of aKeys) {
    if (!Object.hasOwn(b, key)) return false;
    if (!deepEqual((a as PlainObject)[key], (b as PlainObject)[key])) return false;
  }
  return true;
}

/** Sets an own property, even for the key `__proto__` (plain assignment would change the prototype). */
export function setOwn(target: PlainObject, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** A shallow copy with `key` set to `value`, keeping every other own property. */
export function withMember(source: PlainObject, key: string, value: unknown): PlainObject {
  const copy: PlainObject = {};
  for (const k of Object.keys(source)) setOwn(copy, k, source[k]);
  setOwn(copy, key, value);
  return copy;
}

/** Own keys in the byte-wise order Go's encoders write them. */
export function sortedKeys(object: PlainObject): string[] {
  const keys = Object.keys(object);
  // Most objects kanon encodes are built in order: the check allocates nothing, a sort does.
  for (let i = 1; i < keys.length; i++)
    if (compareBytes(keys[i - 1]!, keys[i]!) > 0) return keys.sort(compareBytes);
  return keys;
}
