/**
 * Markdown files with YAML front matter, as kanon writes them for an agent's commands and subagents:
 * `---`, one `key: value` line per field, `---`, then the body byte for byte. A value is a plain
 * scalar when every YAML parser reads it back as the same string, else a double-quoted (JSON) one;
 * a list is a flow sequence of such scalars, a map a flow mapping.
 */

/** YAML 1.1 and 1.2 words that a plain scalar would turn into a boolean or null. */
const KEYWORDS = new Set(["true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"]);

/**
 * Text a plain scalar holds as is: letters, digits and a few marks, starting with a letter or digit,
 * no `: `, ` #` or flow indicator, no surrounding space, not a keyword or a number.
 */
function isPlain(text: string): boolean {
  if (!/^[\p{L}\p{N}][\p{L}\p{N}\p{M} _.,;/()'!?&*+=@%$<>-]*$/u.test(text)) return false;
  if (text.endsWith(" ") || KEYWORDS.has(text.toLowerCase())) return false;
  // A YAML 1.1 timestamp (js-yaml reads `2026-12-06` as a date).
  if (/^\d{4}-\d\d?-\d\d?/.test(text)) return false;
  // Numbers of any YAML version (1e3, 0x1F, 0o7, 1_000, .5, 1.) stay strings only when quoted.
  return !/^[-+]?(\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|0x[\da-fA-F_]+|0o?[0-7_]+|0b[01_]+|\d+(:\d+)+)$/.test(text);
}

/** A string as a YAML scalar. */
export function yamlScalar(text: string): string {
  return isPlain(text) ? text : JSON.stringify(text);
}

/** A front-matter value: a string, a list of strings, or a map of names to booleans. */
export type FrontValue = string | readonly string[] | Readonly<Record<string, boolean>>;

function yamlValue(value: FrontValue): string {
  if (typeof value === "string") return yamlScalar(value);
  if (Array.isArray(value)) return `[${value.map(yamlScalar).join(", ")}]`;
  const map = value as Readonly<Record<string, boolean>>;
  return `{${Object.entries(map)
    .map(([k, v]) => `${yamlScalar(k)}: ${v}`)
    .join(", ")}}`;
}

/** `---`, `key: value` per field, `---`, then the body; no front matter when there are no fields. */
export function encodeFrontMatter(fields: readonly (readonly [string, FrontValue])[], body: string): string {
  if (fields.length === 0) return body;
  const lines = fields.map(([key, value]) => `${yamlScalar(key)}: ${yamlValue(value)}`);
  return `---\n${lines.join("\n")}\n---\n${body}`;
}
