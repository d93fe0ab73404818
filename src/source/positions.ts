/**
 * Where a value sits in kanon.yaml, for `kanon.yaml:LINE:COL: …` messages about a valid document
 * (validation errors and warnings). The fast decoder keeps no positions, so the text is parsed again
 * with positions only when a message needs one.
 */
import { isMap, isSeq, LineCounter, type Node, parseDocument } from "yaml";

/** A path into the document: mapping keys and list indexes, e.g. ["hooks", 2, "event"]. */
export type YamlPath = readonly (string | number)[];

/** `where(path)` → `"kanon.yaml:LINE:COL"` of the value at path (of its key when the value is empty), or the label alone. */
export function yamlLocator(text: string, label: string): (path: YamlPath) => string {
  let parsed: { doc: ReturnType<typeof parseDocument>; lines: LineCounter } | undefined;
  return (path) => {
    if (!parsed) {
      const lines = new LineCounter();
      parsed = { doc: parseDocument(text, { lineCounter: lines, merge: true }), lines };
    }
    const offset = offsetOf(parsed.doc.contents as Node | null, path);
    if (offset === undefined) return label;
    const { line, col } = parsed.lines.linePos(offset);
    return `${label}:${line}:${col}`;
  };
}

function offsetOf(root: Node | null, path: YamlPath): number | undefined {
  let node: Node | null | undefined = root;
  let offset = node?.range?.[0];
  for (const step of path) {
    if (typeof step === "number") {
      if (!isSeq(node)) return offset;
      node = node.items[step] as Node | undefined;
      offset = node?.range?.[0] ?? offset;
    } else {
      if (!isMap(node)) return offset;
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === step);
      if (!pair) return offset;
      offset = (pair.key as Node | null)?.range?.[0] ?? offset;
      node = pair.value as Node | null;
    }
  }
  // The value itself where it has one (`event: pretooluse` points at pretooluse), else its key.
  return node?.range?.[0] ?? offset;
}
