/**
 * TOML's syntax tree (toml-eslint-parser), which the layout-preserving editor and Kimi's hook import
 * read positions from, made only of a text within what the parser reads (toml-limits.ts).
 */
import { type AST, ParseError, parseTOML } from "toml-eslint-parser";
import { tomlSyntaxProblem } from "./toml-limits.js";
import { forParsing } from "./utf8.js";

export type { AST };

/** A TOML text kanon cannot read; `message` says why and where. */
export class TomlSyntaxError extends Error {}

/** The syntax tree of a TOML text, or a TomlSyntaxError saying why there is none (never a stack overflow). */
export function parseTomlSyntax(text: string): AST.TOMLProgram {
  const problem = tomlSyntaxProblem(text);
  if (problem) throw new TomlSyntaxError(problem);
  try {
    return parseTOML(forParsing(text), { tomlVersion: "1.1" });
  } catch (error) {
    if (error instanceof ParseError)
      throw new TomlSyntaxError(`${error.message} at ${error.lineNumber}:${error.column + 1}`);
    // Deeper in the stack than the limit allows for: refused all the same, never a bare RangeError.
    if (error instanceof RangeError) throw new TomlSyntaxError(`too large to read (${error.message})`);
    throw error;
  }
}
