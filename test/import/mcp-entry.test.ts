/**
 * The one MCP entry reader and the field tables in the manifests: every key a renderer writes is in
 * its agent's table and reads back to a server that renders the same, and each kind of field says
 * what it expected when a value is not that.
 */
import { describe, expect, it } from "vitest";
import { AGENTS } from "../../src/agents/index.js";
import { readMcpEntry } from "../../src/import/mcp-entry.js";
import type { McpServer } from "../../src/model/config.js";
import type { McpEntryRead } from "../../src/model/manifest.js";

const local: McpServer = {
  command: "srv",
  args: ["--stdio", "it's"],
  env: { TOKEN: "${TOKEN}", MODE: "x ${HOME} y", PLAIN: "p" },
  env_vars: ["PATH"],
  startup_timeout_sec: 20,
  tool_timeout_sec: 30,
  enabled_tools: ["search"],
  disabled_tools: ["delete"],
  default_approval: "prompt",
  tools: { search: { approval: "auto" } },
  opencode_enabled: false,
};
const remote: McpServer = {
  type: "sse",
  url: "https://mcp.example.com/sse",
  headers: { "X-Public": "yes ${HOME}" },
  env_headers: { "X-Key": "API_KEY" },
  bearer_token_env_var: "MCP_TOKEN",
  startup_timeout_sec: 5,
  tool_timeout_sec: 60,
  enabled_tools: ["fetch"],
};

describe.each(AGENTS.map((a) => [a.manifest.id, a] as const))("%s's table", (id, agent) => {
  const table = agent.manifest.import!.mcpEntry;
  it.each([
    ["local", local],
    ["remote", remote],
  ])("has every key the %s entry renders, and reads it back to what renders the same", (_, server) => {
    const entry = agent.mcpServer(server);
    expect(Object.keys(entry).filter((k) => !Object.hasOwn(table.fields, k))).toEqual([]);
    const read = readMcpEntry(id, table, "x", entry);
    expect(read.warnings).toEqual([]);
    expect(agent.mcpServer(read.server!)).toEqual(entry);
  });
});

describe("readMcpEntry", () => {
  const table: McpEntryRead = {
    fields: {
      command: { kind: "string", to: "command" },
      args: { kind: "strings", to: "args" },
      env: { kind: "env" },
      headers: { kind: "headers", envRefs: true, bearer: "Authorization" },
      envHeaders: { kind: "env headers" },
      startup: { kind: "seconds", to: "startup_timeout_sec" },
      toolMs: { kind: "milliseconds", to: "tool_timeout_sec", round: "exact" },
      startupMs: { kind: "milliseconds", to: "startup_timeout_sec", round: "up" },
      on: { kind: "boolean", to: "opencode_enabled" },
      transport: { kind: "transport", values: { stdio: null, http: null, sse: "sse" } },
      only: { kind: "transport", values: { local: null } },
      cmd: { kind: "command list" },
      tools: { kind: "tools" },
    },
  };
  const read = (entry: Record<string, unknown>) => readMcpEntry("agent", table, "s", entry);

  it("names the kind each field holds when a value is not one", () => {
    const bad = {
      args: "x",
      env: { A: 1 },
      headers: [],
      envHeaders: "x",
      startup: 1.5,
      toolMs: 1500,
      startupMs: -1,
      on: "yes",
      transport: "ws",
      only: 1,
      cmd: [],
      tools: { a: 1 },
    };
    expect(read({ command: "c", ...bad, other: 1 })).toEqual({
      server: { command: "c" },
      keys: ["command"],
      warnings: [
        ["args", "a list of strings"],
        ["env", "a map of strings"],
        ["headers", "a map of strings"],
        ["envHeaders", "a map of strings"],
        ["startup", "a whole number of seconds"],
        ["toolMs", "a whole number of seconds in milliseconds"],
        ["startupMs", "a number of milliseconds"],
        ["on", "true or false"],
        ["transport", '"stdio", "http" or "sse"'],
        ["only", '"local"'],
        ["cmd", "a command list"],
        ["tools", "a table of tools"],
      ]
        .map(([k, why]) => `skipped unsupported agent mcp server "s" field "${k}" because it is not ${why}`)
        .concat('skipped unsupported agent mcp server "s" field "other"'),
    });
  });

  it("a key of Object.prototype is a key like any other the table does not have", () => {
    expect(read(JSON.parse('{"command":"c","__proto__":1,"toString":2}')).warnings).toEqual([
      'skipped unsupported agent mcp server "s" field "__proto__"',
      'skipped unsupported agent mcp server "s" field "toString"',
    ]);
  });

  it("headers: a whole reference is an env header, Authorization: Bearer one the bearer variable", () => {
    expect(
      read({
        command: "c",
        envHeaders: { A: "A_VAR" },
        headers: { Authorization: "Bearer ${TOK}", B: "${B_VAR}", C: "x ${C}", D: "${D:-d}" },
      }).server,
    ).toEqual({
      command: "c",
      bearer_token_env_var: "TOK",
      env_headers: { A: "A_VAR", B: "B_VAR" },
      headers: { C: "x ${C}", D: "${D:-d}" },
    });
  });

  it("OpenCode's {env:NAME} comes back as ${NAME}; its bearer header in any case", () => {
    const opencode = AGENTS.find((a) => a.manifest.id === "opencode")!.manifest.import!.mcpEntry;
    expect(
      readMcpEntry("opencode", opencode, "s", {
        url: "u",
        headers: { authorization: "Bearer {env:T}", X: "{env:X}", Y: "a {env:Y} b" },
      }).server,
    ).toEqual({ url: "u", bearer_token_env_var: "T", env_headers: { X: "X" }, headers: { Y: "a ${Y} b" } });
  });
});
