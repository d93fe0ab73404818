/**
 * simple-yaml.ts reads only what js-yaml reads the same way: on generated documents — block and
 * flow collections in every layout, scalars that YAML types or quotes, comments, and random damage —
 * whenever it gives a value, js-yaml (with the core schema and merge keys, as decode.ts uses it)
 * gives the same one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import * as jsYaml from "js-yaml";
import { describe, expect, it } from "vitest";
import { BAIL, parseSimpleYaml } from "../../src/source/simple-yaml.js";
import { ROOT } from "../support/cli.js";

const { merge } = (jsYaml as unknown as { types: { merge: jsYaml.Type } }).types;
const SCHEMA = jsYaml.CORE_SCHEMA.extend({ implicit: [merge] });
const jsYamlValue = (text: string) => jsYaml.load(text, { schema: SCHEMA });

/** Scalars kanon.yaml is full of, and (below) ones YAML types, quotes or refuses. */
const PLAIN = [
  "a",
  "x y z",
  "-y",
  "--stdio",
  "/usr/bin/guard",
  "$HOME",
  "${X:-y}",
  "é",
  "a:b",
  "a#b",
  "1",
  "true",
];
const SCALARS = [
  ...["@x/y", "~", "false", "10"],
  ...["true", "True", "TRUE", "false", "yes", "no", "on", "null", "Null", "~", "NULL", ""],
  ...["0", "1", "-1", "+1", "-0", "007", "0x1F", "0o7", "1.5", "1e3", ".inf", "-.inf", ".nan", "12:30"],
  ...["99999999999999999999", "1_000", "+", "-", ".5", "1.", "Infinity", "-Infinity", "NaN"],
  ...["a: b", "a #b", "a #", "- a", "'q'", '"dq"', '"a\\nb"', "'it''s'", "it's", '"a" b', "'x' y"],
  ...["[x]", "[a, b]", "[a, [b]]", "[a, ]", "[ ]", "[]", "{}", "{a: 1}", "&a x", "*a", "!t x", "|", ">"],
  ...["%x", "`x`", "?x", "? x", ":x", ",x", "#x", 'echo "a: b"', "printf '\\a'", "a\\b", "x]"],
];
const SAFE_KEYS = ["a", "b_c", "d-e", "f.g", "h/i", "$j", "k"];
const KEYS = ["true", "null", "1", "__proto__", "<<", "a b", '"q"', "k:"];

type Node =
  | { kind: "scalar"; text: string }
  | { kind: "map"; entries: [string, Node][] }
  | { kind: "seq"; items: Node[] };

const { node } = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc
      .oneof({ weight: 12, arbitrary: fc.constantFrom(...PLAIN) }, fc.constantFrom(...SCALARS))
      .map((text): Node => ({ kind: "scalar", text })),
    fc
      .array(
        fc.tuple(
          fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...SAFE_KEYS) }, fc.constantFrom(...KEYS)),
          tie("node"),
        ),
        { minLength: 1, maxLength: 4 },
      )
      .map((entries): Node => ({ kind: "map", entries })),
    fc.array(tie("node"), { minLength: 1, maxLength: 4 }).map((items): Node => ({ kind: "seq", items })),
  ),
}));

/** Layout choices: indentation, compact sequences under keys, comments, blank lines. */
const layout = fc.record({
  unit: fc.constantFrom(1, 2, 4),
  compact: fc.boolean(),
  comments: fc.boolean(),
});

function render(n: Node, l: { unit: number; compact: boolean; comments: boolean }): string {
  const out: string[] = [];
  const note = () => (l.comments && out.length % 3 === 1 ? " # note" : "");
  // `prefix` ("- ") goes before the first line of a mapping or scalar that is a sequence item.
  const write = (v: Node, indent: number, prefix: string): void => {
    const pad = " ".repeat(indent);
    if (v.kind === "scalar") out.push(`${pad}${prefix}${v.text}${note()}`);
    else if (v.kind === "map") {
      const inner = indent + prefix.length;
      v.entries.forEach(([key, child], i) => {
        const head = i === 0 ? pad + prefix : " ".repeat(inner);
        if (child.kind === "scalar") out.push(`${head}${key}: ${child.text}${note()}`);
        else {
          out.push(`${head}${key}:${note()}`);
          if (l.comments && i === 0) out.push("");
          write(child, child.kind === "seq" && l.compact ? inner : inner + l.unit, "");
        }
      });
    } else
      for (const child of v.items) {
        if (child.kind !== "seq") write(child, indent, "- ");
        else {
          out.push(`${pad}-${note()}`);
          write(child, indent + l.unit, "");
        }
      }
  };
  write(n, 0, "");
  return `${out.join("\n")}\n`;
}

/** Random damage: a character from YAML's syntax inserted somewhere. */
const damaged = fc
  .tuple(
    node,
    layout,
    fc.option(
      fc.tuple(fc.nat(), fc.constantFrom(" ", "\n", ":", "-", "#", "'", '"', "[", "]", ",", "\t", "  ", "{")),
    ),
  )
  .map(([n, l, cut]) => {
    const text = render(n, l);
    if (!cut) return text;
    const at = cut[0] % (text.length + 1);
    return text.slice(0, at) + cut[1] + text.slice(at);
  });

describe("simple-yaml", () => {
  it("reads the plain block style of kanon.yaml", () => {
    const text =
      '# comment\nversion: 1\ninstructions:\n  files:\n    - a.md\n    - b.md # two\nhooks:\n- name: x\n  event: Stop\n  command: echo "done" >> log\n  args: [\'-y\', "@x/y", --z]\n  async: true\n  timeout: 10\nmcp:\n  servers: {}\nmetadata:\n';
    const value = parseSimpleYaml(text);
    expect(value).not.toBe(BAIL);
    expect(value).toEqual(jsYamlValue(text));
    const example = readFileSync(join(ROOT, "examples/home/kanon.yaml"), "utf8");
    expect(parseSimpleYaml(example)).toStrictEqual(jsYamlValue(example));
  });

  it("reads every scalar, as a value, an item and in a flow sequence, as js-yaml does or not at all", () => {
    let read = 0;
    for (const s of [...PLAIN, ...SCALARS])
      for (const text of [`a: ${s}\n`, `- ${s}\n`, `a: [${s}]\n`, `a: [b, ${s}] # c\n`]) {
        const simple = parseSimpleYaml(text);
        if (simple === BAIL) continue;
        read++;
        expect(simple, text).toStrictEqual(jsYamlValue(text));
      }
    expect(read).toBeGreaterThan(100);
  });

  it("gives a value only where js-yaml gives the same one (property)", () => {
    let read = 0;
    fc.assert(
      fc.property(damaged, (text) => {
        const simple = parseSimpleYaml(text);
        if (simple === BAIL) return;
        read++;
        // toStrictEqual: -0 is not 0, and no key may be missing or undefined.
        expect(simple, text).toStrictEqual(jsYamlValue(text));
      }),
      { numRuns: 6000 },
    );
    // The comparison means something only if the reader takes a good share of the documents.
    expect(read).toBeGreaterThan(400);
  });

  it("leaves anchors, block scalars, escapes, merge keys and duplicate keys to js-yaml", () => {
    for (const text of [
      "a: &x 1\nb: *x\n",
      "a: |\n  text\n",
      'a: "x\\ny"\n',
      "<<: {a: 1}\n",
      "a: 1\na: 2\n",
      "a: b\n  c\n",
      "--- \na: 1\n",
      "a:\r\n  b: 1\n",
      "a: 1.5\n",
      "",
    ])
      expect(parseSimpleYaml(text), text).toBe(BAIL);
  });
});
