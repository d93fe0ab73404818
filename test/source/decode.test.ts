import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDocument, stringify } from "yaml";
import { decodeYaml, locator } from "../../src/source/decode.js";
import { kanonSchema, toJsonSchema } from "../../src/source/schema.js";

const schema = kanonSchema(["codex", "claude", "opencode"], ["PreToolUse"]);
const decode = (text: string) => decodeYaml(text, "kanon.yaml", schema);

describe("kanon.yaml decoding", () => {
  it("reports YAML syntax errors as kanon.yaml:LINE:COL", () => {
    const d = decode("version: 1\nhooks: [\n  - a\n");
    expect(d.errors.length).toBeGreaterThan(0);
    expect(d.errors[0]).toMatch(/^kanon\.yaml:\d+:\d+: /);
  });

  it("reports duplicate keys with their position", () => {
    expect(decode("version: 1\nversion: 1\n").errors[0]).toMatch(/^kanon\.yaml:2:1: .*unique/);
  });

  it("reports a wrong type with the path and position", () => {
    const d = decode("hooks:\n  - name: a\n    timeout: soon\n");
    expect(d.errors).toEqual(['kanon.yaml:3:14: hooks[0].timeout: expected an integer, got string "soon"']);
  });

  it("reports a mapping where a list belongs", () => {
    expect(decode("skills:\n  review: {}\n").errors[0]).toBe(
      "kanon.yaml:2:3: skills: expected a list, got a mapping",
    );
  });

  it("warns about unknown keys, naming the key path and suggesting the field meant", () => {
    const d = decode("version: 1\nhooks_old: []\nmcp:\n  servers:\n    x:\n      comand: y\n");
    expect(d.errors).toEqual([]);
    expect(d.warnings).toEqual([
      'kanon.yaml:2:1: unknown key "hooks_old" is ignored',
      'kanon.yaml:6:7: unknown key "mcp.servers.x.comand" is ignored; did you mean "command"?',
    ]);
  });

  it("a top-level key one edit away from a section is an error: the section would be read as empty", () => {
    for (const [typo, meant] of [
      ["hoks", "hooks"],
      ["Hooks", "hooks"],
      ["skils", "skills"],
      ["mpc", "mcp"],
      ["instruction", "instructions"],
    ]) {
      const d = decode(`version: 1\n${typo}: []\n`);
      expect(d.errors, typo).toEqual([`kanon.yaml:2:1: unknown key "${typo}"; did you mean "${meant}"?`]);
    }
    // Two edits away: still a warning (a key of a newer kanon, a note of the user's).
    expect(decode("version: 1\nhoksx: []\n").warnings).toEqual([
      'kanon.yaml:2:1: unknown key "hoksx" is ignored; did you mean "hooks"?',
    ]);
  });

  it("decodes scalars into strings as the Go original does, and YAML 1.1 booleans", () => {
    const d = decode("hooks:\n  - name: 42\n    command: 1.50\n    async: yes\n");
    expect(d.errors).toEqual([]);
    expect(d.value).toEqual({ hooks: [{ name: "42", command: "1.50", async: true }] });
  });

  it("treats null values as absent and an empty document as empty", () => {
    expect(decode("").value).toBeUndefined();
    expect(decode("skills:\nhooks: ~\n").value).toEqual({});
  });

  it("resolves anchors and aliases", () => {
    const d = decode("mcp:\n  servers:\n    a: &s\n      command: x\n    b: *s\n");
    expect(d.value).toEqual({ mcp: { servers: { a: { command: "x" }, b: { command: "x" } } } });
  });
});

describe("valid documents", () => {
  it("decode to the value they were written from, in any style (property)", async () => {
    const text = fc.string({
      unit: fc.constantFrom("a", "b", " ", ":", "#", "'", '"', "-", "$", "{", "}", "\n", "é", "1", "y"),
    });
    const name = fc.stringMatching(/^[a-z][a-z0-9_.-]{0,8}$/);
    const { json } = fc.letrec<{ json: unknown }>((tie) => ({
      json: fc.oneof(
        { depthSize: "small" },
        text,
        fc.integer({ min: -1000, max: 1000 }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("json"), { maxLength: 3 }),
        fc.dictionary(name, tie("json"), { maxKeys: 3 }),
      ),
    }));
    const hook = fc.record(
      {
        name: text,
        event: text,
        matcher: text,
        command: text,
        args: fc.array(text, { maxLength: 3 }),
        timeout: fc.nat(),
        async: fc.boolean(),
        targets: fc.subarray(["all", "codex", "claude", "opencode"]),
        // An mcp_tool hook's arguments: any JSON value (integers only: -0 and 1e-7 print differently).
        input: fc.dictionary(name, json, { maxKeys: 3 }),
      },
      { requiredKeys: ["name"] },
    );
    const server = fc.record(
      {
        command: text,
        args: fc.array(text, { maxLength: 3 }),
        env: fc.dictionary(name, text, { maxKeys: 3 }),
        url: text,
        startup_timeout_sec: fc.nat(),
        enabled: fc.boolean(),
        opencode_enabled: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    const config = fc.record(
      {
        version: fc.constant(1),
        instructions: fc.record({ files: fc.array(text, { maxLength: 3 }) }),
        mcp: fc.record({ servers: fc.dictionary(name, server, { maxKeys: 3 }) }),
        hooks: fc.array(hook, { maxLength: 3 }),
        metadata: fc.dictionary(name, text, { maxKeys: 2 }),
      },
      { requiredKeys: [] },
    );
    // Block and flow collections, every scalar style, anchors for repeated values, and long lines folded.
    const style = fc.record({
      collectionStyle: fc.constantFrom("any", "block", "flow"),
      defaultStringType: fc.constantFrom(
        "PLAIN",
        "QUOTE_DOUBLE",
        "QUOTE_SINGLE",
        "BLOCK_LITERAL",
        "BLOCK_FOLDED",
      ),
      defaultKeyType: fc.constantFrom(null, "PLAIN", "QUOTE_DOUBLE"),
      aliasDuplicateObjects: fc.boolean(),
      lineWidth: fc.constantFrom(0, 20, 80),
      indent: fc.constantFrom(2, 4),
    } as const);
    let written = 0;
    await fc.assert(
      fc.asyncProperty(config, style, async (doc, options) => {
        const yamlText = stringify(doc, options);
        const value = JSON.parse(JSON.stringify(doc));
        // The yaml library's writer gets a few strings wrong in some styles (lines of only spaces in
        // block scalars, a multi-line plain scalar starting with ":" in flow style): those are left out.
        const reread = parseDocument(yamlText);
        fc.pre(reread.errors.length === 0 && isDeepStrictEqual(reread.toJS(), value));
        written++;
        const d = decode(yamlText);
        expect(d.errors).toEqual([]);
        expect(d.warnings).toEqual([]);
        expect(d.value).toEqual(value);
      }),
      { numRuns: 300 },
    );
    expect(written).toBe(300);
  });
});

describe("JSON Schema", () => {
  it("is generated from the same definition and rejects unknown keys for editors", () => {
    const s = toJsonSchema(schema) as {
      properties: Record<string, { items?: { properties: Record<string, unknown> } }>;
      additionalProperties: boolean;
    };
    expect(Object.keys(s.properties)).toEqual([
      "version",
      "agents",
      "instructions",
      "skills",
      "commands",
      "subagents",
      "mcp",
      "hooks",
      "hooks_envelope",
      "continuity",
      "stages",
      "stage_hooks",
      "metadata",
    ]);
    expect(s.additionalProperties).toBe(false);
    expect(Object.keys(s.properties.hooks!.items!.properties)).toContain("args");
    expect(
      (s.properties.hooks!.items!.properties.targets as { items: { enum: string[] } }).items.enum,
    ).toEqual(["all", "codex", "claude", "opencode"]);
    // The two sections of single files: entries that target, disable or rename one.
    for (const section of ["commands", "subagents"])
      expect(Object.keys(s.properties[section]!.items!.properties)).toEqual([
        "name",
        "path",
        "targets",
        "enabled",
      ]);
  });
});

describe("locating after a decode", () => {
  const schema = kanonSchema(["claude"], ["Stop"]);
  it("reuses the decode's parse of the same text and parses a different text afresh", () => {
    const first = "version: 2\nbase: &b {x: 1}\nmetadata:\n  <<: *b\n";
    expect(decodeYaml(first, "kanon.yaml", schema).warnings).toEqual([
      'kanon.yaml:2:1: unknown key "base" is ignored',
    ]);
    expect(locator(first, "kanon.yaml")(["version"])).toBe("kanon.yaml:1:10");
    expect(locator(first, "kanon.yaml")(["metadata", "x"])).toBe("kanon.yaml:2:14");
    const second = "\n\nversion: 3\n";
    expect(locator(second, "kanon.yaml")(["version"])).toBe("kanon.yaml:3:10");
    // Back to the first text after another one: still its own positions.
    expect(locator(first, "kanon.yaml")(["version"])).toBe("kanon.yaml:1:10");
  });
});
