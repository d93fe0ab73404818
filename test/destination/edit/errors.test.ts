import { describe, expect, it } from "vitest";
import { verified } from "../../../src/destination/edit/errors.js";
import { KanonError } from "../../../src/model/types.js";

describe("verified (defence in depth)", () => {
  it("returns the edited text when it holds the intended document", () => {
    expect(verified("text", "x.json", () => true)).toBe("text");
  });

  it("fails with one clear line instead of returning a wrong or unparsable text", () => {
    const message =
      "cannot merge x.json: the edited text would not hold the intended settings (a kanon bug; please report it)";
    expect(() => verified("text", "x.json", () => false)).toThrow(KanonError);
    expect(() => verified("text", "x.json", () => false)).toThrow(message);
    expect(() =>
      verified("text", "x.json", () => {
        throw new SyntaxError("bad");
      }),
    ).toThrow(message);
  });
});
