/**
 * segmentProblem takes an ASCII-only pattern for ASCII names (core/names.ts): for every ASCII
 * character, first and later in a name, its answer is the one of the Unicode pattern.
 */
import { describe, expect, it } from "vitest";
import { segmentProblem } from "../../src/core/names.js";

const UNICODE = /^[\p{L}\p{N}_@+~,=][\p{L}\p{N}\p{M}_.:@+~,=-]*$/u;

describe("segmentProblem on ASCII names", () => {
  it("agrees with the Unicode pattern on every ASCII character, first and later", () => {
    for (let c = 0; c < 0x80; c++) {
      const ch = String.fromCharCode(c);
      for (const name of [`${ch}a`, `a${ch}`, `a${ch}b`, ch]) {
        expect(segmentProblem(name) === null, JSON.stringify(name)).toBe(UNICODE.test(name));
      }
    }
  });

  it("still takes letters, digits and marks of any script", () => {
    expect(segmentProblem("café-ñ")).toBeNull();
    expect(segmentProblem("技能")).toBeNull();
    expect(segmentProblem("e\u0301tude")).toBeNull();
    expect(segmentProblem("\u0301e")).not.toBeNull();
    expect(segmentProblem("a b")).not.toBeNull();
    expect(segmentProblem("a\u00a0b")).not.toBeNull();
  });
});
