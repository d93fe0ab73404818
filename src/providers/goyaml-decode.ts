/**
 * The reading half of goyaml.ts: YAML text decoded as Go's yaml.v3 decodes it into
 * map[string]interface{}. Kept apart because it needs the `yaml` parser, which kanon loads only when
 * a provider SKILL.md or a kanon.lock has to be read.
 */
import { isAlias, isMap, isScalar, isSeq, type Node, type Pair, parseDocument, type Scalar } from "yaml";
import {
  type GoMap,
  type GoScalar,
  type GoValue,
  GoYamlError,
  resolvedTag,
  resolveGoScalar,
  shortTag,
} from "./goyaml.js";

const RESOLVABLE = new Set(["", "!!str", "!!bool", "!!int", "!!float", "!!null", "!!timestamp"]);

class Decoder {
  private budget = 100_000;
  private readonly active = new Set<Node>();

  constructor(private readonly doc: ReturnType<typeof parseDocument>) {}

  private spend(): void {
    this.budget--;
    if (this.budget < 0) throw new GoYamlError("document contains excessive aliasing");
  }

  private deref(node: unknown): Node {
    if (isAlias(node)) {
      const target = node.resolve(this.doc) as Node | undefined;
      if (!target) throw new GoYamlError(`unknown anchor '${node.source}' referenced`);
      return target;
    }
    return node as Node;
  }

  /** The value Go decodes a scalar node to (interface{} target). */
  scalar(node: Scalar): GoScalar {
    const tag = shortTag(node.tag);
    const text = node.source ?? String(node.value ?? "");
    if (tag === "!!binary") return Buffer.from(text.replace(/\s+/g, ""), "base64").toString("utf8");
    // Custom and non-specific tags decode as the plain text; so do untagged quoted and block scalars.
    if (!RESOLVABLE.has(tag)) return text;
    if (tag === "" && node.type !== "PLAIN") return text;
    return resolveGoScalar(tag, text);
  }

  /** yaml.v3 uses map[string]interface{} for a nested mapping whose keys are all strings. */
  private isStringMap(node: Node): boolean {
    if (!isMap(node)) return false;
    return node.items.every((pair) => {
      const key = this.deref(pair.key);
      if (!isScalar(key)) return false;
      if (this.isMergeKey(key)) return true;
      const tag = shortTag(key.tag);
      if (tag === "!!str") return true;
      if (tag !== "") return false;
      return key.type !== "PLAIN" || resolvedTag(key.source ?? "") === "!!str";
    });
  }

  private isMergeKey(key: unknown): boolean {
    if (!isScalar(key) || key.type !== "PLAIN") return false;
    const tag = shortTag(key.tag);
    return key.source === "<<" && (tag === "" || tag === "!" || tag === "!!merge");
  }

  value(raw: unknown): GoValue {
    this.spend();
    const node = this.deref(raw);
    if (this.active.has(node)) throw new GoYamlError("anchor value contains itself");
    this.active.add(node);
    try {
      if (isScalar(node)) return this.scalar(node);
      if (isSeq(node)) return node.items.map((item) => this.value(item));
      if (isMap(node)) return this.map(node, this.isStringMap(node));
      if (node === null || node === undefined) return null;
      throw new GoYamlError("unsupported YAML node");
    } finally {
      this.active.delete(node);
    }
  }

  /** Decode a mapping; `stringKeys` when the target is map[string]interface{}. */
  map(node: Node, stringKeys: boolean): GoMap {
    const out = new Map<string, [GoScalar, GoValue]>();
    this.mapInto(node, out, null, stringKeys);
    return { kind: "map", entries: [...out.values()] };
  }

  private key(raw: unknown, stringKeys: boolean): GoScalar | undefined {
    const node = this.deref(raw);
    if (!isScalar(node)) {
      throw new GoYamlError(
        stringKeys ? "cannot unmarshal a collection into a string key" : "invalid map key",
      );
    }
    const value = this.scalar(node);
    if (!stringKeys) {
      if (value === null) throw new GoYamlError("unsupported null map key");
      return value;
    }
    if (value === null) return undefined; // Go skips a null key in a string-keyed map
    return shortTag(node.tag) === "!!binary" ? (value as string) : (node.source ?? String(node.value ?? ""));
  }

  private mapInto(
    raw: Node,
    out: Map<string, [GoScalar, GoValue]>,
    mergedFields: Set<string> | null,
    stringKeys: boolean,
  ): void {
    const node = this.deref(raw);
    if (!isMap(node)) throw new GoYamlError("map merge requires map or sequence of maps as the value");
    const seen = new Map<string, number>();
    node.items.forEach((pair: Pair, i) => {
      const k = this.deref(pair.key);
      if (isScalar(k)) {
        const raw = k.source ?? String(k.value ?? "");
        const prev = seen.get(raw);
        if (prev !== undefined) throw new GoYamlError(`mapping key ${JSON.stringify(raw)} already defined`);
        seen.set(raw, i);
      }
    });
    let mergeNode: unknown;
    for (const pair of node.items) {
      if (this.isMergeKey(this.deref(pair.key))) {
        mergeNode = pair.value;
        continue;
      }
      const key = this.key(pair.key, stringKeys);
      if (key === undefined) continue;
      const id = keyId(key);
      if (mergedFields) {
        if (mergedFields.has(id)) continue;
        mergedFields.add(id);
      }
      out.set(id, [key, this.value(pair.value)]);
    }
    if (mergeNode !== undefined) {
      const fields = mergedFields ?? new Set(out.keys());
      const merge = this.deref(mergeNode);
      if (isSeq(merge)) {
        for (const item of merge.items) this.mapInto(item as Node, out, fields, stringKeys);
      } else {
        this.mapInto(merge, out, fields, stringKeys);
      }
    }
  }
}

function keyId(key: GoScalar): string {
  if (key === null) return "null";
  if (typeof key === "boolean") return `b:${key}`;
  if (typeof key === "string") return `s:${key}`;
  if (key.kind === "int") return `i:${key.value}`;
  if (key.kind === "float") return `f:${key.value}`;
  return `t:${key.text}`;
}

/**
 * Parse YAML text as yaml.Unmarshal into map[string]interface{} would: an empty or null document is an
 * empty map; anything but a mapping is an error.
 */
export function decodeGoYamlMap(input: string): GoMap {
  // yaml.v3's reader rejects these characters anywhere in the stream. (It also reads a raw NEL, LS or
  // PS as a line break, which the yaml package does not; such input is not worth matching.)
  if (/[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u.test(input)) {
    throw new GoYamlError("control characters are not allowed");
  }
  const text = input.replace(/\r\n?/g, "\n");
  const doc = parseDocument(text, { uniqueKeys: false, strict: false, prettyErrors: false });
  const error = doc.errors[0];
  if (error) throw new GoYamlError(error.message.split("\n")[0]!.trim());
  const root = doc.contents;
  if (root === null || root === undefined) return { kind: "map", entries: [] };
  const decoder = new Decoder(doc);
  const node = isAlias(root) ? (root.resolve(doc) as Node) : root;
  if (isScalar(node) && decoder.scalar(node) === null) return { kind: "map", entries: [] };
  if (!isMap(node)) {
    const what = isSeq(node) ? "!!seq" : "!!str";
    throw new GoYamlError(`cannot unmarshal ${what} into map[string]interface {}`);
  }
  return decoder.map(node, true);
}
