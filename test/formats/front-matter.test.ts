/**
 * What kanon writes into an agent's command and subagent files reads back as written: every front
 * matter string (plain where that is safe in YAML 1.1 and 1.2, else double-quoted), list and map,
 * and every TOML prompt (a multi-line literal where it can be), for any text (property tests).
 */
import fc from "fast-check";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { encodeFrontMatter, yamlScalar } from "../../src/formats/front-matter.js";
import { encodeTomlMultiline } from "../../src/formats/toml.js";

/** Text with the characters YAML and TOML treat specially, and any other. */
const text = fc.oneof(
  fc.string({
    unit: fc.constantFrom(..."ab 1:#-'\"\\\n\t\r{}[],&*!|>%@`?=~.yesNoONnull0x_$"),
    maxLength: 12,
  }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc.constantFrom(
    "yes",
    "No",
    "on",
    "null",
    "~",
    "1e3",
    "e1",
    "E5",
    "1_0.e2",
    "0x1F",
    "0o7",
    "1_000",
    ".5",
    "2026-12-06",
    "12:30",
    "-",
    "a: b",
    "a #b",
    " x",
    "x ",
  ),
);

describe("front matter", () => {
  it("a string reads back the same in YAML 1.2 and 1.1 (property)", () => {
    fc.assert(
      fc.property(text, (s) => {
        for (const version of ["1.2", "1.1"] as const)
          expect(parseYaml(`k: ${yamlScalar(s)}\n`, { version }).k).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });

  it("lists and maps read back the same, and the body follows byte for byte", () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 3 }), text, fc.string(), (list, key, body) => {
        const file = encodeFrontMatter(
          [
            ["tools", list],
            ["model", { [key || "k"]: key }],
            ["on", { "*": false }],
          ],
          body,
        );
        const end = file.indexOf("\n---\n");
        expect(parseYaml(file.slice(4, end + 1))).toEqual({
          tools: list,
          model: { [key || "k"]: key },
          on: { "*": false },
        });
        expect(file.slice(end + 5)).toBe(body);
      }),
    );
  });

  it("a body whose first line is --- gets an empty front matter before it", () => {
    expect(encodeFrontMatter([], "---\nnot front matter\n---\n")).toBe(
      "---\n---\n---\nnot front matter\n---\n",
    );
    expect(encodeFrontMatter([], "plain\n")).toBe("plain\n");
  });
});

describe("a TOML prompt", () => {
  it("reads back the same (property), as a multi-line literal when it can", () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(parseToml(`p = ${encodeTomlMultiline(s)}\n`).p).toBe(s);
      }),
      { numRuns: 2000 },
    );
    expect(encodeTomlMultiline("two\nlines\n")).toBe("'''\ntwo\nlines\n'''");
  });
});
