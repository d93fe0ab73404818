// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` env references are data in these tests
/**
 * isReference and lineSecret: the same answers as the single regexes they were written with, in time
 * linear in the value or line, however many references it leaves open.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isReference, lineSecret, secretKey } from "../../src/core/secrets.js";

// The regexes kanon matched the whole value or line with until hostile text made them quadratic.
const WHOLE_REFERENCE =
  /\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}|\$\{secret:[A-Za-z_][A-Za-z0-9_]*\}|\{env:[A-Za-z_][A-Za-z0-9_]*\}|KANON_REDACTED_SECRET_REVIEW_REQUIRED/;
const WHOLE_LINE_PAIR =
  /(?:^|[\s{,[])["']?([A-Za-z0-9_.-]+)["']?\s*[:=]\s*("(?:[^"\\]|\\.)*"|'[^']*'|\$\{[^}]*\}|\{env:[^}]*\}|[^\s,}\]#]+)/g;

const wholeIsReference = (value: string) =>
  WHOLE_REFERENCE.test(value) || value.startsWith("op://") || /^\$[A-Za-z_][A-Za-z0-9_]*$/.test(value);

/** lineSecret's key/value half as it was (the pieces below never make a token shape). */
function wholeLinePairSecret(line: string): string | null {
  for (const m of line.matchAll(WHOLE_LINE_PAIR)) {
    const key = m[1]!;
    const raw = m[2]!;
    const value = /^["']/.test(raw) ? raw.slice(1, -1) : raw;
    if (!secretKey(key) || value.length < 8 || /\s/.test(value) || wholeIsReference(value)) continue;
    if (/^(true|false|null|none|changeme|example)$/i.test(value) || /^[<[{]/.test(value)) continue;
    return `a value for ${JSON.stringify(key)}`;
  }
  return null;
}

/** Values and lines made of references', keys' and quotes' pieces, and of `key: value` pairs of them. */
const pieces = fc
  .array(
    fc.constantFrom(
      ..."${}:-=\"' ,#[]\\".split(""),
      "${",
      ":-",
      "{env:",
      "secret:",
      "a",
      "B_1",
      "token",
      "api_key",
      "12345678",
      "op://",
      "KANON_REDACTED_SECRET_REVIEW_REQUIRED",
    ),
    { maxLength: 20 },
  )
  .map((units) => units.join(""));
const pair = fc
  .tuple(fc.constantFrom("token", '"api_key"', "a"), fc.constantFrom(":", ": ", " = "), pieces)
  .map((parts) => parts.join(""));
const lines = fc.array(fc.oneof(pieces, pair), { maxLength: 4 }).map((parts) => parts.join(" "));

describe("isReference and lineSecret", () => {
  it("answer as the single regexes over the whole value or line did (property)", () => {
    fc.assert(
      fc.property(lines, (text) => {
        expect(isReference(text)).toBe(wholeIsReference(text));
        expect(lineSecret(text, "config.yaml")).toBe(wholeLinePairSecret(text));
      }),
      { numRuns: 10_000 },
    );
  });

  it("find pairs after the line's last } and references before it", () => {
    const lines = [
      ["{a: ${X}} token: abcdefgh1", 'a value for "token"'],
      ["token: ${NOT A REF} api_key: ${OPENVALUE", 'a value for "api_key"'],
      ["token: ${NOT-A-REF}", 'a value for "token"'],
      ["token: ${NOT,A,REF}", 'a value for "token"'],
      ['token: "a}bcdefgh" x', 'a value for "token"'],
      ["token: ${A:-b} api_key: {env:OPEN", null],
    ] as const;
    for (const [line, found] of lines) {
      expect(lineSecret(line, "c.yaml"), line).toBe(found);
      expect(wholeLinePairSecret(line), line).toBe(found);
    }
    expect(isReference("${OPEN:- ${A:-b}")).toBe(true);
  });

  it("take time linear in the text, however many references it leaves open", () => {
    // 120,000 characters each: a scan to the end of the text from every open `${` takes seconds here.
    const n = 24_000;
    const start = performance.now();
    expect(isReference("${a:-".repeat(n))).toBe(false);
    expect(isReference(`${"${a:-".repeat(n)}}`)).toBe(true);
    expect(lineSecret(" a:${".repeat(n), "c.yaml")).toBeNull();
    expect(lineSecret(" a:{env:".repeat(n / 2), "c.yaml")).toBeNull();
    const line = `{x}${" a:${".repeat(n)} token: abcdefgh1`;
    expect(lineSecret(line, "c.yaml")).toBe('a value for "token"');
    expect(performance.now() - start).toBeLessThan(1000);
  });
});
