/**
 * TOML text as go-toml v2's default encoder writes it, so that a config.toml kanon creates matches
 * the Go tool byte for byte:
 * - in every table, plain key/values first (sorted), then sub-tables (sorted);
 * - every table header is printed, even an intermediate one without keys (`[mcp_servers]`);
 * - a blank line before each sub-table, except before the first when the table has no key/values;
 * - literal 'strings' unless they need escapes; bare keys when possible; inline arrays;
 * - a non-empty array whose items are all tables becomes `[[array.of.tables]]`.
 *
 * Numbers: JavaScript has no int/float distinction, so safe integers are written as TOML integers
 * and every other number as a float (`.0` when integral, never an exponent, as go-toml does).
 * Null and undefined members are left out, as go-toml skips nil values.
 */
import { KanonError } from "../model/types.js";
import { isPlainObject, type PlainObject, sortedKeys } from "./values.js";

/** A whole TOML document; "" for an empty one. */
export function encodeToml(doc: PlainObject): string {
  const out: string[] = [];
  writeTableBody(out, [], doc);
  return out.join("");
}

/**
 * The text go-toml writes for the table at `path` inside a larger document: its `[path]` header,
 * its key/values and its sub-tables, ending with "\n".
 */
export function encodeTomlTable(path: readonly string[], table: PlainObject): string {
  const out: string[] = [];
  writeTableLike(out, path, table);
  return out.join("");
}

/** One value as it appears after `key = `: inline arrays and inline tables. */
export function encodeTomlValue(value: unknown): string {
  if (typeof value === "string") return encodeTomlString(value);
  if (typeof value === "number") return encodeTomlNumber(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) {
    return `[${value.map((item) => encodeTomlValue(arrayItem(item))).join(", ")}]`;
  }
  if (isPlainObject(value)) {
    const members = presentKeys(value).map((key) => `${encodeTomlKey(key)} = ${encodeTomlValue(value[key])}`);
    return `{${members.join(", ")}}`;
  }
  throw new KanonError(`cannot write ${value === null ? "null" : typeof value} as a TOML value`);
}

/** A key: bare if it can be, else 'literal', else "basic" (when it holds `'` or control characters). */
export function encodeTomlKey(key: string): string {
  if (key === "") return "''";
  if (BARE_KEY.test(key)) return key;
  if (key.includes("'") || needsBasicString(key)) return basicString(key);
  return `'${key}'`;
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** Literal 'string' unless it holds `'`, CR, LF or another control character (tab is allowed). */
export function encodeTomlString(text: string): string {
  return needsBasicString(text) ? basicString(text) : `'${text}'`;
}

/**
 * A text of several lines as a multi-line literal string (`'''` and a newline, the text as it is,
 * `'''`), which a reader sees as written; a one-line text, or one a literal cannot hold (`'''`, a
 * control character, a CR not before LF, or an ending `'`), as encodeTomlString writes it.
 */
export function encodeTomlMultiline(text: string): string {
  const literal =
    text.includes("\n") &&
    !text.includes("'''") &&
    !text.endsWith("'") &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
    !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]|\r(?!\n)/.test(text);
  return literal ? `'''\n${text}'''` : encodeTomlString(text);
}

function needsBasicString(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return /['\u0000-\u0008\u000a-\u001f\u007f]/.test(text);
}

const BASIC_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  '"': '\\"',
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

function basicString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    const short = BASIC_ESCAPES[ch];
    if (short !== undefined) out += short;
    else if (code < 0x20 || code === 0x7f) out += `\\u00${code.toString(16).toUpperCase().padStart(2, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

export function encodeTomlNumber(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (value === Number.POSITIVE_INFINITY) return "inf";
  if (value === Number.NEGATIVE_INFINITY) return "-inf";
  if (Number.isSafeInteger(value)) return String(value);
  // Past 2^53 only floats are exact; go-toml prints integral floats in full with ".0".
  if (Number.isInteger(value)) return `${BigInt(value).toString()}.0`;
  return withoutExponent(String(value));
}

/** go-toml formats floats with 'f' (never an exponent); JavaScript uses one below 1e-6. */
function withoutExponent(text: string): string {
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, lead, fraction = "", exponentText] = match;
  const digits = `${lead}${fraction}`;
  const point = 1 + Number(exponentText);
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Tables and non-empty arrays of tables are written with headers; everything else as `key = value`. */
function isTableLike(value: unknown): boolean {
  if (isPlainObject(value)) return true;
  return Array.isArray(value) && value.length > 0 && value.every(isPlainObject);
}

function presentKeys(table: PlainObject): string[] {
  return sortedKeys(table).filter((key) => table[key] !== null && table[key] !== undefined);
}

function arrayItem(item: unknown): unknown {
  if (item === null || item === undefined) throw new KanonError("cannot write null inside a TOML array");
  return item;
}

function writeTableBody(out: string[], path: readonly string[], table: PlainObject): void {
  const keys = presentKeys(table);
  const values = keys.filter((key) => !isTableLike(table[key]));
  const tables = keys.filter((key) => isTableLike(table[key]));
  for (const key of values) out.push(`${encodeTomlKey(key)} = ${encodeTomlValue(table[key])}\n`);
  tables.forEach((key, i) => {
    if (i > 0 || values.length > 0) out.push("\n");
    writeTableLike(out, [...path, key], table[key]);
  });
}

function writeTableLike(out: string[], path: readonly string[], value: unknown): void {
  const header = path.map(encodeTomlKey).join(".");
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      if (i > 0) out.push("\n");
      out.push(`[[${header}]]\n`);
      writeTableBody(out, path, item as PlainObject);
    });
  } else {
    out.push(`[${header}]\n`);
    writeTableBody(out, path, value as PlainObject);
  }
}

/**
 * The owner label of a `[[key]]` table whose header line, from the end of its key on, is `rest`
 * (`]] # kanon: guard` → "guard"); null when the line has no `# <marker>` comment.
 */
export function ownerLabel(rest: string, marker: string): string | null {
  const escaped = marker.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = new RegExp(`^\\s*\\]\\]\\s*#\\s*${escaped}(?::|\\s|$)(.*)$`).exec(rest.replace(/\r?\n$/, ""));
  return m ? m[1]!.replace(/^ /, "") : null;
}

/**
 * `[[key]]` tables that carry an owner comment on their header line (`[[hooks]] # kanon: guard`),
 * separated by blank lines. Members are written inline (`k = v`, nested values as inline tables).
 */
export function encodeMarkedTables(
  key: string,
  items: readonly PlainObject[],
  marker: string,
  labels: readonly string[],
): string {
  return items
    .map((item, i) => {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: a label must stay on the header line
      const label = (labels[i] ?? "").replace(/[\u0000-\u001f\u007f]/g, " ");
      const members = presentKeys(item).map((k) => `${encodeTomlKey(k)} = ${encodeTomlValue(item[k])}\n`);
      return `[[${encodeTomlKey(key)}]] # ${marker}: ${label}\n${members.join("")}`;
    })
    .join("\n");
}
