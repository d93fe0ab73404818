/**
 * The nodes rebuilt from js-yaml's parse events stand in for the yaml library's parse in the
 * positional decoder: for every document both read alike they must be the same nodes (kinds, start
 * offsets, values, plain style, sources of non-strings, alias targets), so that every message keeps
 * its words and its `kanon.yaml:LINE:COL`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import * as jsYaml from "js-yaml";
import { describe, expect, it } from "vitest";
import { isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument, visit } from "yaml";
import { decodeYaml } from "../../src/source/decode.js";
import { decodePositional } from "../../src/source/decode-positional.js";
import { MAX_LIBRARY_PARSE, MAX_NESTING, MAX_VALUES } from "../../src/source/limits.js";
import { kanonSchema } from "../../src/source/schema.js";
import { NotRebuilt, parseFast } from "../../src/source/yaml-nodes.js";
import { ROOT } from "../support/cli.js";

const schema = kanonSchema(["codex", "claude", "opencode"], ["PreToolUse", "Stop"]);

function library(text: string) {
  const doc = parseDocument(text, {
    lineCounter: new LineCounter(),
    prettyErrors: false,
    merge: true,
    uniqueKeys: false,
  });
  const anchors = new Map<string, Node>();
  const aliases = new Map<Node, Node | null>();
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node)) aliases.set(node, anchors.get(node.source) ?? null);
      else if (node.anchor) anchors.set(node.anchor, node);
    },
  });
  return { doc, aliases };
}

const kindOf = (n: unknown) =>
  isAlias(n) ? "alias" : isMap(n) ? "map" : isSeq(n) ? "seq" : isScalar(n) ? "scalar" : String(n);

/** The first difference between two node trees, or null. */
function difference(
  a: unknown,
  b: unknown,
  aliasesA: Map<Node, Node | null>,
  aliasesB: Map<Node, Node | null>,
  path = "",
  seen = new Map<unknown, unknown>(),
): string | null {
  if (a === null || b === null) return a === b ? null : `${path}: ${kindOf(a)} vs ${kindOf(b)}`;
  if (seen.has(a)) return seen.get(a) === b ? null : `${path}: alias target`;
  seen.set(a, b);
  if (kindOf(a) !== kindOf(b)) return `${path}: ${kindOf(a)} vs ${kindOf(b)}`;
  const [na, nb] = [a as Node, b as Node];
  if (na.range?.[0] !== nb.range?.[0]) return `${path}: starts at ${na.range?.[0]} vs ${nb.range?.[0]}`;
  if (isAlias(na) && isAlias(nb)) {
    if (na.source !== nb.source) return `${path}: alias name`;
    return difference(
      aliasesA.get(na) ?? null,
      aliasesB.get(nb) ?? null,
      aliasesA,
      aliasesB,
      `${path}*`,
      seen,
    );
  }
  if (isScalar(na) && isScalar(nb)) {
    // The library reads a merge key `<<` as a symbol; the decoder takes either.
    const vb = typeof nb.value === "symbol" ? "<<" : nb.value;
    if (!Object.is(na.value, vb)) return `${path}: ${String(na.value)} vs ${String(vb)}`;
    if ((na.type === "PLAIN") !== (nb.type === "PLAIN")) return `${path}: style ${na.type} vs ${nb.type}`;
    if (typeof na.value !== "string" && na.value !== null && na.source !== nb.source)
      return `${path}: source ${na.source} vs ${nb.source}`;
    return null;
  }
  const [ia, ib] = [
    (na as unknown as { items: unknown[] }).items,
    (nb as unknown as { items: unknown[] }).items,
  ];
  if (ia.length !== ib.length) return `${path}: ${ia.length} vs ${ib.length} items`;
  for (let i = 0; i < ia.length; i++) {
    const [x, y] = [ia[i], ib[i]] as [{ key?: unknown; value?: unknown }, { key?: unknown; value?: unknown }];
    const d = isMap(na)
      ? (difference(x.key, y.key, aliasesA, aliasesB, `${path}.key${i}`, seen) ??
        difference(x.value, y.value, aliasesA, aliasesB, `${path}.value${i}`, seen))
      : difference(x, y, aliasesA, aliasesB, `${path}[${i}]`, seen);
    if (d) return d;
  }
  return null;
}

/** null when both read `text` alike, "skipped" when one of them refuses it, else the difference. */
function compare(text: string): string | null {
  let fast: ReturnType<typeof parseFast>;
  try {
    fast = parseFast(text);
  } catch (e) {
    if (e instanceof NotRebuilt) return "skipped";
    throw e;
  }
  const lib = library(text);
  if (!fast.exact || lib.doc.errors.length > 0) return "skipped";
  return difference(fast.contents, lib.doc.contents, fast.aliases, lib.aliases);
}

/** Whether js-yaml and the library read the same value (false when either refuses the text). */
function sameValue(text: string): boolean {
  try {
    return isDeepStrictEqual(
      jsYaml.load(text) ?? null,
      library(text).doc.toJS({ maxAliasCount: -1 }) ?? null,
    );
  } catch {
    return false;
  }
}

describe("nodes rebuilt from js-yaml's events", () => {
  it("match the yaml library's on every construct kanon.yaml uses", () => {
    const cases = [
      "version: 1\nhooks:\n  - name: a\n    command: x\n    args: [1, '2', \"3\", ~, yes]\n",
      "hooks:\n  -\n  - name: a\n  -\n  -   # empty\n  - ~\n",
      "a: &x [1, {b: c}]\nb: *x\nc: &y\nd: !!str\ne: &z !!str\nf: *y\n",
      "x-base: &base {event: Stop, command: /bin/guard}\nhooks:\n  - <<: *base\n    name: a\n  - *base\n",
      "seq: [a: b, c, {d: e}, [f]]\nflow: {a: 1, b, c: }\n",
      '- [a]\n- {b: c}\n- "q"\n- *nope\n'.replace("*nope", "x"),
      "\uFEFFversion: 1\nmetadata:\n  k: v\n",
      "metadata:\n  lit: |\n    two\n    lines\n  fold: >-\n    a\n    b\n  multi: plain\n    continued\n",
      "timeout: 0x1F\nn: -5\nf: 1.50\nbig: 99999999999999999999\ninf: .inf\nt: True\n",
      "a:\n  - b\n  -\n    - c\n  - - d\n    - e\n",
      "? explicit\n: value\n? alone\nplain: 1\n",
      "a: 1 # comment\n# between\nb:   # comment after the indicator\n  c: 2\n",
      "",
      "# only a comment\n",
      "---\nversion: 1\n...\n",
    ];
    for (const text of cases) expect(compare(text), JSON.stringify(text)).toBeNull();
  });

  it("match the yaml library's on mutations of real homes (property)", () => {
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
      "&a [1, 2]",
      "<<: *a",
      "<<: [*a, *a]",
      "!!str",
      "!!int 3",
      "? complex",
      "|",
      ">-",
      "- item",
      "key: value",
      "[a: b]",
      "{a: [b, {c: d}]}",
      '"multi\n  line"',
      "# note",
      "-",
      "- - x",
      "a: &a\n  b: 1",
    ];
    let compared = 0;
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
        // Where js-yaml and the library read different values (`-0x1F` is -31 to js-yaml, a string to
        // the library's YAML 1.2 core schema), the rebuild follows js-yaml, kanon's reader.
        if (!sameValue(text)) return;
        const d = compare(text);
        if (d === "skipped") return;
        compared++;
        expect(d, text).toBeNull();
      }),
      { numRuns: 400 },
    );
    // Most mutations must be read by both, or this compares nothing.
    expect(compared).toBeGreaterThan(40);
  });
});

describe("a document that is one scalar", () => {
  it("is not vouched for when js-yaml reads a block scalar at the root differently", () => {
    // js-yaml keeps the final line break that `>-` strips when the scalar's lines start in column 0.
    const text = ">-\n# c\n  x: 2\n";
    expect(library(text).doc.toJS()).toBe("# c\n  x: 2");
    expect(parseFast(text).exact).toBe(false);
    expect(parseFast("version: 1\nk: >-\n  a\n    b\n").exact).toBe(true);
  });
});

describe("bounded work in the positional decoder", () => {
  it("refuses lists or mappings nested past the limit, at the first one, in both decoders", async () => {
    const deep = (n: number) =>
      `metadata:\n  a: ${"[".repeat(n)}x${"]".repeat(n)}\n  b: ${"[".repeat(n)}y${"]".repeat(n)}\n`;
    const within = await decodeYaml(deep(MAX_NESTING - 5), "kanon.yaml", schema);
    expect(within.errors).toEqual([
      "kanon.yaml:2:6: metadata.a: expected a string, got a list",
      "kanon.yaml:3:6: metadata.b: expected a string, got a list",
    ]);
    const past = await decodeYaml(deep(MAX_NESTING), "kanon.yaml", schema);
    expect(past.errors).toHaveLength(1);
    expect(past.errors[0]).toMatch(/^kanon\.yaml:2:\d+: lists or mappings are nested too deeply here$/);
  });

  it("refuses a file with more keys and values than the limit, where it is crossed, in both decoders", async () => {
    // The root mapping, "hooks" and the list are three; each hook, a mapping with two keys and two values, is five.
    const hooks = (n: number, last = "") =>
      `hooks:\n${Array.from({ length: n }, (_, i) => `  - name: h${i}\n    command: c\n`).join("")}${last}`;
    const within = hooks((MAX_VALUES - 5) / 5);
    expect((await decodeYaml(within, "kanon.yaml", schema)).errors).toEqual([]);
    // One more hook: its mapping and "name" reach the limit, and its value crosses it.
    const past = await decodeYaml(hooks((MAX_VALUES - 5) / 5, "  - name: last\n"), "kanon.yaml", schema);
    expect(past.errors).toEqual([
      `kanon.yaml:${within.split("\n").length}:11: more than ${MAX_VALUES} keys and values, this is the next one; a large home has about 15000`,
    ]);
  });

  it("reports every syntax error of a small file in the yaml library's words, only the first of a large one", () => {
    const broken = "version: 1\nhooks: [\n  - a\n";
    const small = decodePositional(broken, "kanon.yaml", schema).errors;
    expect(small.length).toBeGreaterThan(0);
    expect(small.every((e) => e.startsWith("kanon.yaml:"))).toBe(true);
    const padding = `metadata:\n${Array.from({ length: MAX_LIBRARY_PARSE / 8 }, (_, i) => `  k${i}: value\n`).join("")}`;
    const large = decodePositional(`${padding}x: [a, b\ny: 1\n`, "kanon.yaml", schema).errors;
    expect(large).toHaveLength(1);
    expect(large[0]).toMatch(
      /^kanon\.yaml:\d+:\d+: .+ \(a file this large is checked up to its first syntax error\)$/,
    );
  });

  it("leaves a document js-yaml reads differently to the yaml library", () => {
    // js-yaml puts "d" in the second item, after an empty item of its own.
    const text = "hooks:\n  - name: a\n  -\n    - c\n    -\n  - - d\n";
    expect(() => parseFast(text)).toThrow(NotRebuilt);
    expect(decodePositional(text, "kanon.yaml", schema).errors).toEqual([
      "kanon.yaml:4:5: hooks[1]: expected a mapping, got a list",
      "kanon.yaml:6:5: hooks[2]: expected a mapping, got a list",
    ]);
  });

  it("leaves a file with a lone CR to the yaml library (js-yaml ends a line there, the library does not)", () => {
    // js-yaml reads two keys here, a: x and b: y.
    const text = "metadata:\n  a: x\r  b: y\n";
    expect(parseFast(text).exact).toBe(false);
    expect(decodePositional(text, "kanon.yaml", schema).errors).toEqual([
      "kanon.yaml:2:6: Nested mappings are not allowed in compact mappings",
    ]);
  });
});
