/**
 * Members of an entry that the agent assumes when they are absent (Claude Code's `type: "stdio"`):
 * an entry on disk without them means what kanon renders, so it keeps its bytes, and the record
 * holds the entry as it is on disk.
 */
import { describe, expect, it } from "vitest";
import { claudeManifest } from "../../../src/agents/claude/manifest.js";
import { planCoOwned } from "../../../src/destination/edit/index.js";
import { type OwnedEntries, valueHash } from "../../../src/destination/record.js";
import type { MergeSpec } from "../../../src/model/types.js";

const spec = { kind: "entries", format: "json", key: "mcpServers" } as const;
const implied = { mcpServers: { type: "stdio" } };
const text = `{
  "mcpServers": {
    "github": {"command": "github-mcp", "args": ["--stdio"]},
    "mine": {"command": "mine"}
  }
}
`;
const github = { type: "stdio", command: "github-mcp", args: ["--stdio"] };
const plan = (managed: object, previous?: OwnedEntries, s: MergeSpec = spec) =>
  planCoOwned(text, s, managed as Record<string, unknown>, ".claude.json", previous, implied);

describe("implied members of an entry", () => {
  it("is Claude Code's type stdio, from its manifest", () => {
    expect(claudeManifest.mcp.implied).toEqual({ type: "stdio" });
  });

  it("leaves an entry without them as it is, and records it as it is on disk", () => {
    const result = plan({ mcpServers: { github } });
    expect(result.text).toBe(text);
    expect(result.replaces).toBeUndefined();
    expect(result.owned.names).toEqual({
      github: valueHash({ command: "github-mcp", args: ["--stdio"] }),
    });
    // Without the manifest's word, the same entry is a change (and one kanon did not write).
    const bare = planCoOwned(text, spec, { mcpServers: { github } }, ".claude.json", undefined);
    expect(bare.text).toContain('"args": ["--stdio"], "type": "stdio"}');
    expect(bare.replaces).toBe("foreign");
  });

  it("changes only what changes in meaning, and does not call kanon's own entry edited", () => {
    const previous: OwnedEntries = {
      agent: "claude",
      merge: spec,
      names: { github: valueHash({ command: "github-mcp", args: ["--stdio"] }) },
    };
    const result = plan({ mcpServers: { github: { ...github, args: ["--stdio", "-v"] } } }, previous);
    expect(result.text).toBe(text.replace('["--stdio"]', '["--stdio", "-v"]'));
    expect(result.replaces).toBeUndefined();
  });

  it("writes them in an entry that is new, or where another value is on disk", () => {
    const docs = { type: "http", url: "https://docs.example/mcp" };
    const result = plan({ mcpServers: { github, docs, mine: { type: "stdio", command: "mine" } } });
    expect(JSON.parse(result.text).mcpServers).toEqual({
      github: { command: "github-mcp", args: ["--stdio"] },
      mine: { command: "mine" },
      docs,
    });
    const sse = text.replace('"mine"}', '"mine", "type": "sse"}');
    const fixed = planCoOwned(
      sse,
      spec,
      { mcpServers: { mine: { type: "stdio", command: "mine" } } },
      "c",
      undefined,
      implied,
    );
    expect(fixed.text).toBe(text.replace('"mine"}', '"mine", "type": "stdio"}'));
  });

  it("applies to the region they are given for when a file merges several", () => {
    const regions: MergeSpec = {
      kind: "regions",
      format: "json",
      regions: [spec, { kind: "value", format: "json", key: "hooks" }],
    };
    expect(plan({ mcpServers: { github } }, undefined, regions).text).toBe(text);
  });
});
