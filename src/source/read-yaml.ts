/**
 * kanon.yaml read by the yaml library, with every node's position, within limits checked while the
 * text is read: a file past one is refused where it crosses it, before the library has built any
 * node, so that a hostile megabyte costs no more than reading it up to there (the library's parse of
 * a whole hostile megabyte takes seconds; see `npm run bench`).
 */
import { Composer, CST, type Document, isAlias, Lexer, LineCounter, type Node, Parser, visit } from "yaml";
import { MAX_CHARACTERS, MAX_NESTING, MAX_VALUES } from "./limits.js";

const { tokenType } = CST;

export interface ReadYaml {
  /** The document's root node; null for an empty document or when there are errors. */
  contents: Node | null;
  /** Syntax errors and crossed limits, at their offsets in the text. */
  errors: { offset: number; message: string }[];
  lineCounter: LineCounter;
  /** Each alias's anchored node (the latest anchor of its name before it), or null. */
  aliases: Map<Node, Node | null>;
}

/** Lexical tokens that each start one value (a block list or mapping is counted when it opens). */
const VALUE_TOKENS = new Set<string | null>([
  "scalar",
  "alias",
  "single-quoted-scalar",
  "double-quoted-scalar",
  "block-scalar-header",
  "flow-map-start",
  "flow-seq-start",
]);

/** The parse of `text`, one document (`file` names it in messages). */
export function readYaml(text: string, file: string): ReadYaml {
  const lineCounter = new LineCounter();
  const refuse = (offset: number, message: string): ReadYaml => ({
    contents: null,
    errors: [{ offset, message }],
    lineCounter,
    aliases: new Map(),
  });
  lineCounter.addNewLine(0);
  if (text.length > MAX_CHARACTERS) {
    // (Lines are counted up to the offset reported.)
    for (let i = text.indexOf("\n"); i >= 0 && i < MAX_CHARACTERS; i = text.indexOf("\n", i + 1))
      lineCounter.addNewLine(i + 1);
    return refuse(
      MAX_CHARACTERS,
      `${file} is longer than ${MAX_CHARACTERS} characters, this is the next one; a large home has about 150000`,
    );
  }
  const parser = new Parser(lineCounter.addNewLine);
  // Duplicate keys are found by decode.ts with a Set: the library's own check is quadratic.
  const composer = new Composer({ merge: true, uniqueKeys: false });
  const docs: Document.Parsed[] = [];
  const compose = (tokens: Iterable<CST.Token>) => {
    for (const token of tokens) docs.push(...composer.next(token));
  };
  // The token counted at each level of the parser's stack: a block list or mapping counts when it
  // first appears there.
  const counted: CST.Token[] = [];
  let values = 0;
  let aliases = false;
  for (const lexeme of new Lexer().lex(text)) {
    const offset = parser.offset;
    compose(parser.next(lexeme));
    if (docs.length > 1) break;
    const { stack } = parser;
    // The stack holds the document, the collections being read and at times the scalar being read.
    if (stack.length - 1 > MAX_NESTING) return refuse(offset, "lists or mappings are nested too deeply here");
    const type = tokenType(lexeme);
    if (VALUE_TOKENS.has(type)) values++;
    if (type === "alias") aliases = true;
    for (let i = stack.length - 1; i >= 0 && counted[i] !== stack[i]; i--) {
      counted[i] = stack[i]!;
      if (stack[i]!.type === "block-map" || stack[i]!.type === "block-seq") values++;
    }
    if (values > MAX_VALUES)
      return refuse(
        offset,
        `more than ${MAX_VALUES} keys and values, this is the next one; a large home has about 15000`,
      );
  }
  if (docs.length < 2) {
    compose(parser.end());
    docs.push(...composer.end(true, text.length));
  }
  const doc = docs[0]!;
  const errors = doc.errors.map((e) => ({ offset: e.pos[0], message: e.message }));
  if (docs.length > 1) {
    const message = `a second YAML document starts here; ${file} holds one document (remove the "---" line)`;
    errors.push({ offset: docs[1]!.range[0], message });
  }
  if (errors.length > 0) return { contents: null, errors, lineCounter, aliases: new Map() };
  return { contents: doc.contents, errors, lineCounter, aliases: aliases ? aliasTargets(doc) : new Map() };
}

/**
 * Each alias's anchored node, found in one pass over the document in order (an alias refers to the
 * latest anchor of its name before it). The library's Alias.resolve searches the whole document
 * each time, which is quadratic in the number of aliases.
 */
function aliasTargets(doc: Document): Map<Node, Node | null> {
  const anchors = new Map<string, Node>();
  const targets = new Map<Node, Node | null>();
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node)) targets.set(node, anchors.get(node.source) ?? null);
      else if (node.anchor) anchors.set(node.anchor, node);
    },
  });
  return targets;
}
