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
  // Numbers of any YAML version (1e3, 0x1F, 0o7, 1_000, .5, 1.) stay strings only when quoted; the
  // `yaml` library's YAML 1.1 reads an exponent without digits before it (e1, E5) as a float (NaN).
  return !/^[-+]?((\d[\d_]*)?(\.[\d_]*)?([eE][-+]?\d+)?|0x[\da-fA-F_]+|0o?[0-7_]+|0b[01_]+|\d+(:\d+)+)$/.test(
    text,
  );
}

/** A string as a YAML scalar; `flow`: inside a flow list or map, where `,` ends a plain scalar. */
export function yamlScalar(text: string, flow = false): string {
  return isPlain(text) && !(flow && text.includes(",")) ? text : JSON.stringify(text);
}

/** A front-matter value: a string, a list of strings, or a map of names to strings or booleans. */
export type FrontValue = string | readonly string[] | Readonly<Record<string, string | boolean>>;

function yamlValue(value: FrontValue): string {
  if (typeof value === "string") return yamlScalar(value);
  if (Array.isArray(value)) return `[${value.map((v) => yamlScalar(v, true)).join(", ")}]`;
  const map = value as Readonly<Record<string, string | boolean>>;
  return `{${Object.entries(map)
    .map(([k, v]) => `${yamlScalar(k, true)}: ${typeof v === "string" ? yamlScalar(v, true) : v}`)
    .join(", ")}}`;
}

/** `---`, `key: value` per field, `---`, then the body; no front matter when there are no fields. */
export function encodeFrontMatter(fields: readonly (readonly [string, FrontValue])[], body: string): string {
  // A body whose first line is `---` would be read as front matter: an empty one goes before it.
  if (fields.length === 0)
    return /^\uFEFF?---[ \t]*\r?$/m.test(body.split("\n", 1)[0]!) ? `---\n---\n${body}` : body;
  const lines = fields.map(([key, value]) => `${yamlScalar(key)}: ${yamlValue(value)}`);
  return `---\n${lines.join("\n")}\n---\n${body}`;
}
