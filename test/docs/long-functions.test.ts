/**
 * No function in src/ runs over 100 lines unless its opening comment says why (docs/development.md):
 * the comment must contain "Long because". Lines are counted with the TypeScript parser, from the
 * function's first token (its comment not included) to its closing brace.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const MAX_LINES = 100;
const MARKER = "Long because";
const SRC = fileURLToPath(new URL("../../src", import.meta.url));

/** `file:line name (n lines)` of each function over the limit whose opening comment lacks the marker. */
function longFunctions(file: string, text: string): string[] {
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const lines = line(node.end) - line(node.getStart()) + 1;
      if (lines > MAX_LINES && !openingComment(node, text).includes(MARKER))
        found.push(`${file}:${line(node.getStart()) + 1} ${functionName(node)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The comments right before a function: its JSDoc, which for `const f = () => …` sits on the
 * declaration, and any comment before the function itself (an argument, a property).
 */
function openingComment(node: ts.Node, text: string): string {
  const jsDoc = ts.getJSDocCommentsAndTags(node).map((d) => d.getFullText());
  const leading = (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []).map((r) =>
    text.slice(r.pos, r.end),
  );
  return [...jsDoc, ...leading].join("\n");
}

function functionName(node: ts.SignatureDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText();
  return "(anonymous function)";
}

describe("long functions", () => {
  it(`in src/ each over ${MAX_LINES} lines says why in its opening comment ("${MARKER}")`, () => {
    const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter(
      (f) => /\.tsx?$/.test(f) && !f.endsWith(".d.ts"),
    );
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((f) => longFunctions(`src/${f}`, readFileSync(join(SRC, f), "utf8")));
    expect(found).toEqual([]);
  });

  // The check itself, on made-up sources: it must see each kind of function, and the marker.
  const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join("\n");
  const fn = (lines: number) => `function f() {\n${body(lines)}\n}\n`;

  it("flags a function declaration, an arrow function, a method and a callback over the limit", () => {
    expect(longFunctions("a.ts", fn(MAX_LINES))).toEqual([]);
    expect(longFunctions("a.ts", fn(MAX_LINES + 1))).toEqual([`a.ts:1 f (${MAX_LINES + 1} lines)`]);
    const arrow = `/** A helper. */\nexport const g = () => {\n${body(MAX_LINES + 1)}\n};\n`;
    expect(longFunctions("a.ts", arrow)).toEqual([`a.ts:2 g (${MAX_LINES + 1} lines)`]);
    const method = `class C {\n  m() {\n${body(MAX_LINES + 1)}\n  }\n}\n`;
    expect(longFunctions("a.ts", method)).toEqual([`a.ts:2 m (${MAX_LINES + 1} lines)`]);
    const callback = `[1].map((x) => {\n${body(MAX_LINES + 1)}\n});\n`;
    expect(longFunctions("a.ts", callback)).toEqual([`a.ts:1 (anonymous function) (${MAX_LINES + 1} lines)`]);
  });

  it("accepts a long function whose opening comment says why, and only there", () => {
    const why = `/**\n * One table.\n * ${MARKER} it reads best whole.\n */\n`;
    expect(longFunctions("a.ts", why + fn(MAX_LINES + 5))).toEqual([]);
    expect(longFunctions("a.ts", `${why}export const g = () => {\n${body(MAX_LINES + 5)}\n};\n`)).toEqual([]);
    // The marker inside the body, or before an earlier function, does not count.
    const inside = `function f() {\n  // ${MARKER} nothing.\n${body(MAX_LINES + 4)}\n}\n`;
    expect(longFunctions("a.ts", inside)).toHaveLength(1);
    expect(longFunctions("a.ts", `${why}function e() {}\n${fn(MAX_LINES + 5)}`)).toHaveLength(1);
  });
});
