/**
 * Decoding kanon.yaml against the schema, from the yaml library's nodes (read-yaml.ts), so that type
 * errors become `FILE:LINE:COL: path: …` and unknown keys become warnings naming the key path (a typo
 * like `hoks:` must not pass silently).
 *
 * It also holds kanon.yaml to what agents can take: no null list items, integers in range and
 * exactly as written, no NUL or unpaired surrogates, no names that reach an object's prototype, one
 * document, merge keys applied, and a bounded amount of work however the file uses aliases.
 */
import { isAlias, isMap, isScalar, isSeq, type Node, type YAMLMap } from "yaml";
import { closest, editDistance } from "./did-you-mean.js";
import { MAX_ALIASED_VALUES, RESERVED_NAMES, unwritableChar } from "./limits.js";
import { type ReadYaml, readYaml } from "./read-yaml.js";
import type { Schema } from "./schema.js";

export interface Decoded {
  value: unknown;
  errors: string[];
  warnings: string[];
}

/** Go yaml.v3 accepts these YAML 1.1 spellings when the target is a boolean. */
const TRUE_WORDS = new Set(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"]);
const FALSE_WORDS = new Set(["n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"]);

class TooManyAliases extends Error {}

/**
 * The last text read and its parse: a home whose decode warned (unknown keys) and whose validation
 * then failed is located without reading it again (reading is most of the cost).
 */
let last: { text: string; file: string; read: ReadYaml } | undefined;

function read(text: string, file: string): ReadYaml {
  if (last?.text === text && last.file === file) return last.read;
  last = { text, file, read: readYaml(text, file) };
  return last.read;
}

export function decodeYaml(text: string, file: string, schema: Schema): Decoded {
  const parsed = read(text, file);
  const where = (offset: number) => {
    const { line, col } = parsed.lineCounter.linePos(offset);
    return `${file}:${line}:${col}`;
  };
  if (parsed.errors.length > 0) {
    return {
      value: null,
      errors: parsed.errors.map((e) => `${where(e.offset)}: ${e.message}`),
      warnings: [],
    };
  }
  const decoder = new Decoder(parsed, where, MAX_ALIASED_VALUES + text.length);
  try {
    const value = decoder.value(parsed.contents, schema, "");
    return { value, errors: decoder.errors, warnings: decoder.warnings };
  } catch (e) {
    if (!(e instanceof TooManyAliases)) throw e;
    return {
      value: null,
      errors: [
        `${e.message}: aliases and merge keys expand to more than ${decoder.limit} values here (${MAX_ALIASED_VALUES} plus one per byte of ${file}); write the repeated parts out or share less`,
      ],
      warnings: [],
    };
  }
}

/** One decode: the messages so far, and the values reached through aliases and merge keys. */
class Decoder {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];
  /** Nested aliases (and merged entries) being decoded, the outermost one, and the values they reached. */
  private aliasDepth = 0;
  private outerAlias: Node | null = null;
  private aliased = 0;
  private readonly merges: MergeBudget;

  constructor(
    private readonly parsed: ReadYaml,
    private readonly where: (offset: number) => string,
    /** Values reached through aliases and merge keys, at most: proportional to the file. */
    readonly limit: number,
  ) {
    this.merges = { left: limit, where: (n) => this.at(n), done: new Map() };
  }

  private at(node: Node | null | undefined): string {
    return this.where(node?.range?.[0] ?? 0);
  }

  private report(node: Node, message: string): void {
    this.errors.push(`${this.at(node)}: ${message}`);
  }

  private fail(node: Node, path: string, expected: string): undefined {
    this.report(node, `${path || "document"}: expected ${expected}, got ${describe(node)}`);
    return undefined;
  }

  /** The value of `node` as `s` describes it; undefined when it is absent or wrong (and reported). */
  value(node: Node | null | undefined, s: Schema, path: string, item = false): unknown {
    if (node && isAlias(node)) return this.alias(node, s, path, item);
    if (this.aliasDepth > 0 && ++this.aliased > this.limit)
      throw new TooManyAliases(this.at(this.outerAlias));
    if (!node || (isScalar(node) && node.value === null)) {
      // A list item cannot be left out: `args: [~]` is a mistake, not an empty list.
      if (item && node) this.fail(node, path, expectation(s));
      return undefined;
    }
    switch (s.kind) {
      case "string":
        return this.string(node, path, !!s.enum);
      case "int":
        return this.int(node, s, path);
      case "bool":
        return this.bool(node, path);
      case "stringOr":
        return isScalar(node) ? this.string(node, path, false) : this.value(node, s.object, path);
      case "any":
        return this.any(node, s, path);
      case "array":
        if (!isSeq(node)) return this.fail(node, path, "a list");
        return node.items.map((child, i) => this.value(child as Node, s.items, `${path}[${i}]`, true));
      case "map":
      case "object":
        return this.mapping(node, s, path);
    }
  }

  private alias(node: Node, s: Schema, path: string, item: boolean): unknown {
    const target = this.parsed.aliases.get(node);
    if (!target) {
      this.report(
        node,
        `${path || "document"}: alias *${(node as { source?: string }).source} refers to no anchor before it`,
      );
      return undefined;
    }
    if (this.aliasDepth++ === 0) this.outerAlias = node;
    try {
      return this.value(target, s, path, item);
    } finally {
      this.aliasDepth--;
    }
  }

  private string(node: Node, path: string, isName: boolean): string | undefined {
    if (!isScalar(node)) return this.fail(node, path, "a string");
    const v = node.value;
    // Any scalar decodes into a string field as its source text, as in the Go original.
    const str = typeof v === "string" ? v : (node.source ?? String(v));
    const bad = unwritableChar(str, isName);
    if (bad) this.report(node, `${path}: ${bad}`);
    return str;
  }

  private int(node: Node, s: Schema & { kind: "int" }, path: string): number | undefined {
    if (!isScalar(node)) return this.fail(node, path, "an integer");
    const v = node.value;
    if (!((typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint"))
      return this.fail(node, path, "an integer");
    // Compared as written: 9007199254740993 must not pass as its nearest double.
    const n = Number(v);
    const inRange = n >= (s.minimum ?? 0) && n <= (s.maximum ?? Number.MAX_SAFE_INTEGER);
    if (Number.isSafeInteger(n) && inRange && sameInteger(node.source, n)) return n;
    return this.fail(node, path, expectation(s));
  }

  private bool(node: Node, path: string): boolean | undefined {
    if (isScalar(node)) {
      const v = node.value;
      if (typeof v === "boolean") return v;
      if (typeof v === "string" && node.type === "PLAIN") {
        if (TRUE_WORDS.has(v)) return true;
        if (FALSE_WORDS.has(v)) return false;
      }
    }
    return this.fail(node, path, "true or false");
  }

  /** Any value (an mcp_tool hook's input), decoded like the rest (aliases bounded, names checked), so that it is JSON. */
  private any(node: Node, s: Schema, path: string): unknown {
    if (isSeq(node))
      return node.items.map((child, i) => this.value(child as Node, s, `${path}[${i}]`) ?? null);
    if (isMap(node)) return this.mapping(node, { kind: "map", values: s }, path);
    if (!isScalar(node)) return this.fail(node, path, "a value");
    const v = node.value;
    if (typeof v === "string") {
      const bad = unwritableChar(v, false);
      if (bad) this.report(node, `${path}: ${bad}`);
      return v;
    }
    if (typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v))) return v;
    return this.fail(node, path, "a string, a finite number, true or false");
  }

  private mapping(node: Node, s: Schema & { kind: "map" | "object" }, path: string): unknown {
    if (!isMap(node)) return this.fail(node, path, "a mapping");
    const result: Record<string, unknown> = {};
    const report = (at: Node, message: string) => this.report(at, message);
    for (const { keyNode, key, value, merged } of mapEntries(
      node,
      this.parsed.aliases,
      report,
      this.merges,
    )) {
      if (key === null) {
        this.report(keyNode, `${path || "document"}: keys must be strings`);
        continue;
      }
      if (Object.hasOwn(result, key)) continue; // merged keys do not override explicit ones
      const childPath = path ? `${path}.${key}` : key;
      const fieldSchema = this.field(s, keyNode, key, childPath);
      if (!fieldSchema) continue;
      if (merged && this.aliasDepth++ === 0) this.outerAlias = keyNode;
      let decoded: unknown;
      try {
        decoded = this.value(value, fieldSchema, childPath);
      } finally {
        if (merged) this.aliasDepth--;
      }
      if (decoded !== undefined) result[key] = decoded;
      else if (s.kind === "map") result[key] = zero(fieldSchema);
    }
    return result;
  }

  /** The schema of a mapping's key; undefined for a name that cannot be used (reported) or an unknown key (a warning). */
  private field(
    s: Schema & { kind: "map" | "object" },
    keyNode: Node,
    key: string,
    path: string,
  ): Schema | undefined {
    if (s.kind === "map") {
      const bad = RESERVED_NAMES.has(key)
        ? `${JSON.stringify(key)} cannot be used as a name`
        : unwritableChar(key, true);
      if (!bad) return s.values;
      this.report(keyNode, `${path}: ${bad}`);
      return undefined;
    }
    if (Object.hasOwn(s.fields, key)) return s.fields[key];
    const hint = closest(key, Object.keys(s.fields));
    // A misspelt section (`hoks:`) would leave the real one empty, and apply would take out
    // everything kanon wrote for it: at the top, one edit away from a known key is an error.
    if (path === key && hint && editDistance(key.toLowerCase(), hint.toLowerCase()) <= 1) {
      this.report(keyNode, `unknown key ${JSON.stringify(key)}; did you mean ${JSON.stringify(hint)}?`);
      return undefined;
    }
    this.warnings.push(
      `${this.at(keyNode)}: unknown key ${JSON.stringify(path)} is ignored${hint ? `; did you mean ${JSON.stringify(hint)}?` : ""}`,
    );
    return undefined;
  }
}

function describe(node: Node): string {
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
}

/**
 * `FILE:LINE:COL` of the value at a path of keys and list indexes (through aliases and merge keys),
 * or of the deepest part of it that exists; for messages about values that decoded fine but are
 * wrong (`unsupported version 2`). Reads the text again unless it was the last one decoded.
 */
export function locator(text: string, file: string): (path: readonly (string | number)[]) => string {
  const { contents, lineCounter, aliases } = read(text, file);
  const deref = (n: unknown) => (n && isAlias(n) ? (aliases.get(n as Node) ?? null) : ((n as Node) ?? null));
  const budget: MergeBudget = { left: Number.POSITIVE_INFINITY, where: () => "", done: new Map() };
  return (path) => {
    let node: Node | null = deref(contents);
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
