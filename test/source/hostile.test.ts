/**
 * kanon.yaml input that used to crash, change values silently or take unbounded work: each is one
 * `kanon.yaml:LINE:COL: …` error (or decodes exactly).
 */
import { describe, expect, it } from "vitest";
import { decodeYaml, locator } from "../../src/source/decode.js";
import { MAX_ALIASED_VALUES } from "../../src/source/limits.js";
import { kanonSchema } from "../../src/source/schema.js";

const schema = kanonSchema(["codex", "claude", "opencode"], ["PreToolUse"]);
const decode = async (text: string) => decodeYaml(text, "kanon.yaml", schema);
const errorsOf = async (text: string) => (await decode(text)).errors;

describe("malformed values in kanon.yaml", () => {
  it("null list items", async () => {
    expect(await errorsOf("hooks:\n  - name: a\n    command: x\n    args: [null]\n")).toEqual([
      "kanon.yaml:4:12: hooks[0].args[0]: expected a string, got null",
    ]);
    expect(await errorsOf("instructions: {files: [~]}\n")).toEqual([
      "kanon.yaml:1:24: instructions.files[0]: expected a string, got null",
    ]);
    expect(await errorsOf("hooks:\n  - name: a\n    targets: [~]\n")).toEqual([
      "kanon.yaml:3:15: hooks[0].targets[0]: expected a string, got null",
    ]);
    expect(await errorsOf("mcp:\n  servers:\n    s:\n      command: x\n      args:\n        - ~\n")).toEqual([
      "kanon.yaml:6:11: mcp.servers.s.args[0]: expected a string, got null",
    ]);
    expect(await errorsOf("hooks:\n  -\n")).toEqual([
      "kanon.yaml:2:4: hooks[0]: expected a mapping, got null",
    ]);
  });

  it("integers out of range, or that a double cannot hold exactly", async () => {
    expect(await errorsOf("hooks:\n  - name: a\n    timeout: -5\n")).toEqual([
      "kanon.yaml:3:14: hooks[0].timeout: expected an integer from 0 to 2147483647, got number -5",
    ]);
    for (const n of ["99999999999999999999", "9007199254740993", "2147483648"]) {
      expect(
        await errorsOf(`mcp:\n  servers:\n    s:\n      command: x\n      tool_timeout_sec: ${n}\n`),
      ).toEqual([
        `kanon.yaml:5:25: mcp.servers.s.tool_timeout_sec: expected an integer from 0 to 2147483647, got number ${n}`,
      ]);
    }
    // A number in a string field is kept as written, digit for digit.
    const big = await decode("hooks:\n  - name: a\n    command: x\n    args: [99999999999999999999]\n");
    expect(big.value).toEqual({ hooks: [{ name: "a", command: "x", args: ["99999999999999999999"] }] });
    expect((await decode("hooks:\n  - {name: a, timeout: 0x10}\n")).value).toEqual({
      hooks: [{ name: "a", timeout: 16 }],
    });
  });

  it("NUL and unpaired surrogates anywhere, control characters in names", async () => {
    expect(await errorsOf('mcp:\n  servers:\n    s:\n      command: x\n      args: ["a\\0b"]\n')).toEqual([
      "kanon.yaml:5:14: mcp.servers.s.args[0]: contains a NUL character, which no agent can take",
    ]);
    expect(await errorsOf('hooks:\n  - name: a\n    command: "x\\udce9"\n')).toEqual([
      "kanon.yaml:3:14: hooks[0].command: contains an unpaired surrogate U+DCE9, which cannot be written as UTF-8",
    ]);
    expect(await errorsOf('mcp:\n  servers:\n    "a\\eb":\n      command: x\n')).toEqual([
      "kanon.yaml:3:5: mcp.servers.a\u001bb: contains the control character U+001B, which is not allowed in a name",
    ]);
    // Tabs and newlines in values are fine.
    expect((await decode('hooks:\n  - name: a\n    command: "a\\tb\\nc"\n')).errors).toEqual([]);
  });

  it("names that would reach an object's prototype", async () => {
    for (const name of ["__proto__", "constructor", "prototype"]) {
      expect(await errorsOf(`mcp:\n  servers:\n    ${name}:\n      command: x\n`)).toEqual([
        `kanon.yaml:3:5: mcp.servers.${name}: "${name}" cannot be used as a name`,
      ]);
    }
    // As a field of an object it is an unknown key like any other.
    const d = await decode("hooks:\n  - name: a\n    constructor: x\n");
    expect(d.errors).toEqual([]);
    expect(d.warnings).toEqual(['kanon.yaml:3:5: unknown key "hooks[0].constructor" is ignored']);
  });

  it("an alias to no anchor (before it)", async () => {
    expect(await errorsOf("hooks:\n  - name: a\n    args: [*nope]\n")).toEqual([
      "kanon.yaml:3:12: hooks[0].args[0]: alias *nope refers to no anchor before it",
    ]);
  });

  it("collections nested thousands deep", async () => {
    const errors = await errorsOf(`hooks: ${"[".repeat(3000)}${"]".repeat(3000)}\n`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^kanon\.yaml:1:\d+: lists or mappings are nested too deeply here$/);
  });

  it("a second document", async () => {
    expect(await errorsOf("version: 1\n---\nhooks: []\n")).toEqual([
      'kanon.yaml:2:1: a second YAML document starts here; kanon.yaml holds one document (remove the "---" line)',
    ]);
  });

  it("merge keys work, explicit keys win", async () => {
    const text =
      "x-base: &base {event: Stop, command: /bin/guard, timeout: 5}\nx-more: &more {async: true, timeout: 9}\n" +
      "hooks:\n  - name: a\n    <<: *base\n    timeout: 7\n  - name: b\n    <<: [*base, *more]\n";
    const expected = {
      hooks: [
        { name: "a", event: "Stop", command: "/bin/guard", timeout: 7 },
        { name: "b", event: "Stop", command: "/bin/guard", timeout: 5, async: true },
      ],
    };
    expect((await decode(text)).value).toEqual(expected);
    const quiet =
      "hooks:\n  - &base {name: a, event: Stop, command: /bin/guard, timeout: 5}\n  - {<<: *base, name: b}\n";
    expect((await decode(quiet)).value).toEqual({
      hooks: [
        { name: "a", event: "Stop", command: "/bin/guard", timeout: 5 },
        { name: "b", event: "Stop", command: "/bin/guard", timeout: 5 },
      ],
    });
    expect((await decode("hooks:\n  - name: a\n    <<: 3\n")).errors).toEqual([
      "kanon.yaml:3:5: a merge key (<<) takes a mapping or a list of mappings",
    ]);
  });

  it("bytes that are not UTF-8 are reported by loadConfig (see the CLI tests); duplicate keys still are", async () => {
    expect(await errorsOf("version: 1\nversion: 1\n")).toEqual(["kanon.yaml:2:1: Map keys must be unique"]);
  });
});

describe("an mcp_tool hook's input (any YAML value)", () => {
  const hook = (input: string) =>
    `hooks:\n  - name: m\n    type: mcp_tool\n    server: s\n    tool: t\n    input: ${input}\n`;

  it("decodes to JSON", async () => {
    const text = hook(
      "{path: a, level: 2, ratio: 0.5, fix: true, tags: [x, ~, 1], none: ~, deep: {k: [{v: y}]}}",
    );
    const d = await decode(text);
    expect(d.errors).toEqual([]);
    const input = {
      path: "a",
      level: 2,
      ratio: 0.5,
      fix: true,
      tags: ["x", null, 1],
      none: null,
      deep: { k: [{ v: "y" }] },
    };
    expect((d.value as { hooks: { input: unknown }[] }).hooks[0]!.input).toEqual(input);
  });

  it("holds it to the rules of every other value: NUL, prototype names, numbers JSON cannot hold", async () => {
    expect(await errorsOf(hook('{a: "x\\0y"}'))).toEqual([
      "kanon.yaml:6:16: hooks[0].input.a: contains a NUL character, which no agent can take",
    ]);
    expect(await errorsOf(hook("{__proto__: {x: 1}}"))).toEqual([
      'kanon.yaml:6:13: hooks[0].input.__proto__: "__proto__" cannot be used as a name',
    ]);
    expect(await errorsOf(hook("{a: [.inf]}"))).toEqual([
      "kanon.yaml:6:17: hooks[0].input.a[0]: expected a string, a finite number, true or false, got number .inf",
    ]);
  });

  it("is bounded like any other value reached through aliases", async () => {
    let text = "l0: &l0 [a, a, a, a, a, a, a, a, a, a]\n";
    for (let i = 1; i < 30; i++)
      text += `l${i}: &l${i} [${Array(10)
        .fill(`*l${i - 1}`)
        .join(", ")}]\n`;
    text += `metadata: {}\n${hook("{a: *l29}")}`;
    const errors = await errorsOf(text);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("aliases and merge keys expand to more than");
  });
});

describe("bounded work", () => {
  it("a billion laughs is a handful of errors, not a billion values", async () => {
    let text = "l0: &l0 [a, a, a, a, a, a, a, a, a, a]\n";
    for (let i = 1; i < 30; i++)
      text += `l${i}: &l${i} [${Array(10)
        .fill(`*l${i - 1}`)
        .join(", ")}]\n`;
    text += "metadata: {}\nhooks:\n  - name: x\n    command: y\n    args: *l29\n";
    const errors = await errorsOf(text);
    expect(errors).toHaveLength(10);
    expect(errors[0]).toBe("kanon.yaml:29:11: hooks[0].args[0]: expected a string, got a list");
  });

  it("nested merge keys cannot multiply entries", async () => {
    let text = "x0: &m0 {command: x}\n";
    for (let i = 1; i < 30; i++)
      text += `x${i}: &m${i} {<<: [${Array(10)
        .fill(`*m${i - 1}`)
        .join(", ")}]}\n`;
    text += "hooks:\n  - {name: a, <<: *m29}\n";
    const d = await decode(text);
    expect(d.errors).toEqual([]);
    expect(d.value).toEqual({ hooks: [{ name: "a", command: "x" }] });
  });

  it("a list shared by many hooks within the limit decodes, past it fails", async () => {
    const list = (n: number) => `[${Array.from({ length: n }, (_, i) => `x${i}`).join(", ")}]`;
    const hooks = (n: number) =>
      Array.from({ length: n }, (_, i) => `  - {name: h${i}, command: c, args: *l}`).join("\n");
    expect((await decode(`x: &l ${list(100)}\nhooks:\n${hooks(100)}\n`)).errors).toEqual([]);
    const big = `x: &l ${list(10_000)}\nhooks:\n${hooks(3_000)}\n`;
    const errors = (await decode(big)).errors;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("aliases and merge keys expand to more than");
    expect(MAX_ALIASED_VALUES).toBe(100_000);
  });

  it("aliases resolve to the latest anchor of their name before them", async () => {
    const d = await decode("metadata:\n  a: &x one\n  b: *x\n  c: &x two\n  d: *x\n  e: !!str 1\n");
    expect(d.value).toEqual({ metadata: { a: "one", b: "one", c: "two", d: "two", e: "1" } });
  });
});

describe("locating a value for validation messages", () => {
  it("finds keys, list items, aliased and merged values, else the deepest part that exists", () => {
    const locate = locator(
      "version: 2\nx: &b {targets: [cursor]}\nhooks:\n  - name: a\n    <<: *b\n  - *b\n",
      "kanon.yaml",
    );
    expect(locate(["version"])).toBe("kanon.yaml:1:10");
    expect(locate(["hooks", 0, "targets", 0])).toBe("kanon.yaml:2:18");
    expect(locate(["hooks", 1, "targets"])).toBe("kanon.yaml:2:17");
    expect(locate(["hooks", 0, "missing"])).toBe("kanon.yaml:4:5");
  });
});
