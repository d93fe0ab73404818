/**
 * Reading a neutral (Claude-dialect) matcher and writing it in another agent's dialect. The dialects
 * themselves are data in each manifest; this is the one mechanism that reads them.
 */
import type { Matcher, MatcherDialect } from "../../model/manifest.js";

/** Claude's rule: only these characters make an exact list (split on | or ,); anything else is a regex. */
const NEUTRAL_EXACT = /^[A-Za-z0-9_|, -]+$/;

export function parseNeutralMatcher(text: string | undefined): Matcher {
  const t = text ?? "";
  if (t === "" || t === "*") return { kind: "all" };
  if (NEUTRAL_EXACT.test(t)) {
    const names = t
      .split(/[|,]/)
      .map((n) => n.trim())
      .filter((n) => n !== "");
    return names.length === 0 ? { kind: "all" } : { kind: "names", names };
  }
  return { kind: "regex", source: t };
}

/** Names that a dialect reads as plain exact names (characters that are not regex syntax). */
const PLAIN_NAME = /^[A-Za-z0-9_]+$/;

/**
 * The text that makes `dialect` match exactly `names`: a plain list joined by the dialect's first
 * separator when every name is plain, else an anchored regex (an unanchored list entry such as
 * `my-server` would otherwise also match `my-server-2`).
 */
export function writeNames(names: string[], dialect: MatcherDialect): string {
  const sep = dialect.listSeparators[0];
  // A dialect without exact lists (a plain regex, unanchored) needs the anchors even for plain names.
  if (sep !== undefined && names.every((n) => PLAIN_NAME.test(n))) return names.join(sep);
  return `^(?:${names.map(escapeRegex).join("|")})$`;
}

/**
 * The names of an anchored list `^(?:a|b)$` that `writeNames` wrote for a regex-only dialect, or null
 * when `text` is not one (import reads it back as the exact list it came from).
 */
export function readNames(text: string, dialect: MatcherDialect): string[] | null {
  if (dialect.listSeparators.length > 0 || !text.startsWith("^(?:") || !text.endsWith(")$")) return null;
  const names: string[] = [];
  let name = "";
  for (let i = 4; i < text.length - 2; i++) {
    const ch = text.charAt(i);
    if (ch === "\\") {
      const next = text.charAt(++i);
      if (!ESCAPED.includes(next)) return null;
      name += next;
    } else if (ch === "|") {
      names.push(name);
      name = "";
    } else if (ESCAPED.includes(ch)) return null;
    else name += ch;
  }
  names.push(name);
  if (names.some((n) => n === "")) return null;
  return writeNames(names, dialect) === text ? names : null;
}

/** True when `text` already reads as this exact list of names in `dialect`. */
export function isNativeList(text: string, names: string[], dialect: MatcherDialect): boolean {
  if (dialect.listSeparators.length === 0) return false;
  if (!names.every((n) => PLAIN_NAME.test(n))) return false;
  const parts = splitOn(text, dialect.listSeparators).map((p) => (dialect.trimsSpaces ? p.trim() : p));
  return parts.length === names.length && parts.every((p, i) => p === names[i]);
}

function splitOn(text: string, separators: string[]): string[] {
  let parts = [text];
  for (const s of separators) parts = parts.flatMap((p) => p.split(s));
  return parts;
}

/** The characters `escapeRegex` escapes. */
const ESCAPED = ".*+?^${}()|[]\\-";

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");
}

/** JavaScript regex features that Rust's regex crate rejects (it has no lookaround or backreferences). */
const JS_ONLY = /\(\?<?[=!]|\\[1-9]|\\k</;

export function regexProblem(source: string, flavour: MatcherDialect["regex"]): string | null {
  try {
    new RegExp(source);
  } catch {
    return "is not a valid regular expression";
  }
  if (flavour === "rust" && JS_ONLY.test(source)) {
    return "uses lookaround or backreferences, which Rust regex does not support";
  }
  return null;
}
