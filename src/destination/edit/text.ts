/** Offsets, lines and replacements inside a document's text; shared by the JSON and TOML editors. */

/** Replace `length` characters at `offset` with `content` (an insertion when `length` is 0). */
export interface TextEdit {
  offset: number;
  length: number;
  content: string;
}

/**
 * Applies edits given as offsets into the original text. Insertions at the offset where a deletion
 * starts go before it; overlapping edits are a bug in the editor, not in the user's file.
 */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = edits
    .map((edit, order) => ({ edit, order }))
    .sort(
      (a, b) =>
        a.edit.offset - b.edit.offset ||
        Number(a.edit.length > 0) - Number(b.edit.length > 0) ||
        a.order - b.order,
    );
  const parts: string[] = [];
  let position = 0;
  for (const { edit } of sorted) {
    if (edit.offset < position) throw new Error(`overlapping edits at offset ${edit.offset}`);
    parts.push(text.slice(position, edit.offset), edit.content);
    position = edit.offset + edit.length;
  }
  parts.push(text.slice(position));
  return parts.join("");
}

/** "\r\n" when the document's first line ends that way, else "\n". */
export function detectEol(text: string): string {
  const lf = text.indexOf("\n");
  return lf > 0 && text.charAt(lf - 1) === "\r" ? "\r\n" : "\n";
}

export function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

/** The offset just after the line break that ends the line holding `offset` (or the end of text). */
export function nextLineStart(text: string, offset: number): number {
  const lf = text.indexOf("\n", offset);
  return lf < 0 ? text.length : lf + 1;
}

/** The spaces and tabs that start the line holding `offset`. */
export function lineIndent(text: string, offset: number): string {
  const start = lineStart(text, offset);
  let end = start;
  while (end < text.length && (text[end] === " " || text[end] === "\t")) end++;
  return text.slice(start, end);
}

/** Whether only spaces and tabs come before `offset` on its line. */
export function startsLine(text: string, offset: number): boolean {
  let i = offset;
  while (i > 0 && (text[i - 1] === " " || text[i - 1] === "\t")) i--;
  return i === 0 || text[i - 1] === "\n";
}

export function skipSpaces(text: string, offset: number): number {
  let i = offset;
  while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
  return i;
}

/** Whether the line holding `offset` has nothing but whitespace. */
export function isBlankLine(text: string, offset: number): boolean {
  const start = lineStart(text, offset);
  const end = nextLineStart(text, offset);
  return text.slice(start, end).trim() === "";
}

/** 1-based line and column of an offset, for error messages. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    last = i;
  }
  return { line, column: offset - last };
}
