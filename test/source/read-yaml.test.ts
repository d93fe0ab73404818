/**
 * kanon.yaml's one reading path (read-yaml.ts, decode.ts): the yaml library within limits. Every
 * message a user can get names its position, and a file past a limit is refused where it crosses it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeYaml } from "../../src/source/decode.js";
import { MAX_CHARACTERS, MAX_NESTING, MAX_VALUES } from "../../src/source/limits.js";
import { kanonSchema } from "../../src/source/schema.js";
import { ROOT } from "../support/cli.js";

const schema = kanonSchema(["codex", "claude", "opencode"], ["PreToolUse", "Stop"]);
const decode = (text: string) => decodeYaml(text, "kanon.yaml", schema);

describe("syntax errors", () => {
  it("are each reported in the yaml library's words, at their line and column, however large the file", () => {
    const padding = `metadata:\n${Array.from({ length: 20_000 }, (_, i) => `  k${i}: value\n`).join("")}`;
    const lines = padding.split("\n").length - 1;
    const errors = decode(`${padding}x: [a, b\ny: "open\n`).errors;
    expect(errors.length).toBeGreaterThan(1);
    for (const e of errors) expect(e).toMatch(/^kanon\.yaml:\d+:\d+: \S/);
    // The unclosed list is found where the next line starts.
    expect(errors[0]).toMatch(new RegExp(`^kanon\\.yaml:${lines + 2}:1: Flow sequence in block collection`));
  });

  it("include a tab used as indentation and a key without its value's indentation", () => {
    expect(decode("hooks:\n\t- name: a\n").errors[0]).toMatch(/^kanon\.yaml:2:1: .*[Tt]ab/);
    expect(decode("hooks:\n  - name: a\n   command: x\n").errors[0]).toMatch(/^kanon\.yaml:3:\d+: /);
  });

  it("and a second document, named as such", () => {
    expect(decode("version: 1\n---\nhooks: []\n").errors).toEqual([
      'kanon.yaml:2:1: a second YAML document starts here; kanon.yaml holds one document (remove the "---" line)',
    ]);
    // A document that starts with --- or ends with ... is one document.
    expect(decode("---\nversion: 1\n...\n").errors).toEqual([]);
  });

  it("name the file as the command was given it", () => {
    expect(decodeYaml("version: [\n", "/tmp/other.yaml", schema).errors[0]).toMatch(
      /^\/tmp\/other\.yaml:\d+:\d+: /,
    );
  });
});

describe("limits", () => {
  it("refuse lists or mappings nested past the limit, at the first one", () => {
    const deep = (n: number) =>
      `metadata:\n  a: ${"[".repeat(n)}x${"]".repeat(n)}\n  b: ${"[".repeat(n)}y${"]".repeat(n)}\n`;
    expect(decode(deep(MAX_NESTING - 5)).errors).toEqual([
      "kanon.yaml:2:6: metadata.a: expected a string, got a list",
      "kanon.yaml:3:6: metadata.b: expected a string, got a list",
    ]);
    const past = decode(deep(MAX_NESTING)).errors;
    expect(past).toHaveLength(1);
    expect(past[0]).toMatch(/^kanon\.yaml:2:\d+: lists or mappings are nested too deeply here$/);
    // Block collections count as flow ones do.
    const block = Array.from({ length: MAX_NESTING + 1 }, (_, i) => `${"  ".repeat(i)}k${i}:`).join("\n");
    expect(decode(`metadata:\n${block} x\n`).errors).toEqual([
      expect.stringMatching(/^kanon\.yaml:\d+:\d+: lists or mappings are nested too deeply here$/),
    ]);
  });

  it("refuse a file with more keys and values than the limit, where it is crossed", () => {
    // The root mapping, "hooks" and the list are three; each hook, a mapping with two keys and two values, is five.
    const hooks = (n: number, last = "") =>
      `hooks:\n${Array.from({ length: n }, (_, i) => `  - name: h${i}\n    command: c\n`).join("")}${last}`;
    const within = hooks((MAX_VALUES - 5) / 5);
    expect(decode(within).errors).toEqual([]);
    // One more hook: its "name" and mapping reach the limit, and its value crosses it.
    expect(decode(hooks((MAX_VALUES - 5) / 5, "  - name: last\n")).errors).toEqual([
      `kanon.yaml:${within.split("\n").length}:11: more than ${MAX_VALUES} keys and values, this is the next one; a large home has about 15000`,
    ]);
  });

  it("refuse a file longer than the limit, at the first character past it", () => {
    const line = `# ${"x".repeat(1022)}\n`;
    const text = `version: 1\n${line.repeat(MAX_CHARACTERS / line.length + 1)}`;
    const lineOf = text.slice(0, MAX_CHARACTERS).split("\n").length;
    const col = MAX_CHARACTERS - text.lastIndexOf("\n", MAX_CHARACTERS - 1);
    expect(decode(text).errors).toEqual([
      `kanon.yaml:${lineOf}:${col}: kanon.yaml is longer than ${MAX_CHARACTERS} characters, this is the next one; a large home has about 150000`,
    ]);
    expect(decode(text.slice(0, MAX_CHARACTERS)).errors).toEqual([]);
  });
});

describe("any text", () => {
  it("decodes, or gets only kanon.yaml:LINE:COL messages inside the file (property)", () => {
    const homes = ["examples/home", "test/fixtures/homes/full", "conformance/home"].map((h) =>
      readFileSync(join(ROOT, h, "kanon.yaml"), "utf8").split("\n"),
    );
    const fragments = [
      "~",
      "[~]",
      "{}",
      "[]",
      "''",
      "-5",
      "0x1F",
      "1e400",
      ".nan",
      "yes",
      "&a",
      "*a",
      "*b",
      "&a [1, 2]",
      "<<: *a",
      "<<: [*a, *a]",
      "!!str",
      "!!int 3",
      "!custom x",
      "? complex",
      "|",
      ">-",
      "- item",
      "key: value",
      "[a: b]",
      "{a: [b, {c: d}]}",
      '"multi\n  line"',
      '"\\0"',
      "'unclosed",
      "# note",
      "-",
      "- - x",
      "a: &a\n  b: 1",
      "---",
      "\t",
      "%YAML 1.2",
      "__proto__: x",
    ];
    const edit = fc.tuple(fc.nat(), fc.constantFrom(...fragments), fc.nat(2), fc.nat(6));
    fc.assert(
      fc.property(fc.nat(homes.length - 1), fc.array(edit, { minLength: 1, maxLength: 4 }), (h, edits) => {
        const lines = [...homes[h]!];
        for (const [at, fragment, how, indent] of edits) {
          const i = at % lines.length;
          const line = lines[i]!;
          if (how === 0 && line.includes(":"))
            lines[i] = `${line.slice(0, line.indexOf(":") + 1)} ${fragment}`;
          else if (how === 1) lines.splice(i, 0, `${" ".repeat(indent)}${fragment}`);
          else lines[i] = `${line}${fragment}`;
        }
        const text = lines.join("\n");
        const d = decode(text);
        const count = text.split("\n").length;
        for (const m of [...d.errors, ...d.warnings]) {
          const [, line, col] = /^kanon\.yaml:(\d+):(\d+): \S/.exec(m) ?? [];
          expect(line, m).toBeDefined();
          expect(Number(line), m).toBeLessThanOrEqual(count);
          expect(Number(col), m).toBeGreaterThan(0);
        }
        if (d.errors.length === 0) expect(d.value === undefined || typeof d.value === "object").toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
