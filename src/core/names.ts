/**
 * The one destination boundary: every path kanon writes is an agent's destination root joined with
 * names that are single path segments of a safe alphabet. Names come from places kanon does not
 * control — a Kanon home someone else can push to, a provider repository, an import, the ownership
 * record — so a name is checked here, where destinations are computed, not by each caller.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { hasActingChar } from "../model/visible.js";

/**
 * A skill's folder name: letters, digits and marks of any script, `_ . - : @ + ~ , =`; not starting
 * with `.` or `-` (so never `.` or `..`, never hidden, never read as an option), at most 255 bytes.
 * `:` is in it for provider skills (`agent-skills:code-reviewer`).
 */
const safeSegment = (name: string) => /^[\p{L}\p{N}_@+~,=][\p{L}\p{N}\p{M}_.:@+~,=-]*$/u.test(name);
/**
 * safeSegment for ASCII names (the usual case): the same answer, without building the Unicode sets
 * of \p{L}, \p{N} and \p{M}, which cost a run about 18 M instructions, a fifth of `node -e 0`'s
 * (valgrind, Node 20.20). V8 builds them when the literal is first evaluated, not when it is first
 * used: hence a literal inside a function, not one at the top of this module (which cost every run
 * 2.9 M instructions, 1.2% of a `diff` of the example home).
 */
const SAFE_ASCII_SEGMENT = /^[A-Za-z0-9_@+~,=][A-Za-z0-9_.:@+~,=-]*$/;

export const SAFE_SEGMENT_TEXT =
  "one folder name of letters, digits and . _ - : @ + ~ , = (not starting with . or -)";

/** Why `name` cannot be one path segment of a destination, or null. */
export function segmentProblem(name: string): string | null {
  if (name === "") return "is empty";
  const bytes = Buffer.byteLength(name);
  if (bytes > 255) return "is longer than 255 bytes";
  // As many UTF-8 bytes as characters: all ASCII.
  if (!(bytes === name.length ? SAFE_ASCII_SEGMENT.test(name) : safeSegment(name)))
    return `is not ${SAFE_SEGMENT_TEXT}`;
  return null;
}

const ITEM_NAME_TEXT = "one name of letters, digits and . _ - @ + ~ , = (not starting with . or -)";

/**
 * Why `name` cannot name a command or subagent, or null: it is a file name (`<name>.md`, `<name>.toml`)
 * in the agent's folder, so a safe segment with room for the extension, and without `:`, which Claude
 * Code reads as a namespace (`ns:name`) and refuses in a subagent's name.
 */
export function itemNameProblem(name: string): string | null {
  if (name.includes(":")) return 'contains ":", which agents read as a namespace';
  const problem = segmentProblem(name);
  if (problem?.startsWith("is not ")) return `is not ${ITEM_NAME_TEXT}`;
  if (problem) return problem;
  if (Buffer.byteLength(name) > 250) return "is longer than 250 bytes";
  return null;
}

/**
 * Why `name` (a hook's or an MCP server's) cannot be shown and written as it is, or null: it must not
 * hold a character that acts on a terminal (model/visible.ts) or ends a comment or a line in a native
 * file.
 */
export function nameProblem(name: string): string | null {
  if (hasActingChar(name)) return "contains a control, format or line-separator character";
  return null;
}

/**
 * Why a file's path relative to its skill folder (`/`-separated, from a walk of a real directory)
 * cannot be written under it, or null: every segment must be a real name (no `..`), without a
 * character that acts on a terminal.
 */
export function relativeProblem(rel: string): string | null {
  for (const part of rel.split("/")) {
    if (part === "" || part === "." || part === "..") return `has the path segment ${JSON.stringify(part)}`;
    if (part.includes("\\") || part.includes("\u0000")) return "has a backslash or a NUL";
  }
  return null;
}

/** Whether `path` is `dir` or below it (both absolute; compared as written, no symlinks resolved). */
export function isInside(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}
