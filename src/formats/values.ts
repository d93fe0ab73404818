/**
 * Plain-data helpers shared by the encoders and the co-owned file editors. Values are what JSON or
 * TOML parsers return: null, booleans, numbers, bigints, strings, dates, arrays and plain objects.
 */

export type PlainObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is PlainObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
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

/**
 * Orders strings by their UTF-8 bytes, as Go sorts map keys. UTF-16 code units put astral characters
 * (surrogates, U+D800–U+DFFF) before U+E000–U+FFFF; UTF-8 puts them after, so those units are remapped.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Own keys in the byte-wise order Go's encoders write them. */
export function sortedKeys(object: PlainObject): string[] {
  return Object.keys(object).sort(compareUtf8);
}
