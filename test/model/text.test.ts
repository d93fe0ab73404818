import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareBytes, trimSpace, wordList } from "../../src/model/text.js";

/** Strings rich in the cases that matter: ASCII, BMP above the surrogates, astral pairs, lone surrogates. */
const tricky = fc.string({
  unit: fc.constantFrom(
    "a",
    "b",
    "é",
    "\uE000",
    "\uFFFD",
    "\uFFFF",
    "\u{1F600}",
    "\u{10000}",
    "\uD83D",
    "\uDE00",
  ),
  maxLength: 6,
});
const anyString = fc.oneof(tricky, fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }));

describe("compareBytes", () => {
  it("orders as the UTF-8 bytes do (lone surrogates as U+FFFD)", () => {
    fc.assert(
      fc.property(anyString, anyString, (a, b) => {
        expect(Math.sign(compareBytes(a, b))).toBe(Buffer.compare(Buffer.from(a), Buffer.from(b)));
      }),
      { numRuns: 5000 },
    );
  });

  it("puts astral characters after the rest of the BMP, as Go does", () => {
    expect(["\u{1F600}", "\uFFFD", "é", "b", "B", ""].sort(compareBytes)).toEqual([
      "",
      "B",
      "b",
      "é",
      "\uFFFD",
      "\u{1F600}",
    ]);
  });
});

describe("trimSpace", () => {
  it("trims Unicode White_Space (Go's TrimSpace, Rust's trim) but not U+FEFF", () => {
    expect(trimSpace("\u3000\t x \u0085\u00a0\n")).toBe("x");
    expect(trimSpace("\ufeffx\ufeff")).toBe("\ufeffx\ufeff");
  });
});

describe("wordList", () => {
  it("joins words for a message, the last with the conjunction", () => {
    expect(wordList([], "and")).toBe("");
    expect(wordList(["codex"], "or")).toBe("codex");
    expect(wordList(["codex", "claude"], "and")).toBe("codex and claude");
    expect(wordList(["a", "b", "c"], "or")).toBe("a, b or c");
  });
});
