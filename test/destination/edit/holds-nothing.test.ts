/** Whether a co-owned file holds anything besides kanon's emptied keys (a file kanon created then goes). */
import { describe, expect, it } from "vitest";
import { holdsNothing } from "../../../src/destination/edit/index.js";
import type { MergeSpec } from "../../../src/model/types.js";

const HANDLERS: MergeSpec = { kind: "handlers", format: "json", key: "hooks" };
const SERVERS: MergeSpec = { kind: "entries", format: "toml", key: "mcp_servers" };
const GEMINI: MergeSpec = {
  kind: "regions",
  format: "json",
  regions: [
    { kind: "entries", format: "json", key: "mcpServers" },
    { kind: "hook-groups", format: "json", key: "hooks", namePrefix: "kanon:" },
  ],
};
const KIMI: MergeSpec = { kind: "tables", format: "toml", key: "hooks", marker: "kanon", labels: [] };

describe("holdsNothing", () => {
  it("is true for emptied managed keys, in any layout", () => {
    expect(holdsNothing('{\n  "hooks": {}\n}\n', HANDLERS, "f")).toBe(true);
    expect(holdsNothing("\uFEFF{}", HANDLERS, "f")).toBe(true);
    expect(holdsNothing("", SERVERS, "f")).toBe(true);
    expect(holdsNothing("\n[mcp_servers]\n\n", SERVERS, "f")).toBe(true);
    expect(holdsNothing('{"mcpServers": {}, "hooks": {}}', GEMINI, "f")).toBe(true);
    expect(holdsNothing("\n", KIMI, "f")).toBe(true);
  });

  it("is false when anything else is left: a key, a value, a comment", () => {
    expect(holdsNothing('{"hooks": {}, "theme": "dark"}', HANDLERS, "f")).toBe(false);
    expect(holdsNothing('{"hooks": {"Stop": []}}', HANDLERS, "f")).toBe(false);
    expect(holdsNothing('// mine\n{"hooks": {}}', HANDLERS, "f")).toBe(false);
    expect(holdsNothing('{"hooks": {} /* mine */}', HANDLERS, "f")).toBe(false);
    expect(holdsNothing("# mine\n[mcp_servers]\n", SERVERS, "f")).toBe(false);
    expect(holdsNothing("[mcp_servers] # mine\n", SERVERS, "f")).toBe(false);
    expect(holdsNothing("model = 'x'\n", SERVERS, "f")).toBe(false);
    expect(holdsNothing('{"mcpServers": {}, "hooks": {}, "ui": {}}', GEMINI, "f")).toBe(false);
    expect(holdsNothing("[[hooks]]\nevent = 'Stop'\n", KIMI, "f")).toBe(false);
  });
});
