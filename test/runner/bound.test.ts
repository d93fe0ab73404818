/**
 * The runner's bound, for any text and any limit: at most `max` code points and under the agent's
 * ceiling, a prefix of whole lines of the text followed by one closing line, or the text itself when
 * it fits.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bound } from "../../src/runner/runner.js";

const codePoints = (s: string) => [...s].length;
const CLOSING = /\[kanon: (\d+) more characters cut\]$/;

// Lines of any Unicode text (astral characters too), as hooks print them.
const text = fc
  .array(fc.oneof(fc.string({ unit: "grapheme", maxLength: 80 }), fc.string({ maxLength: 40 })), {
    maxLength: 60,
  })
  .map((lines) => lines.join("\n"));
const ceiling = fc.option(
  fc.record({
    max: fc.integer({ min: 1, max: 3000 }),
    unit: fc.constantFrom("utf16" as const, "bytes/4" as const),
  }),
  { nil: null },
);

describe("bound", () => {
  it("keeps text that fits as it is", () => {
    expect(bound("a\nb", 3, null)).toBe("a\nb");
    expect(bound("日本語", 3, { max: 3, unit: "utf16" })).toBe("日本語");
  });

  it("counts code points, not UTF-16 units or bytes", () => {
    const astral = "😀".repeat(10); // 10 code points, 20 UTF-16 units, 40 bytes
    expect(bound(astral, 10, null)).toBe(astral);
  });

  it("cuts at the last line boundary that fits, with one closing line", () => {
    const line = `${"x".repeat(9)}\n`;
    const lines = line.repeat(10); // 100 characters
    expect(bound(lines, 60, null)).toBe(`${line}${line}[kanon: 80 more characters cut]`);
  });

  it("gives nothing when not even the closing line fits", () => {
    expect(bound("x".repeat(100), 10, null)).toBe("");
  });

  it("holds for any text and any limit (property)", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 2000 }), ceiling, (s, max, c) => {
        const out = bound(s, max, c);
        expect(codePoints(out)).toBeLessThanOrEqual(max);
        if (c) {
          const count = c.unit === "utf16" ? out.length : Math.ceil(Buffer.byteLength(out) / 4);
          expect(count).toBeLessThanOrEqual(c.max);
        }
        if (out === s || out === "") return;
        const closing = CLOSING.exec(out);
        expect(closing).not.toBeNull();
        const kept = out.slice(0, closing!.index);
        // Whole lines of the text, and the closing line says how much of it was cut.
        expect(s.startsWith(kept)).toBe(true);
        expect(kept === "" || kept.endsWith("\n")).toBe(true);
        expect(Number(closing![1])).toBe(codePoints(s) - codePoints(kept));
      }),
      { numRuns: Number(process.env.FUZZ_CASES ?? 300) },
    );
  });

  it("keeps every line that fits (property: one more would not, with room for the closing line)", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 40, max: 2000 }), (s, max) => {
        const out = bound(s, max, null);
        if (out === s || out === "") return;
        const kept = out.slice(0, CLOSING.exec(out)!.index);
        const nextEnd = s.indexOf("\n", kept.length);
        if (nextEnd < 0) return;
        // The room kept for the closing line is its length when everything is cut.
        const room = `[kanon: ${codePoints(s)} more characters cut]`.length;
        expect(codePoints(s.slice(0, nextEnd + 1)) + room).toBeGreaterThan(max);
      }),
      { numRuns: Number(process.env.FUZZ_CASES ?? 200) },
    );
  });
});
