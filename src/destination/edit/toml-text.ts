/**
 * The text edits the TOML editors make, as offsets into the original text: replacing a node,
 * deleting a statement's lines, inserting whole lines, appending a block, in the file's line endings.
 */
import { encodeTomlKey, encodeTomlTable, encodeTomlValue, type TomlQuotes } from "../../formats/toml.js";
import type { PlainObject } from "../../formats/values.js";
import { cannotEdit } from "./errors.js";
import { detectEol, isBlankLine, lineStart, nextLineStart, type TextEdit } from "./text.js";
import type { AST, TomlLayout } from "./toml-layout.js";

export class TomlText {
  readonly edits: TextEdit[] = [];
  readonly eol: string;
  /** How the values and keys written now quote their strings (like those of the entry being edited). */
  quotes: TomlQuotes = "literal";

  constructor(
    readonly text: string,
    readonly layout: TomlLayout,
    readonly path: string,
  ) {
    this.eol = detectEol(text);
  }

  value(value: unknown): string {
    return encodeTomlValue(value, this.quotes);
  }

  key(key: string): string {
    return encodeTomlKey(key, this.quotes);
  }

  table(at: readonly string[], value: PlainObject): string {
    return encodeTomlTable(at, value, this.quotes);
  }

  replaceRange(start: number, end: number, content: string): void {
    this.edits.push({ offset: start, length: end - start, content });
  }

  replaceNode(node: AST.TOMLContentNode, content: string): void {
    this.replaceRange(node.range[0], node.range[1], content);
  }

  /** Deletes the lines of a `key = value` statement (a multi-line value too, with its end-of-line comment). */
  deleteLines(node: AST.TOMLKeyValue): void {
    this.replaceRange(lineStart(this.text, node.range[0]), nextLineStart(this.text, node.range[1]), "");
  }

  /** Inserts lines (ending in "\n") at a line start; at the end of a text without a final newline, one goes first. */
  insertLines(offset: number, lines: string): void {
    if (offset === this.text.length && !this.text.endsWith("\n")) {
      this.replaceRange(offset, offset, this.withEol(`\n${lines.slice(0, -1)}`));
    } else {
      this.replaceRange(offset, offset, this.withEol(lines));
    }
  }

  /** Appends a block at the end of the document, after one blank line. */
  appendAtEnd(block: string): void {
    const text = this.text;
    const endsWithBlankLine = /(^|\n)[ \t]*\r?\n$/.test(text);
    const separator = text.endsWith("\n") ? (endsWithBlankLine ? "" : "\n") : "\n\n";
    const body = text.endsWith("\n") ? block : block.slice(0, -1);
    this.replaceRange(text.length, text.length, this.withEol(`${separator}${body}`));
  }

  /** The start of the blank lines that end right before the line start `offset` (`offset` when none). */
  blankLinesBefore(offset: number): number {
    let from = offset;
    while (from > 0 && isBlankLine(this.text, from - 1)) from = lineStart(this.text, from - 1);
    return from;
  }

  withEol(content: string): string {
    return this.eol === "\n" ? content : content.replaceAll("\n", this.eol);
  }

  /** The comma after an inline-table member, across whitespace and comments (TOML 1.1 allows both). */
  commaAfter(offset: number): number {
    const text = this.text;
    let i = offset;
    for (;;) {
      while (/\s/.test(text.charAt(i))) i++;
      if (text.charAt(i) !== "#") break;
      i = nextLineStart(text, i);
    }
    if (text.charAt(i) !== ",") throw cannotEdit(this.path, "unexpected inline table layout");
    return i;
  }
}
