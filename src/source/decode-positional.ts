/**
 * The exact, positional decoder: decodes the YAML AST against a `Schema` so that type errors become
 * `FILE:LINE:COL: path: …` and unknown keys become warnings naming the key path (a typo like `hoks:`
 * must not pass silently). decode.ts uses it whenever its fast path finds anything to report.
 *
 * It also holds kanon.yaml to what agents can take: no null list items, integers in range and
 * exactly as written, no NUL or unpaired surrogates, no names that reach an object's prototype, one
 * document, merge keys applied, and a bounded amount of work however the file uses aliases.
 */
import {
  Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  visit,
  type YAMLMap,
  YAMLParseError,
} from "yaml";
import type { SourcePosition } from "../model/config.js";
import { closest, editDistance } from "./did-you-mean.js";
import {
  MAX_ALIASED_VALUES,
  MAX_LIBRARY_PARSE,
  MAX_VALUES,
  RESERVED_NAMES,
  unwritableChar,
} from "./limits.js";
import type { Schema } from "./schema.js";
import { lineCounterOf, NotRebuilt, parseFast } from "./yaml-nodes.js";

export interface Decoded {
  value: unknown;
  errors: string[];
  warnings: string[];
}

/** Go yaml.v3 accepts these YAML 1.1 spellings when the target is a boolean. */
const TRUE_WORDS = new Set(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"]);
const FALSE_WORDS = new Set(["n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"]);

class TooManyAliases extends Error {}

interface Parsed {
  doc: Document;
  lineCounter: LineCounter;
  aliases: Map<Node, Node | null>;
}

/**
 * The last text parsed and its parse: a home whose decode warned (unknown keys) and whose
 * validation then failed is located without parsing it again (parsing is most of the cost).
 */
let last: { text: string; parsed: Parsed } | undefined;

function parse(text: string): Parsed {
  if (last?.text === text) return last.parsed;
  const parsed = parseWithEvents(text) ?? parseWithLibrary(text);
  last = { text, parsed };
  return parsed;
}

/**
 * The nodes rebuilt from js-yaml's parse (yaml-nodes.ts), or null when the yaml library must parse:
 * a document js-yaml refuses or reads differently. A large one of those is reported from js-yaml's
 * first error instead (the library would take seconds on it).
 */
function parseWithEvents(text: string): Parsed | null {
  const doc = new Document();
  try {
    const { contents, lineCounter, aliases, exact } = parseFast(text);
    if (!exact && text.length <= MAX_LIBRARY_PARSE) return null;
    doc.contents = contents;
    return { doc, lineCounter, aliases };
  } catch (e) {
    if (!(e instanceof NotRebuilt)) throw e;
    const small = text.length <= MAX_LIBRARY_PARSE;
    if (e.reason === "mismatch" || (e.reason === "syntax" && small)) return null;
    const message = {
      documents: "", // (worded where the errors are reported)
      nesting: "lists or mappings are nested too deeply here",
      values: `more than ${MAX_VALUES} keys and values, this is the next one; a large home has about 15000`,
      syntax: `${e.message} (a file this large is checked up to its first syntax error)`,
      mismatch: "",
    }[e.reason];
    const code = e.reason === "documents" ? "MULTIPLE_DOCS" : "IMPOSSIBLE";
    doc.errors.push(new YAMLParseError([e.at, e.at + 1], code, message));
    return { doc, lineCounter: lineCounterOf(text), aliases: new Map() };
  }
}

function parseWithLibrary(text: string): Parsed {
  const lineCounter = new LineCounter();
  // Duplicate keys are found in mapEntries with a Set: the library's own check is quadratic.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, merge: true, uniqueKeys: false });
  // (A document with errors is reported, not walked: it may be nested too deeply to visit.)
  const aliases = doc.errors.length > 0 ? new Map<Node, Node | null>() : aliasTargets(doc);
  return { doc, lineCounter, aliases };
}

export function decodePositional(text: string, file: string, schema: Schema): Decoded {
  const { doc, lineCounter, aliases } = parse(text);
  const out: Decoded = { value: null, errors: [], warnings: [] };
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const { line, col } = lineCounter.linePos(e.pos[0]);
      const message =
        e.code === "MULTIPLE_DOCS"
          ? `a second YAML document starts here; ${file} holds one document (remove the "---" line)`
          : /Maximum call stack/.test(e.message)
            ? "lists or mappings are nested too deeply here"
            : e.message;
      out.errors.push(`${file}:${line}:${col}: ${message}`);
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
      if (v === null) return "null";
      const kind = typeof v === "number" || typeof v === "bigint" ? "number" : typeof v;
      return `${kind} ${node.source ?? String(v)}`;
    }
    return "a value";
  };
  const report = (node: Node, message: string) => out.errors.push(`${where(at(node))}: ${message}`);
  // Values reached through aliases and merge keys: at most the limit plus one per byte of text, so
  // the work stays proportional to the file however it is written.
  const limit = MAX_ALIASED_VALUES + text.length;
  let aliasDepth = 0;
  let aliased = 0;
  let outerAlias: Node | null = null;
  const budget: MergeBudget = { left: limit, where: (n) => where(at(n)), done: new Map() };

  const decode = (raw: Node | null | undefined, s: Schema, path: string, item = false): unknown => {
    if (raw && isAlias(raw)) {
      if (!aliases.get(raw)) {
        report(raw, `${path || "document"}: alias *${raw.source} refers to no anchor before it`);
        return undefined;
      }
      if (aliasDepth++ === 0) outerAlias = raw;
      try {
        return decode(aliases.get(raw) ?? null, s, path, item);
      } finally {
        aliasDepth--;
      }
    }
    if (aliasDepth > 0 && ++aliased > limit) throw new TooManyAliases(where(at(outerAlias)));
    const node = raw;
    const fail = (expected: string) => {
      report(node!, `${path || "document"}: expected ${expected}, got ${describe(node!)}`);
      return undefined;
    };
    if (!node || (isScalar(node) && node.value === null)) {
      // A list item cannot be left out: `args: [~]` is a mistake, not an empty list.
      if (item && node) fail(expectation(s));
      return undefined;
    }
    switch (s.kind) {
      case "string": {
        if (!isScalar(node)) return fail("a string");
        const v = node.value;
        // Any scalar decodes into a string field as its source text, as in the Go original.
        const str = typeof v === "string" ? v : (node.source ?? String(v));
        const bad = unwritableChar(str, !!s.enum);
        if (bad) report(node, `${path}: ${bad}`);
        return str;
      }
      case "int": {
        if (!isScalar(node)) return fail("an integer");
        const v = node.value;
        if (!((typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint"))
          return fail("an integer");
        // Compared as written: 9007199254740993 must not pass as its nearest double.
        const n = Number(v);
        const inRange = n >= (s.minimum ?? 0) && n <= (s.maximum ?? Number.MAX_SAFE_INTEGER);
        if (Number.isSafeInteger(n) && inRange && sameInteger(node.source, n)) return n;
        return fail(expectation(s));
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
      case "stringOr":
        return isScalar(node) ? decode(node, { kind: "string" }, path) : decode(node, s.object, path);
      case "any": {
        // Decoded like the rest (aliases bounded, names checked), so a tool's arguments are JSON.
        if (isSeq(node))
          return node.items.map((child, i) => decode(child as Node, s, `${path}[${i}]`) ?? null);
        if (isMap(node)) return decode(node, { kind: "map", values: s }, path);
        if (!isScalar(node)) return fail("a value");
        const v = node.value;
        if (typeof v === "string") {
          const bad = unwritableChar(v, false);
          if (bad) report(node, `${path}: ${bad}`);
          return v;
        }
        if (typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v))) return v;
        return fail("a string, a finite number, true or false");
      }
      case "array": {
        if (!isSeq(node)) return fail("a list");
        return node.items.map((child, i) => decode(child as Node, s.items, `${path}[${i}]`, true));
      }
      case "map":
      case "object": {
        if (!isMap(node)) return fail("a mapping");
        const result: Record<string, unknown> = {};
        for (const { keyNode, key, value, merged } of mapEntries(node, aliases, report, budget)) {
          if (key === null) {
            report(keyNode, `${path || "document"}: keys must be strings`);
            continue;
          }
          if (Object.hasOwn(result, key)) continue; // merged keys do not override explicit ones
          const childPath = path ? `${path}.${key}` : key;
          if (s.kind === "map") {
            const bad = RESERVED_NAMES.has(key)
              ? `${JSON.stringify(key)} cannot be used as a name`
              : unwritableChar(key, true);
            if (bad) {
              report(keyNode, `${childPath}: ${bad}`);
              continue;
            }
          }
          const fieldSchema =
            s.kind === "map" ? s.values : Object.hasOwn(s.fields, key) ? s.fields[key] : undefined;
          if (!fieldSchema) {
            const hint = closest(key, Object.keys(s.kind === "object" ? s.fields : {}));
            // A misspelt section (`hoks:`) would leave the real one empty, and apply would take out
            // everything kanon wrote for it: one edit away from a known key is an error.
            if (path === "" && hint && editDistance(key.toLowerCase(), hint.toLowerCase()) <= 1) {
              report(keyNode, `unknown key ${JSON.stringify(key)}; did you mean ${JSON.stringify(hint)}?`);
              continue;
            }
            out.warnings.push(
              `${where(at(keyNode))}: unknown key ${JSON.stringify(childPath)} is ignored${hint ? `; did you mean ${JSON.stringify(hint)}?` : ""}`,
            );
            continue;
          }
          if (merged && aliasDepth++ === 0) outerAlias = keyNode;
          let decoded: unknown;
          try {
            decoded = decode(value, fieldSchema, childPath);
          } finally {
            if (merged) aliasDepth--;
          }
          if (decoded !== undefined) result[key] = decoded;
          else if (s.kind === "map") result[key] = zero(fieldSchema);
        }
        return result;
      }
    }
  };

  try {
    out.value = decode(doc.contents as Node | null, schema, "");
  } catch (e) {
    if (!(e instanceof TooManyAliases)) throw e;
    out.value = null;
    out.errors = [
      `${e.message}: aliases and merge keys expand to more than ${limit} values here (${MAX_ALIASED_VALUES} plus one per byte of ${file}); write the repeated parts out or share less`,
    ];
  }
  return out;
}

/**
 * `FILE:LINE:COL` of the value at a path of keys and list indexes (through aliases and merge keys),
 * or of the deepest part of it that exists; for messages about values that decoded fine but are
 * wrong (`unsupported version 2`). Parses the text again: only used once something is wrong.
 */
export function locator(text: string, file: string): (path: readonly (string | number)[]) => string {
  const { doc, lineCounter, aliases } = parse(text);
  const deref = (n: unknown) => (n && isAlias(n) ? (aliases.get(n as Node) ?? null) : ((n as Node) ?? null));
  const budget: MergeBudget = { left: Number.POSITIVE_INFINITY, where: () => "", done: new Map() };
  return (path) => {
    let node: Node | null = deref(doc.contents);
    let found = node;
    for (const step of path) {
      if (typeof step === "number" && isSeq(node)) node = deref(node.items[step]);
      else if (typeof step === "string" && isMap(node)) {
        const entry = mapEntries(node, aliases, () => {}, budget).find((e) => e.key === step);
        node = entry ? (entry.value ?? entry.keyNode) : null;
      } else node = null;
      if (!node) break;
      found = node;
    }
    const { line, col } = lineCounter.linePos(found?.range?.[0] ?? 0);
    return `${file}:${line}:${col}`;
  };
}

function expectation(s: Schema): string {
  switch (s.kind) {
    case "string":
      return "a string";
    case "int":
      return `an integer from ${s.minimum ?? 0} to ${s.maximum ?? Number.MAX_SAFE_INTEGER}`;
    case "bool":
      return "true or false";
    case "array":
      return "a list";
    case "stringOr":
      // The plain form is the usual one; the mapping form is for agent-specific files.
      return "a string";
    default:
      return "a mapping";
  }
}

/** Whether an integer's source text (decimal, 0x, 0o, signed) denotes exactly `n`; other forms (1e3) were checked as numbers. */
function sameInteger(source: string | undefined, n: number): boolean {
  const t = source?.replace(/^\+/, "");
  if (!t || !/^-?(\d+|0x[0-9a-fA-F]+)$|^0o[0-7]+$/.test(t)) return true;
  return BigInt(t) === BigInt(n);
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

interface Entry {
  keyNode: Node;
  key: string | null;
  value: Node | null;
  /** Came in through a merge key: its value counts against MAX_ALIASED_VALUES like an alias's. */
  merged: boolean;
}

/** Entries taken in through merge keys in one decode: bounded like aliases, however merges nest. */
interface MergeBudget {
  left: number;
  where: (node: Node) => string;
  /** Each mapping's entries, computed once however often it is merged. */
  done: Map<YAMLMap, Entry[]>;
}

const isMergeKey = (n: Node | null) =>
  isScalar(n) && (typeof n.value === "symbol" || (n.value === "<<" && n.type === "PLAIN"));

/**
 * A mapping's entries with YAML merge keys applied (`<<: *base`, `<<: [*a, *b]`): its own keys
 * first, then the merged ones in order, so that the first occurrence of a key wins. Duplicate own
 * keys are reported.
 */
function mapEntries(
  node: YAMLMap,
  aliases: Map<Node, Node | null>,
  report: (at: Node, message: string) => void,
  budget: MergeBudget,
  open = new Set<YAMLMap>(),
): Entry[] {
  const known = budget.done.get(node);
  if (known) return known;
  const deref = (n: unknown): Node | null =>
    n && isAlias(n) ? (aliases.get(n as Node) ?? null) : ((n as Node | undefined) ?? null);
  const own: Entry[] = [];
  const merged: Entry[] = [];
  const keys = new Set<string>();
  open.add(node);
  for (const pair of node.items) {
    const keyNode = deref(pair.key);
    if (isMergeKey(keyNode)) {
      const source = deref(pair.value);
      for (const m of isSeq(source) ? source.items.map(deref) : [source]) {
        if (!isMap(m)) report(keyNode!, "a merge key (<<) takes a mapping or a list of mappings");
        else if (!open.has(m)) {
          const entries = mapEntries(m, aliases, report, budget, open);
          budget.left -= entries.length;
          if (budget.left < 0) throw new TooManyAliases(budget.where(keyNode!));
          merged.push(...entries.map((e) => ({ ...e, merged: true })));
        }
      }
      continue;
    }
    const key = isScalar(keyNode) && keyNode.value !== null ? String(keyNode.value) : null;
    if (key !== null) {
      if (keys.has(key)) report(keyNode!, "Map keys must be unique");
      keys.add(key);
    }
    const value = deref(pair.value) === null ? null : (pair.value as Node);
    own.push({ keyNode: keyNode ?? (pair.key as Node), key, value, merged: false });
  }
  open.delete(node);
  // The first occurrence of a key wins; later ones would only be skipped by the caller.
  const taken = new Set<string | null>(own.map((e) => e.key));
  const entries = [
    ...own,
    ...merged.filter((e) => e.key === null || (!taken.has(e.key) && !!taken.add(e.key))),
  ];
  budget.done.set(node, entries);
  return entries;
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
