/**
 * How long a string or value in a TOML file kanon edits may be: TOML's syntax tree (toml-syntax.ts)
 * is made by a parser that hands each string's or value's characters to one call, one argument each
 * (`String.fromCodePoint(...chars)`), which overflows the stack at about 125,000 of them, sooner from
 * deeper in the stack. A longer one is found by one scan, as lists nested too deeply are
 * (nesting.ts): a file holding one is refused before the parse, and kanon never writes one. Real
 * settings hold strings of a few hundred characters. (No parser here: plan.ts checks a new file
 * without loading one.)
 */
import type { MergeSpec } from "../model/types.js";
import { encodeTomlKey, encodeTomlString } from "./toml.js";
import { isPlainObject } from "./values.js";

/** The longest string, key or bare value (a number, a date), as written, the syntax tree is made for. */
export const MAX_TOML_TOKEN = 100_000;

const isSeparator = (c: number) =>
  c === 0x20 ||
  c === 0x09 ||
  c === 0x0a ||
  c === 0x0d ||
  c === 0x3d ||
  c === 0x2c ||
  c === 0x5b ||
  c === 0x5d ||
  c === 0x7b ||
  c === 0x7d;

/** Where a string that opens at `i` ends (past its closing quotes, or where it breaks off). */
function stringEnd(text: string, i: number): number {
  const quote = text[i]!;
  const triple = text.startsWith(quote.repeat(3), i);
  const close = triple ? quote.repeat(3) : quote;
  let j = i + close.length;
  while (j < text.length && !text.startsWith(close, j) && (triple || text[j] !== "\n"))
    j += quote === '"' && text[j] === "\\" ? 2 : 1;
  return Math.min(text.length, text.startsWith(close, j) ? j + close.length : j);
}

/**
 * The first string, key or bare value of a TOML text longer than `max` characters as written (quotes
 * and escapes included, so never shorter than what the parser collects of it), or null.
 */
export function longTomlToken(text: string, max = MAX_TOML_TOKEN): { offset: number; length: number } | null {
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    let end: number;
    if (c === 0x22 || c === 0x27) end = stringEnd(text, i);
    else if (c === 0x23) {
      // A comment, to the end of its line.
      const nl = text.indexOf("\n", i);
      i = nl < 0 ? text.length : nl;
      continue;
    } else if (isSeparator(c)) {
      i++;
      continue;
    } else {
      end = i + 1;
      while (end < text.length) {
        const d = text.charCodeAt(end);
        if (isSeparator(d) || d === 0x22 || d === 0x27 || d === 0x23) break;
        end++;
      }
    }
    if (end - i > max) return { offset: i, length: end - i };
    i = end;
  }
  return null;
}

const count = (n: number) => n.toLocaleString("en-US");

/** Line and column (from 1) of an offset. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `${line}:${offset - before.lastIndexOf("\n")}`;
}

/** Why the syntax tree cannot be made of a text, or null (a string or value too long for it). */
export function tomlSyntaxProblem(text: string): string | null {
  const long = longTomlToken(text);
  if (!long) return null;
  return `the string or value at ${position(text, long.offset)} is ${count(long.length)} characters long; kanon reads at most ${count(MAX_TOML_TOKEN)} in one TOML string or value`;
}

/**
 * Why kanon must not write a TOML text, or null: kanon never writes a file it could not edit again.
 * It names the first of kanon's settings (`managed`, merged as `spec` says) too long to hold, where
 * one is: `mcp_servers.x.args[0] would be written as 200,002 characters; …`.
 */
export function unwritableToml(
  text: string,
  spec: MergeSpec,
  managed: Record<string, unknown>,
): string | null {
  const long = longTomlToken(text);
  if (!long) return null;
  let what = "a string or value";
  for (const region of spec.kind === "regions" ? spec.regions : [spec]) {
    const labels = region.kind === "tables" ? region.labels : undefined;
    const setting = longSetting(managed[region.key], region.key, labels);
    if (setting !== null) {
      what = setting;
      break;
    }
  }
  return `${what} would be written as ${count(long.length)} characters; kanon writes at most ${count(MAX_TOML_TOKEN)} in one TOML string or value, as many as it can read back`;
}

/**
 * The first setting whose key or string value is too long for the syntax tree, as its path
 * (`mcp_servers.x.args[0]`; a table of an array by its label: `hooks "audit".command`), or null.
 */
function longSetting(value: unknown, at: string, labels?: readonly string[]): string | null {
  const tooLong = (written: string) => written.length > MAX_TOML_TOKEN;
  if (typeof value === "string") return tooLong(encodeTomlString(value, "basic")) ? at : null;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const label = labels?.[i];
      const found = longSetting(item, label === undefined ? `${at}[${i}]` : `${at} ${JSON.stringify(label)}`);
      if (found) return found;
    }
  }
  if (!isPlainObject(value)) return null;
  for (const [name, item] of Object.entries(value)) {
    if (tooLong(encodeTomlKey(name, "basic"))) return `a key in ${at}`;
    const found = longSetting(item, `${at}.${name}`);
    if (found) return found;
  }
  return null;
}
