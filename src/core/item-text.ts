/**
 * The text of a command or subagent file for one agent: the body's argument placeholders spelt the
 * agent's way (core/items.ts decides the rest), what the agent does with other text in the body, and
 * the file in the agent's format (Markdown with front matter, or TOML).
 */
import { encodeFrontMatter, type FrontValue } from "../formats/front-matter.js";
import { encodeTomlKey, encodeTomlMultiline, encodeTomlValue } from "../formats/toml.js";
import type { ArgumentSpelling, BodyNote, ItemFormat } from "../model/manifest.js";
import { newlines } from "../model/text.js";

export type { FrontValue };

/** Neutral placeholders: the whole argument string, and the arguments one by one. */
const PLACEHOLDER = /\$(ARGUMENTS|[1-9])(?![0-9])/;

export interface TranslatedBody {
  text: string;
  /** One line per placeholder spelt otherwise (`$1 → $0`), or per reserved text escaped. */
  translations: string[];
  notes: string[];
}

/** Why the body cannot be written for the agent, and on which of its lines (0: the first). */
interface BodyMissing {
  missing: { capability: string; detail: string; line: number };
}

/**
 * The body with each neutral placeholder spelt the agent's way and each piece of text the agent
 * would replace (its own placeholder syntax) escaped; or the first thing the agent cannot take.
 */
export function translateArguments(
  body: string,
  spelling: ArgumentSpelling,
  agent: string,
): TranslatedBody | BodyMissing {
  const reserved = spelling.reserved;
  const pattern = new RegExp(
    reserved ? `${PLACEHOLDER.source}|(${reserved.pattern})` : PLACEHOLDER.source,
    "g",
  );
  const translations = new Set<string>();
  let missing: BodyMissing["missing"] | null = null;
  let highest = 0;
  const text = body.replace(pattern, (whole: string, which: string | undefined, ...rest: unknown[]) => {
    const offset = rest.at(-2) as number;
    const line = newlines(body, offset);
    if (which === undefined) {
      // Text the agent would replace: escaped where it can be, else the command is left out.
      if (reserved?.escape === undefined) {
        missing ??= { capability: `the text ${whole}`, detail: `${agent} ${reserved!.does}`, line };
        return whole;
      }
      translations.add(`${whole} → ${reserved.escape}${whole}: ${agent} ${reserved.does}`);
      return `${reserved.escape}${whole}`;
    }
    const native = nativePlaceholder(which, spelling);
    if (native === null) {
      const what = which === "ARGUMENTS" ? "placeholder for the arguments" : "positional arguments";
      missing ??= { capability: `placeholder ${whole}`, detail: `${agent} has no ${what}`, line };
      return whole;
    }
    if (which !== "ARGUMENTS") highest = Math.max(highest, Number(which));
    if (native !== whole) translations.add(`${whole} → ${native}`);
    return native;
  });
  if (missing) return { missing };
  const notes =
    highest > 0 && spelling.positional?.restToLast
      ? [`${agent} gives $${highest}, the last placeholder, the arguments after it too`]
      : [];
  return { text, translations: [...translations], notes };
}

function nativePlaceholder(which: string, spelling: ArgumentSpelling): string | null {
  if (which === "ARGUMENTS") return spelling.all;
  if (!spelling.positional) return null;
  const n = Number(which) - 1 + spelling.positional.base;
  return spelling.positional.spelling.replace("{n}", String(n));
}

/** What the agent does with text in the body, one note per kind of text found. */
export function bodyNotes(body: string, notes: readonly BodyNote[] | undefined): string[] {
  return (notes ?? []).filter((n) => new RegExp(n.pattern).test(body)).map((n) => n.note);
}

/** The file's text in the agent's format: front matter and body, or TOML keys and the body under `prompt`. */
export function itemText(
  format: ItemFormat,
  front: readonly (readonly [string, FrontValue])[],
  body: string,
): string {
  if (format.kind === "markdown") return encodeFrontMatter(front, body);
  const lines = front.map(([k, v]) => `${encodeTomlKey(k)} = ${encodeTomlValue(v)}`);
  return `${[...lines, `${encodeTomlKey(format.prompt)} = ${encodeTomlMultiline(body)}`].join("\n")}\n`;
}
