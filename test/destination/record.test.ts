import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, handlerKey, sha256, valueHash } from "../../src/destination/record.js";
import { isPlainObject, sortedKeys } from "../../src/formats/values.js";

/** canonicalJson as first written (map and join): the record's hashes must not change with its speed. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  if (isPlainObject(value))
    return `{${sortedKeys(value)
      .map((k) => `${JSON.stringify(k)}:${reference(value[k])}`)
      .join(",")}}`;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  return JSON.stringify(value) ?? "null";
}

const text = fc.string({ unit: "binary" });
const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    text,
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.bigInt(),
    fc.date({ noInvalidDate: true }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(text, tie("value"), { maxKeys: 4 }),
  ),
})).value;

describe("ownership record hashes", () => {
  it("canonicalJson is the reference text for any value (keys in byte order, any string)", () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { numRuns: 1000 },
    );
  });

  it("sha256 hashes strings as UTF-8 (lone surrogates as U+FFFD) and bytes as they are", () => {
    fc.assert(
      fc.property(text, fc.uint8Array({ maxLength: 100 }), (s, b) => {
        expect(sha256(s)).toBe(createHash("sha256").update(s).digest("hex"));
        expect(sha256(b)).toBe(createHash("sha256").update(b).digest("hex"));
      }),
    );
  });

  it("keeps the hashes existing records hold", () => {
    const handler = { type: "command", command: "guard --deny", timeout: 5 };
    expect(handlerKey("PreToolUse", "Bash", handler)).toBe(
      "e5fe775ab5c6009f0826def211012934fc5d79e4809e741f1489963efab24703",
    );
    expect(valueHash({ command: "mcp", args: ["--stdio"], env: { TOKEN: "${T}" } })).toBe(
      "caa9916fe31585fd319b48fdbbd760feb0bd94dc9f6282e6e965b830fd52e08d",
    );
  });
});
