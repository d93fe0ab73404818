/**
 * Reading kanon.lock (the `yaml` parser is loaded only when a lock file exists).
 */
import { isAlias, isMap, isScalar, isSeq, type Node, parseDocument } from "yaml";
import { KanonError } from "../model/types.js";
import { type GoScalar, GoYamlError, resolveGoScalar } from "./goyaml.js";
import { FIELDS, type Lock, type LockEntry } from "./lock-types.js";

/**
 * Parse kanon.lock text as the Go original decodes it: unknown keys ignored, a missing field empty,
 * any scalar accepted as a string field. Throws KanonError on YAML or type errors.
 */
export function parseLock(text: string): Lock {
  const fail = (why: string): never => {
    throw new KanonError(`kanon.lock: ${why}`);
  };
  const doc = parseDocument(text, { prettyErrors: false });
  const error = doc.errors[0];
  if (error) fail(`yaml: ${error.message.split("\n")[0]!.trim()}`);
  const deref = (n: unknown): Node | null => {
    const node = isAlias(n) ? (n.resolve(doc) as Node | undefined) : (n as Node | null | undefined);
    return node ?? null;
  };
  const isNull = (n: Node | null) => n === null || (isScalar(n) && n.type === "PLAIN" && n.value === null);
  const text$ = (n: Node | null, where: string): string => {
    if (isNull(n)) return "";
    if (!isScalar(n)) return fail(`${where} must be a string`);
    return n.source ?? String(n.value);
  };
  const lock: Lock = { version: 0, sources: [] };
  const root = deref(doc.contents);
  if (isNull(root)) return lock;
  if (!isMap(root)) return fail("the document must be a mapping");
  for (const pair of root.items) {
    const key = deref(pair.key);
    const value = deref(pair.value);
    const name = isScalar(key) ? String(key.value) : "";
    if (name === "version") {
      if (isNull(value)) continue;
      if (!isScalar(value)) return fail("version must be an integer");
      let v: GoScalar;
      try {
        v =
          value.type === "PLAIN"
            ? resolveGoScalar(value.tag ? String(value.tag) : "", value.source ?? "")
            : String(value.value);
      } catch (e) {
        if (e instanceof GoYamlError) return fail(e.message);
        throw e;
      }
      if (typeof v === "object" && v !== null && (v.kind === "int" || v.kind === "float")) {
        lock.version = Math.trunc(Number(v.value));
      } else fail("version must be an integer");
    } else if (name === "sources") {
      if (isNull(value)) continue;
      if (!isSeq(value)) return fail("sources must be a list");
      value.items.forEach((raw, i) => {
        const item = deref(raw);
        const entry: LockEntry = {
          owner: "",
          type: "",
          url: "",
          ref: "",
          subdir: "",
          resolved_ref: "",
          content_sha256: "",
        };
        if (!isNull(item)) {
          if (!isMap(item)) fail(`sources[${i}] must be a mapping`);
          for (const field of (item as { items: { key: unknown; value: unknown }[] }).items) {
            const k = deref(field.key);
            const fieldName = isScalar(k) ? String(k.value) : "";
            if ((FIELDS as readonly string[]).includes(fieldName)) {
              entry[fieldName as (typeof FIELDS)[number]] = text$(
                deref(field.value),
                `sources[${i}].${fieldName}`,
              );
            }
          }
        }
        lock.sources.push(entry);
      });
    }
  }
  return lock;
}
