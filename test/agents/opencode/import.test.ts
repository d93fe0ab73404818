/** OpenCode's MCP entries read back through its manifest's field table (readMcpEntry). */
import { describe, expect, it } from "vitest";
import { opencodeManifest } from "../../../src/agents/opencode/manifest.js";
import { readMcpEntry } from "../../../src/import/mcp-entry.js";

const read = (name: string, entry: unknown) =>
  readMcpEntry("opencode", opencodeManifest.import!.mcpEntry, name, entry);

describe("opencode's MCP entry table", () => {
  it("reads a local server and warns about the fields it skips", () => {
    expect(
      read("docs", { type: "local", command: ["docs-mcp", "--stdio"], extra: 1, enabled: "no" }),
    ).toEqual({
      server: { command: "docs-mcp", args: ["--stdio"] },
      keys: ["type", "command"],
      warnings: [
        'skipped unsupported opencode mcp server "docs" field "extra"',
        'skipped unsupported opencode mcp server "docs" field "enabled" because it is not true or false',
      ],
    });
  });

  it("leaves an entry raw that is not an object, or has neither a command nor a url", () => {
    expect(read("a", 1)).toEqual({
      server: null,
      keys: [],
      warnings: ['left MCP server "a" raw for opencode because it is not an object'],
    });
    expect(read("b", { type: "local", extra: 1 })).toEqual({
      server: null,
      keys: [],
      warnings: ['left MCP server "b" raw for opencode because it has no command or url'],
    });
  });
});
