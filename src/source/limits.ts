/**
 * What kanon.yaml must respect: the limits that bound the work of reading it (read-yaml.ts, decode.ts)
 * and what its values may hold.
 */

/**
 * Values decoded through aliases and merge keys, at most, beyond one per byte of the file: aliases
 * can make a small file stand for an enormous one ("billion laughs"); real homes repeat a few blocks.
 */
export const MAX_ALIASED_VALUES = 100_000;

/**
 * Levels of lists and mappings inside one another (a scalar being read counts one) past which
 * kanon.yaml is refused: real homes nest fewer than ten, and every level costs stack and time in the
 * YAML library.
 */
export const MAX_NESTING = 100;

/**
 * Keys and values (each list, mapping and scalar written in the file, an alias counting one) that
 * kanon.yaml may hold: the large home of `npm run bench` has about 15,000. Past this the file is
 * refused where the count is crossed, so that `validate` stays well under two seconds on any file.
 */
export const MAX_VALUES = 50_000;

/**
 * Characters of kanon.yaml, at most: the large home of `npm run bench` has about 150,000. Within the
 * limits above, reading this many takes the YAML library well under a second.
 */
export const MAX_CHARACTERS = 2 * 1024 * 1024;

/** Names that would reach an object's prototype when used as keys. */
export const RESERVED_NAMES = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Why a string cannot be given to an agent, or null: a NUL (argv, environment and C strings end
 * there), an unpaired surrogate (no UTF-8 for it), and in names (map keys, targets) any control character.
 */
export function unwritableChar(s: string, isName: boolean): string | null {
  // A surrogate range in a /u class matches only unpaired surrogates (\p{Cs} would too, but makes
  // V8 build an ICU set on every run).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  const m = (isName ? /[\u0000-\u001f\u007f]|[\uD800-\uDFFF]/u : /\u0000|[\uD800-\uDFFF]/u).exec(s);
  if (!m) return null;
  const code = m[0].charCodeAt(0);
  const hex = code.toString(16).toUpperCase().padStart(4, "0");
  if (code === 0) return "contains a NUL character, which no agent can take";
  if (code >= 0xd800) return `contains an unpaired surrogate U+${hex}, which cannot be written as UTF-8`;
  return `contains the control character U+${hex}, which is not allowed in a name`;
}
