/**
 * Where a value of kanon.yaml is: `kanon.yaml:LINE:COL` for a path such as
 * `["mcp", "servers", "github", "env", "GITHUB_TOKEN"]`, so that messages about values (not only
 * decode errors) point at the line to edit. Loaded only when a message needs it.
 */
import { LineCounter, parseDocument } from "yaml";

export type Path = readonly (string | number)[];
/** Lazy and async: the positional parser loads only when a message needs a position. */
export type Locate = (path: Path) => Promise<string | undefined>;

export function locator(text: string, file: string): (path: Path) => string | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, merge: true });
  return (path) => {
    const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
    if (!node?.range) return undefined;
    const { line, col } = lineCounter.linePos(node.range[0]);
    return `${file}:${line}:${col}`;
  };
}
