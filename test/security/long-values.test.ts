/**
 * Strings longer than the TOML editor's parser reads (toml-eslint-parser overflowed the stack at about
 * 125,000 characters): kanon never writes one into a TOML file it edits (Codex's and Kimi's
 * config.toml), and a file that holds one is one line naming it, never a stack overflow. JSON files
 * take such strings, and read back.
 */
import { join } from "node:path";
import fc from "fast-check";
import { parseTOML } from "toml-eslint-parser";
import { describe, expect, it } from "vitest";
import { encodeToml } from "../../src/formats/toml.js";
import { longTomlToken, MAX_TOML_TOKEN } from "../../src/formats/toml-limits.js";
import { parseTomlSyntax, TomlSyntaxError } from "../../src/formats/toml-syntax.js";
import { listFiles, sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();
const LONG = "x".repeat(200_000);
const server = (name: string, arg: string) => `    ${name}:\n      command: srv\n      args: ["${arg}"]\n`;
const mcpHome = (agents: string, ...servers: string[]) =>
  `version: 1\nagents: [${agents}]\nmcp:\n  servers:\n${servers.join("")}`;
const hookHome = (command: string) =>
  `version: 1\nagents: [kimi]\nhooks:\n  - name: long\n    event: Stop\n    command: "${command}"\n`;

describe("a string too long for the TOML editor", () => {
  it("is not written into Codex's config.toml: apply and diff name the file and the server", async () => {
    const config = join(s.home, ".codex/config.toml");
    const line = `cannot write ${config}: mcp_servers.x.args[0] would be written as 200,002 characters; kanon writes at most 100,000 in one TOML string or value, as many as it can read back\n`;
    // A new file, then one of the user's that kanon edits.
    s.writeHome(mcpHome("codex", server("x", LONG)));
    expect(await s.k("apply", "--yes")).toMatchObject({ status: 1, stderr: line });
    expect(listFiles(s.home)).toEqual([]);
    s.write(".codex/config.toml", 'model = "o3"\n');
    expect(await s.k("apply", "--yes")).toMatchObject({ status: 1, stderr: line });
    expect(await s.k("diff")).toMatchObject({ status: 1, stderr: line });
    expect(s.read(".codex/config.toml")).toBe('model = "o3"\n');
  });

  it("is not written into Kimi's config.toml: the hook is named", async () => {
    const config = join(s.home, ".kimi-code/config.toml");
    s.writeHome(hookHome(LONG));
    const r = await s.k("apply", "--yes");
    expect(r).toMatchObject({ status: 1 });
    expect(r.stderr).toBe(
      `cannot write ${config}: hooks "long".command would be written as 200,002 characters; kanon writes at most 100,000 in one TOML string or value, as many as it can read back\n`,
    );
    s.write(".kimi-code/config.toml", "[[hooks]]\nevent = 'Stop'\ncommand = 'mine'\n");
    expect((await s.k("diff")).stderr).toContain(`cannot write ${config}: hooks "long".command would be`);
    expect(s.read(".kimi-code/config.toml")).toBe("[[hooks]]\nevent = 'Stop'\ncommand = 'mine'\n");
  });

  it("in a config.toml of the user's is one line naming the file once kanon edits it; nothing is written", async () => {
    const config = join(s.home, ".codex/config.toml");
    const mine = `[mcp_servers.mine]\ncommand = "srv"\nargs = ["${LONG}"]\n`;
    s.write(".codex/config.toml", mine);
    s.writeHome(mcpHome("codex", server("x", "a")));
    const line = `cannot parse ${config} for merge: the string or value at 3:9 is 200,002 characters long; kanon reads at most 100,000 in one TOML string or value\n`;
    expect(await s.k("diff")).toMatchObject({ status: 1, stderr: line });
    expect(await s.k("apply", "--yes")).toMatchObject({ status: 1, stderr: line });
    expect(s.read(".codex/config.toml")).toBe(mine);
  });

  it("in Kimi's config.toml is a warning of import, naming the file", async () => {
    const config = join(s.home, ".kimi-code/config.toml");
    s.write(".kimi-code/config.toml", `[[hooks]] # kanon: long\nevent = 'Stop'\ncommand = '${LONG}'\n`);
    s.writeHome("version: 1\n");
    const r = await s.k("import", "--agent", "kimi");
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      `could not parse ${config}: the string or value at 3:11 is 200,002 characters long; kanon reads at most 100,000`,
    );
  });

  it("up to the limit, is written, read back and edited around", async () => {
    const longest = "x".repeat(MAX_TOML_TOKEN - 2);
    s.writeHome(mcpHome("codex, kimi", server("x", longest)));
    expect((await s.k("apply", "--yes")).status).toBe(0);
    expect(s.read(".codex/config.toml")).toContain(longest);
    s.writeHome(`${mcpHome("codex, kimi", server("x", longest), server("y", "b"))}`);
    expect(await s.k("apply", "--yes")).toMatchObject({ status: 0, stderr: "" });
    expect(await s.k("diff")).toMatchObject({ status: 0, stdout: "No changes.\n" });
  });
});

describe("a 200,000-character string in JSON files", () => {
  it("is written, read back and edited around (jsonc-parser reads any length)", async () => {
    s.writeHome(mcpHome("claude, opencode, gemini", server("x", LONG)));
    expect(await s.k("apply", "--yes")).toMatchObject({ status: 0, stderr: "" });
    expect(s.read(".claude.json")).toContain(LONG);
    s.writeHome(mcpHome("claude, opencode, gemini", server("x", LONG), server("y", "b")));
    expect(await s.k("apply", "--yes")).toMatchObject({ status: 0, stderr: "" });
    expect(await s.k("diff")).toMatchObject({ status: 0, stdout: "No changes.\n" });
  });
});

describe("import never writes a kanon.yaml kanon would not read back", () => {
  // (Import takes values of known types only: nothing it writes nests past kanon.yaml's 100 levels.)
  it("refuses a value of megabytes, naming the file and the limit; nothing is written", async () => {
    const config = join(s.kh, "kanon.yaml");
    const args = ["x".repeat(3_000_000)];
    s.write(".claude.json", JSON.stringify({ mcpServers: { big: { command: "srv", args } } }));
    const line = new RegExp(
      `^cannot write ${config}: kanon would not read it back \\(kanon\\.yaml:6:\\d+: kanon.yaml is longer than 2097152 characters[^\\n]*\\); nothing was written\\n$`,
    );
    expect(await s.k("import", "--write", "--no-git")).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(line),
    });
    expect(listFiles(s.kh)).toEqual([]);
    // --merge into a home that is there: the same, and kanon.yaml keeps its bytes.
    s.writeHome("version: 1\n");
    expect(await s.k("import", "--merge", "--write")).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(line),
    });
    expect(listFiles(s.kh)).toEqual(["kanon.yaml"]);
    expect(s.readHome("kanon.yaml")).toBe("version: 1\n");
  });
});

describe("longTomlToken", () => {
  /** TOML texts whose strings hold quotes, escapes, comment signs and line breaks. */
  const text = fc.string({
    unit: fc.constantFrom(..."a'\"\\#\n=[]{} .,1\t") as fc.Arbitrary<string>,
    maxLength: 12,
  });
  const doc = fc.dictionary(
    fc.oneof(fc.constantFrom("k", "a.b", "x y"), text),
    fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 3 }), fc.dictionary(text, text, { maxKeys: 2 })),
    { maxKeys: 4 },
  );

  it("never finds a token shorter than the parser's longest (property)", () => {
    fc.assert(
      fc.property(doc, (value) => {
        const toml = encodeToml(value);
        const longest = Math.max(
          0,
          ...parseTOML(toml, { tomlVersion: "1.1" }).tokens.map((t) => t.range[1] - t.range[0]),
        );
        if (longest > 0) expect(longTomlToken(toml, longest - 1)).not.toBeNull();
      }),
      { numRuns: 2_000 },
    );
  });

  it("passes over comments and measures multi-line strings whole", () => {
    expect(longTomlToken(`# ${"x".repeat(50)}\na = 1\n`, 10)).toBeNull();
    expect(longTomlToken(`a = """\n${"x\n".repeat(10)}"""\n`, 20)).toEqual({ offset: 4, length: 27 });
    expect(longTomlToken(`a = "${'\\"'.repeat(10)}"\n`, 20)).toEqual({ offset: 4, length: 22 });
    expect(longTomlToken(`a = ${"1".repeat(30)}\n`, 20)).toEqual({ offset: 4, length: 30 });
  });

  it("parseTomlSyntax turns a stack overflow into a TomlSyntaxError", () => {
    // As deep in the stack as calls go, less a little: there even a string within the limit overflows.
    const at = (n: number, f: () => unknown): unknown => (n === 0 ? f() : at(n - 1, f));
    let low = 0;
    let high = 1_000_000;
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      try {
        at(mid, () => 0);
        low = mid;
      } catch {
        high = mid;
      }
    }
    const text = `a = "${"x".repeat(MAX_TOML_TOKEN - 2)}"\n`;
    const parse = () => parseTomlSyntax(text);
    expect(() => at(low - 1000, parse)).toThrow(TomlSyntaxError);
    expect(() => parse()).not.toThrow();
  });
});
