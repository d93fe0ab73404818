/**
 * How deeply lists and objects nest in a JSON, JSONC or TOML text, found by one scan (no parse). The
 * parsers and every walk over their values recurse once per level: a hostile 10,000-deep
 * `~/.claude.json` would overflow the stack, so a document nested past MAX_DOCUMENT_NESTING is
 * refused before it is parsed. Real agent settings nest fewer than twenty levels.
 */
export const MAX_DOCUMENT_NESTING = 500;

/**
 * The deepest nesting of `[` and `{` outside strings and comments (JSON and JSONC strings, `//` and
 * `/* *\/` comments; TOML basic, literal and multi-line strings, `#` comments). Stops counting once
 * past `max`.
 */
export function nestingDepth(text: string, format: "json" | "jsonc" | "toml", max = Infinity): number {
  let depth = 0;
  let deepest = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      // [ {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > max) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    } else if (c === 0x22 || (c === 0x27 && format === "toml")) {
      // A string: skip to its end (TOML's """ and ''' too; escapes only in "…").
      const quote = text[i]!;
      const triple = format === "toml" && text.startsWith(quote.repeat(3), i);
      const end = triple ? quote.repeat(3) : quote;
      let j = i + end.length;
      while (j < n && !text.startsWith(end, j)) j += quote === '"' && text[j] === "\\" ? 2 : 1;
      i = j + end.length - 1;
    } else if (format === "toml" && c === 0x23) {
      const nl = text.indexOf("\n", i);
      i = nl < 0 ? n : nl;
    } else if (format === "jsonc" && c === 0x2f && text[i + 1] === "/") {
      const nl = text.indexOf("\n", i);
      i = nl < 0 ? n : nl;
    } else if (format === "jsonc" && c === 0x2f && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      i = close < 0 ? n : close + 1;
    }
  }
  return deepest;
}

/** Why a document cannot be read, or null: nested too deeply (see MAX_DOCUMENT_NESTING). */
export function nestingProblem(text: string, format: "json" | "jsonc" | "toml"): string | null {
  return nestingDepth(text, format, MAX_DOCUMENT_NESTING) > MAX_DOCUMENT_NESTING
    ? `lists or objects are nested more than ${MAX_DOCUMENT_NESTING} levels deep`
    : null;
}
