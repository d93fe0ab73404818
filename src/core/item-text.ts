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
    // The agent's escape right before it (`\$1` for Claude Code) would make it plain text.
    const esc = reserved?.escape;
    if (esc !== undefined && body.startsWith(esc, offset - esc.length)) {
      missing ??= {
        capability: `the text ${esc}${whole}`,
        detail: `${agent} reads ${esc} before it as an escape`,
        line,
      };
      return whole;
    }
    if (which === undefined) {
      // Text the agent would replace: escaped where it can be, else the command is left out.
      if (reserved?.escape === undefined) {
        missing ??= { capability: `the text ${whole}`, detail: `${agent} ${reserved!.does}`, line };
        return whole;
      }
      translations.add(`${whole} → ${reserved.escape}${whole}: ${agent} ${reserved.does}`);
      return `${reserved.escape}${whole}`;
    }
    const next = offset + whole.length;
    const native = nativePlaceholder(which, spelling, WORD_CHAR.test(body.charAt(next)));
    if (native === null) {
      const what = which === "ARGUMENTS" ? "placeholder for the arguments" : "positional arguments";
      missing ??= { capability: `placeholder ${whole}`, detail: `${agent} has no ${what}`, line };
      return whole;
    }
    const readsOn = which === "ARGUMENTS" ? spelling.allReadsOn : undefined;
    const runOn = readsOn && matchAt(body, next, readsOn.pattern);
    if (runOn) {
      missing ??= {
        capability: `placeholder ${whole} before ${runOn}`,
        detail: `${agent} ${readsOn.does}`,
        line,
      };
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

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A body as the agent reads it, back to the neutral one (kanon import): the agent's spelling of the
 * arguments as `$ARGUMENTS`, its positional ones (either spelling) as `$1`…`$9`, escaped text as the
 * text. A native placeholder with no neutral spelling (an argument past the ninth) is why the body
 * cannot come back.
 */
export function neutralArguments(
  body: string,
  spelling: ArgumentSpelling,
): { text: string } | { problem: string } {
  const reserved = spelling.reserved;
  const index = (form: string | undefined, group: string) => {
    const [before, after] = form?.split("{n}") ?? [];
    return form ? `${escapeRegex(before!)}(?<${group}>\\d+)${escapeRegex(after!)}` : null;
  };
  const parts = [
    reserved?.escape !== undefined ? `${escapeRegex(reserved.escape)}(?<escaped>${reserved.pattern})` : null,
    // Before `all`, which it may start with (`$ARGUMENTS[0]`).
    index(spelling.positional?.beforeWord, "word"),
    spelling.all === null ? null : `(?<all>${escapeRegex(spelling.all)})`,
    index(spelling.positional?.spelling, "index"),
  ].filter((p): p is string => p !== null);
  if (parts.length === 0) return { text: body };
  let problem: string | null = null;
  const text = body.replace(new RegExp(parts.join("|"), "g"), (whole: string, ...rest: unknown[]) => {
    const groups = rest.at(-1) as { escaped?: string; word?: string; all?: string; index?: string };
    if (groups.escaped !== undefined) return groups.escaped;
    if (groups.all !== undefined) return "$ARGUMENTS";
    const n = Number(groups.word ?? groups.index) - spelling.positional!.base + 1;
    if (n >= 1 && n <= 9) return `$${n}`;
    problem ??= `its ${whole} has no neutral spelling (kanon's placeholders are $1 to $9)`;
    return whole;
  });
  return problem ? { problem } : { text };
}

/** The text `pattern` matches at `at` in `text`, or null. */
function matchAt(text: string, at: number, pattern: string): string | null {
  const re = new RegExp(pattern, "y");
  re.lastIndex = at;
  return re.exec(text)?.[0] ?? null;
}

/** A letter, digit or `_` (what `\w` is): text a placeholder right before it may run on into. */
const WORD_CHAR = /^\w$/;

/** The agent's spelling of a neutral placeholder (`beforeWord`: right before a letter, digit or `_`). */
function nativePlaceholder(which: string, spelling: ArgumentSpelling, beforeWord: boolean): string | null {
  if (which === "ARGUMENTS") return spelling.all;
  const p = spelling.positional;
  if (!p) return null;
  const n = Number(which) - 1 + p.base;
  return ((beforeWord && p.beforeWord) || p.spelling).replace("{n}", String(n));
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
