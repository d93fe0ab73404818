/**
 * The exact, positional decoder: decodes the YAML AST against a `Schema` so that type errors become
 * `FILE:LINE:COL: path: …` and unknown keys become warnings naming the key path (a typo like `hoks:`
 * must not pass silently). decode.ts uses it whenever its fast path finds anything to report.
 */
import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import type { SourcePosition } from "../model/config.js";
import { closest } from "./did-you-mean.js";
import type { Schema } from "./schema.js";

export interface Decoded {
  value: unknown;
  errors: string[];
  warnings: string[];
}

/** Go yaml.v3 accepts these YAML 1.1 spellings when the target is a boolean. */
const TRUE_WORDS = new Set(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"]);
const FALSE_WORDS = new Set(["n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"]);

export function decodePositional(text: string, file: string, schema: Schema): Decoded {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, merge: true });
  const out: Decoded = { value: null, errors: [], warnings: [] };
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const { line, col } = lineCounter.linePos(e.pos[0]);
      out.errors.push(`${file}:${line}:${col}: ${e.message}`);
    }
    return out;
  }
  const at = (node: Node | null | undefined): SourcePosition => {
    const { line, col } = lineCounter.linePos(node?.range?.[0] ?? 0);
    return { file, line, col };
  };
  const where = (p: SourcePosition) => `${p.file}:${p.line}:${p.col}`;
  const describe = (node: Node): string => {
    if (isMap(node)) return "a mapping";
    if (isSeq(node)) return "a list";
    if (isScalar(node)) {
      const v = node.value;
      if (typeof v === "string") return `string ${JSON.stringify(v)}`;
      return `${typeof v === "number" ? "number" : typeof v} ${node.source ?? String(v)}`;
    }
    return "a value";
  };

  const decode = (raw: Node | null | undefined, s: Schema, path: string): unknown => {
    const node = resolve(doc, raw);
    if (!node || (isScalar(node) && node.value === null)) return undefined;
    const pos = at(node);
    const fail = (expected: string) => {
      out.errors.push(`${where(pos)}: ${path || "document"}: expected ${expected}, got ${describe(node)}`);
      return undefined;
    };
    switch (s.kind) {
      case "string": {
        if (!isScalar(node)) return fail("a string");
        const v = node.value;
        // Any scalar decodes into a string field as its source text, as in the Go original.
        return typeof v === "string" ? v : (node.source ?? String(v));
      }
      case "int": {
        if (!isScalar(node)) return fail("an integer");
        const v = node.value;
        if (typeof v === "number" && Number.isInteger(v)) return v;
        if (typeof v === "bigint") return fail("an integer in range");
        return fail("an integer");
      }
      case "bool": {
        if (!isScalar(node)) return fail("true or false");
        const v = node.value;
        if (typeof v === "boolean") return v;
        if (typeof v === "string" && node.type === "PLAIN") {
          if (TRUE_WORDS.has(v)) return true;
          if (FALSE_WORDS.has(v)) return false;
        }
        return fail("true or false");
      }
      case "any":
        return node.toJSON(doc);
      case "array": {
        if (!isSeq(node)) return fail("a list");
        return node.items.map((item, i) => decode(item as Node, s.items, `${path}[${i}]`));
      }
      case "map":
      case "object": {
        if (!isMap(node)) return fail("a mapping");
        const result: Record<string, unknown> = {};
        for (const pair of node.items) {
          const keyNode = resolve(doc, pair.key as Node);
          const key = isScalar(keyNode) ? String(keyNode.value) : null;
          if (key === null) {
            out.errors.push(`${where(at(keyNode))}: ${path || "document"}: keys must be strings`);
            continue;
          }
          const childPath = path ? `${path}.${key}` : key;
          const fieldSchema = s.kind === "map" ? s.values : s.fields[key];
          if (!fieldSchema) {
            const hint = closest(key, Object.keys(s.kind === "object" ? s.fields : {}));
            out.warnings.push(
              `${where(at(keyNode))}: unknown key ${JSON.stringify(childPath)} is ignored${hint ? `; did you mean ${JSON.stringify(hint)}?` : ""}`,
            );
            continue;
          }
          const value = decode(pair.value as Node, fieldSchema, childPath);
          if (value !== undefined) result[key] = value;
          else if (s.kind === "map") result[key] = zero(fieldSchema);
        }
        return result;
      }
    }
  };

  out.value = decode(doc.contents as Node | null, schema, "");
  return out;
}

function resolve(doc: Document, node: Node | null | undefined): Node | null | undefined {
  let n = node;
  for (let i = 0; i < 64 && n && isAlias(n); i++) n = n.resolve(doc) as Node | undefined;
  return n;
}

/** A map value given as null (`KEY:`) decodes to its type's zero value, as in Go. */
function zero(s: Schema): unknown {
  switch (s.kind) {
    case "string":
      return "";
    case "int":
      return 0;
    case "bool":
      return false;
    case "any":
      return null;
    case "array":
      return [];
    default:
      return {};
  }
}
