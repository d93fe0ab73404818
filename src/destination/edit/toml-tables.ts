/**
 * Kanon's tables in a TOML array of tables that the user also edits (Kimi Code `[[hooks]]` in
 * config.toml). Kanon's tables are the ones whose header line ends with `# <marker>: …`; they are
 * rewritten together where the first of them was (appended when there is none). The user's tables,
 * comments and blank lines stay byte for byte.
 */
import { parse as parseTomlText, TomlError } from "smol-toml";
import { encodeMarkedTables, ownerLabel } from "../../formats/toml.js";
import { deepEqual, isPlainObject, type PlainObject, withMember } from "../../formats/values.js";
import type { MergeSpec } from "../../model/types.js";
import { cannotEdit, cannotParse, verified } from "./errors.js";
import { applyEdits, detectEol, isBlankLine, nextLineStart, type TextEdit } from "./text.js";
import { isProperPrefix, readTomlLayout, type TomlTableBlock } from "./toml-layout.js";

type Spec = Extract<MergeSpec, { kind: "tables" }>;

export function mergeTomlTables(text: string, spec: Spec, desired: unknown, path: string): string {
  if (!Array.isArray(desired) || !desired.every(isPlainObject))
    throw cannotEdit(path, `kanon's ${spec.key} is not an array of tables`);
  const fresh = encodeMarkedTables(spec.key, desired, spec.marker, spec.labels);
  if (text.trim() === "") return fresh;

  const existing = parseToml(text, path);
  const current = existing[spec.key];
  if (current !== undefined && !(Array.isArray(current) && current.every(isPlainObject)))
    throw cannotEdit(path, `${spec.key} is not an array of tables`);
  const layout = readTomlLayout(text, path);
  if (layout.statements.some((s) => s.path[0] === spec.key && s.tablePath.length === 0))
    throw cannotEdit(path, `${spec.key} is an inline array; kanon edits [[${spec.key}]] tables only`);
  const blocks = layout.tables.filter((t) => t.path.length === 1 && t.path[0] === spec.key);
  if (layout.tables.some((t) => isProperPrefix([spec.key], t.path)))
    throw cannotEdit(path, `${spec.key} has sub-tables; kanon edits flat [[${spec.key}]] tables only`);

  const owned = blocks.map((b) => ownedBy(text, b, spec.marker));
  const items = (current ?? []) as PlainObject[];
  const firstOwned = owned.indexOf(true);
  const kept = items.filter((_, i) => !owned[i]);
  const at = firstOwned < 0 ? kept.length : owned.slice(0, firstOwned).filter((o) => !o).length;
  const intended = [...kept.slice(0, at), ...desired, ...kept.slice(at)];
  if (deepEqual(intended, items)) return text;

  const eol = detectEol(text);
  const content = fresh.replaceAll("\n", eol);
  const edits: TextEdit[] = [];
  blocks.forEach((block, i) => {
    if (!owned[i]) return;
    if (i === firstOwned) {
      // Taken out for good: with the blank lines before it, which kanon added as its separator.
      const start = content === "" ? blankLinesBefore(text, block.start) : block.start;
      edits.push({ offset: start, length: block.end - start, content });
      return;
    }
    // Later kanon tables go with the blank lines before them (their separator).
    let start = block.start;
    const previousEnd = i > 0 ? blocks[i - 1]!.end : 0;
    if (allBlank(text, previousEnd, start)) start = previousEnd;
    edits.push({ offset: start, length: block.end - start, content: "" });
  });
  if (firstOwned < 0 && desired.length > 0) {
    const separator = text.endsWith("\n") ? "" : eol;
    edits.push({ offset: text.length, length: 0, content: `${separator}${eol}${content}` });
  }
  const result = applyEdits(text, edits);
  const document = withMember(existing, spec.key, intended);
  if (intended.length === 0) delete document[spec.key];
  return verified(result, path, () => deepEqual(parseToml(result, path), document));
}

/** True when the block's header line ends with the owner comment `# <marker>:` (or `# <marker>`). */
function ownedBy(text: string, block: TomlTableBlock, marker: string): boolean {
  const headerEnd = block.node.key.range[1];
  const lineEnd = nextLineStart(text, headerEnd);
  return ownerLabel(text.slice(headerEnd, lineEnd), marker) !== null;
}

/** The start of the run of blank lines that ends at `start` (a line start); `start` when there is none. */
function blankLinesBefore(text: string, start: number): number {
  let s = start;
  while (s > 0) {
    const lineStart = text.lastIndexOf("\n", s - 2) + 1;
    if (!isBlankLine(text, lineStart)) break;
    s = lineStart;
  }
  return s;
}

function allBlank(text: string, from: number, to: number): boolean {
  for (let offset = from; offset < to; offset = nextLineStart(text, offset)) {
    if (!isBlankLine(text, offset)) return false;
  }
  return true;
}

function parseToml(text: string, path: string): PlainObject {
  try {
    return parseTomlText(text) as PlainObject;
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = (error.message.split("\n")[0] ?? "").replace(/^Invalid TOML document: /, "");
    throw cannotParse(path, `${reason} at ${error.line}:${error.column}`);
  }
}
