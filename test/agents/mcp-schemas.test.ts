/**
 * Any neutral MCP server renders to an entry the agent's own published schema accepts, where one is
 * pinned (test/fixtures/schemas: Gemini CLI's settings schema, whose MCPServerConfig allows no other
 * key). Claude Code's .mcp.json, Codex's config.toml, OpenCode's and Kimi Code's MCP files have no
 * pinned schema (see the fixtures' README); their entries are checked field by field in
 * mcp-fields.test.ts and in the real agents by the conformance suite.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gemini } from "../../src/agents/gemini/index.js";
import { decideServer } from "../../src/core/mcp.js";
import type { McpServer } from "../../src/model/config.js";
import { ROOT } from "../support/cli.js";

const schema = JSON.parse(
  readFileSync(join(ROOT, "test", "fixtures", "schemas", "gemini-cli-settings.schema.json"), "utf8"),
);
delete schema.$id;
const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(schema);

const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,8}$/);
const value = fc.oneof(
  word,
  word.map((w) => `\${${w.replaceAll("-", "_")}}`),
  fc.string({ maxLength: 6 }),
);
const strings = fc.array(value, { maxLength: 3 });
const map = fc.dictionary(word, value, { maxKeys: 3 });
const seconds = fc.integer({ min: 0, max: 3600 });

/** Any neutral server kanon.yaml can hold (a command or a url, every optional field). */
const server: fc.Arbitrary<McpServer> = fc
  .record(
    {
      type: fc.constantFrom("stdio", "http", "sse", ""),
      command: word,
      args: strings,
      env: map,
      env_vars: fc.array(word, { maxLength: 2 }),
      url: word.map((w) => `https://${w}.example/mcp`),
      headers: map,
      env_headers: fc.dictionary(word, word, { maxKeys: 2 }),
      bearer_token_env_var: word,
      startup_timeout_sec: seconds,
      tool_timeout_sec: seconds,
      enabled_tools: fc.array(word, { maxLength: 2 }),
      disabled_tools: fc.array(word, { maxLength: 2 }),
      default_approval: fc.constantFrom("auto", "prompt"),
      tools: fc.dictionary(word, fc.record({ approval: fc.constantFrom("auto", "approve") }), { maxKeys: 2 }),
      opencode_enabled: fc.boolean(),
      resolve_env: fc.boolean(),
    },
    { requiredKeys: [] },
  )
  .filter((s) => Boolean(s.command || s.url));

describe("Gemini CLI's MCP entries against its settings schema", () => {
  it("every neutral server renders to a valid settings.json mcpServers entry (property)", () => {
    fc.assert(
      fc.property(server, (s) => {
        const d = decideServer(gemini, "s", s, false, {});
        expect(d.render).toBeDefined();
        const doc = { mcpServers: { s: gemini.mcpServer(d.render!) } };
        const ok = validate(doc);
        expect(ok ? [] : validate.errors).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
