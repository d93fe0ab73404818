import { describe, expect, it } from "vitest";
import { decodeYaml } from "../../src/source/decode.js";
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
    const d = decode("version: 1\nhoks: []\nmcp:\n  servers:\n    x:\n      comand: y\n");
    expect(d.errors).toEqual([]);
    expect(d.warnings).toEqual([
      'kanon.yaml:2:1: unknown key "hoks" is ignored; did you mean "hooks"?',
      'kanon.yaml:6:7: unknown key "mcp.servers.x.comand" is ignored; did you mean "command"?',
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

  it("records positions of decoded values", () => {
    expect(decode("hooks:\n  - name: a\n").positions.get("hooks[0].name")).toEqual({
      file: "kanon.yaml",
      line: 2,
      col: 11,
    });
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
      "instructions",
      "skills",
      "mcp",
      "hooks",
      "metadata",
    ]);
    expect(s.additionalProperties).toBe(false);
    expect(Object.keys(s.properties.hooks!.items!.properties)).toContain("args");
    expect(
      (s.properties.hooks!.items!.properties.targets as { items: { enum: string[] } }).items.enum,
    ).toEqual(["all", "codex", "claude", "opencode"]);
  });
});
