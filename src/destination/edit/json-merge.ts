/** Merging kanon's entries into a JSON or JSONC file that users also edit (comments allowed in both). */
import { type Node, type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";
import { encodeJson } from "../../formats/json.js";
import { deepEqual, isPlainObject, type PlainObject, setOwn } from "../../formats/values.js";
import type { MergeSpec } from "../../model/types.js";
import { cannotParse, notAnObject, topLevelNotObject, verified } from "./errors.js";
import { intendedDocument } from "./intended.js";
import { findMember, JsonEditor, memberValue, nodeValue } from "./json-editor.js";
import { partialTree, scanTopLevel, type TopLevel } from "./json-top-level.js";
import { applyEdits, detectEol, lineColumn } from "./text.js";

/** `remove`: names of kanon's entries to take out (an `entries` merge). */
export function mergeJson(
  text: string,
  spec: MergeSpec,
  desired: unknown,
  path: string,
  remove: readonly string[] = [],
): string {
  const strict = parseStrict(text);
  const top = strict.ok && isPlainObject(strict.value) ? scanTopLevel(text) : undefined;
  if (strict.ok && top !== undefined)
    return mergeStrict(text, spec, desired, path, strict.value as PlainObject, top, remove);

  const root = parseLenient(text, path);
  if (root === undefined) return appendToCommentsOnly(text, spec, desired, path);
  if (root.type !== "object") throw topLevelNotObject(path);
  const result = edit(text, root, spec, desired, path, remove);
  if (result === text) return text;
  const intended = intendedDocument(nodeValue(root) as PlainObject, spec, desired, remove);
  return verified(result, path, () => deepEqual(nodeValue(parseLenient(result, path)!), intended));
}

/** Strict JSON (what Claude Code writes), however big: only the managed member is parsed into a tree. */
function mergeStrict(
  text: string,
  spec: MergeSpec,
  desired: unknown,
  path: string,
  existing: PlainObject,
  top: TopLevel,
  remove: readonly string[],
): string {
  const result = edit(text, partialTree(text, top, spec.key), spec, desired, path, remove);
  if (result === text) return text;
  const intended = intendedDocument(existing, spec, desired, remove)[spec.key];
  // Verify without a second full parse: every other member's text must be unchanged (so its value
  // is, since the existing text parsed), and the managed member must parse to the intended value.
  return verified(result, path, () => {
    const after = scanTopLevel(result);
    if (after === undefined) return false;
    if (!deepEqual(otherMembers(text, top, spec.key), otherMembers(result, after, spec.key))) return false;
    const managed = after.members.findLast((member) => member.key === spec.key);
    return (
      managed !== undefined &&
      deepEqual(JSON.parse(result.slice(managed.valueOffset, managed.valueEnd)), intended)
    );
  });
}

/** The edits that put `desired` into the document; the text itself when nothing changes. */
function edit(
  text: string,
  root: Node,
  spec: MergeSpec,
  desired: unknown,
  path: string,
  remove: readonly string[],
): string {
  const member = findMember(root, spec.key);
  const editor = new JsonEditor(text, root);
  if (spec.kind === "entries" && member !== undefined) {
    const entries = memberValue(member);
    if (entries.type !== "object") throw notAnObject(path, spec.key);
    const current = nodeValue(entries) as PlainObject;
    if (remove.some((name) => Object.hasOwn(current, name))) {
      // The kept entries as they are, kanon's as rendered: only the removed members' text goes.
      const kept: PlainObject = {};
      for (const name of Object.keys(current)) if (!remove.includes(name)) setOwn(kept, name, current[name]);
      for (const name of Object.keys(desired as PlainObject))
        setOwn(kept, name, (desired as PlainObject)[name]);
      editor.setMembers(entries, kept, true);
    } else {
      editor.setMembers(entries, desired as PlainObject, false);
    }
  } else {
    editor.setMembers(root, { [spec.key]: desired }, false);
  }
  return editor.edits.length === 0 ? text : applyEdits(text, editor.edits);
}

/** The text of each top-level member other than `key` (the last one of a repeated key counts). */
function otherMembers(text: string, top: TopLevel, key: string): Record<string, string> {
  const texts: Record<string, string> = Object.create(null);
  for (const member of top.members) {
    if (member.key !== key) texts[member.key] = text.slice(member.valueOffset, member.valueEnd);
  }
  return texts;
}

function parseStrict(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The syntax tree, allowing comments and trailing commas; undefined for a comment-only text. */
export function parseLenient(text: string, path: string): Node | undefined {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, {
    allowTrailingComma: true,
    disallowComments: false,
    allowEmptyContent: true,
  });
  const error = errors[0];
  if (error !== undefined) {
    const { line, column } = lineColumn(text, error.offset);
    throw cannotParse(path, `${describeError(error)} at ${line}:${column}`);
  }
  return root;
}

/** "CloseBraceExpected" → "close brace expected". */
function describeError(error: ParseError): string {
  return printParseErrorCode(error.error)
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase();
}

/** A JSONC file holding only comments: keep them and add the managed document after them. */
function appendToCommentsOnly(text: string, spec: MergeSpec, desired: unknown, path: string): string {
  const eol = detectEol(text);
  const managed = { [spec.key]: desired };
  const fresh = encodeJson(managed).replaceAll("\n", eol);
  const result = `${text}${text.endsWith("\n") ? "" : eol}${fresh}`;
  return verified(result, path, () => deepEqual(nodeValue(parseLenient(result, path)!), managed));
}
