/**
 * Where things are in a TOML document: every table header with the lines its block spans, and every
 * key/value statement with its absolute key path. Positions come from toml-eslint-parser's syntax
 * tree (ranges, keys decoded); values are read with smol-toml elsewhere.
 */
import { type AST, parseTomlSyntax, TomlSyntaxError } from "../../formats/toml-syntax.js";
import { cannotParse } from "./errors.js";

export type { AST };

import { lineStart, nextLineStart } from "./text.js";

export type KeyPath = readonly string[];

/** A `key = value` statement at the root or in a table's body (not inside an inline table). */
export interface TomlStatement {
  /** The path of the table it belongs to ([] for the root). */
  tablePath: KeyPath;
  /** tablePath followed by the statement's (possibly dotted) key. */
  path: KeyPath;
  node: AST.TOMLKeyValue;
}

/** A `[table]` or `[[array.table]]` header and the lines of its block. */
export interface TomlTableBlock {
  path: KeyPath;
  node: AST.TOMLTable;
  /** Start of the header's line. */
  start: number;
  /** Start of the line after the last key/value (comments and blank lines after it are not included). */
  end: number;
  hasKeyValues: boolean;
}

export interface TomlLayout {
  statements: TomlStatement[];
  /** In document order. */
  tables: TomlTableBlock[];
}

export function readTomlLayout(text: string, path: string): TomlLayout {
  let program: AST.TOMLProgram;
  try {
    program = parseTomlSyntax(text);
  } catch (error) {
    if (!(error instanceof TomlSyntaxError)) throw error;
    throw cannotParse(path, error.message);
  }
  const statements: TomlStatement[] = [];
  const tables: TomlTableBlock[] = [];
  for (const item of program.body[0].body) {
    if (item.type === "TOMLKeyValue") {
      statements.push({ tablePath: [], path: keyPath(item.key), node: item });
      continue;
    }
    const tablePath = keyPath(item.key);
    for (const node of item.body)
      statements.push({ tablePath, path: [...tablePath, ...keyPath(node.key)], node });
    tables.push({
      path: tablePath,
      node: item,
      start: lineStart(text, item.range[0]),
      end: nextLineStart(text, item.range[1]),
      hasKeyValues: item.body.length > 0,
    });
  }
  return { statements, tables };
}

/** The decoded segments of a possibly dotted, possibly quoted key. */
export function keyPath(key: AST.TOMLKey): string[] {
  return key.keys.map((segment) => (segment.type === "TOMLBare" ? segment.name : segment.value));
}

export function isPrefix(prefix: KeyPath, path: KeyPath): boolean {
  return prefix.length <= path.length && prefix.every((segment, i) => segment === path[i]);
}

export function isProperPrefix(prefix: KeyPath, path: KeyPath): boolean {
  return prefix.length < path.length && isPrefix(prefix, path);
}
