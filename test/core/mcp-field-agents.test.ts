/**
 * `kanon schema`'s help text for each MCP server field names the agents that write it, from the
 * manifests, and names no agent by hand.
 */
import { describe, expect, it } from "vitest";
import { AGENTS } from "../../src/agents/index.js";
import { mcpFieldAgents } from "../../src/core/mcp.js";
import type { Agent, McpFieldSupport } from "../../src/model/manifest.js";
import { sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();

/** A copy of `agent` whose manifest gives `field` the support `support`. */
function withField(agent: Agent, field: string, support: McpFieldSupport): Agent {
  const mcp = { ...agent.manifest.mcp, fields: { ...agent.manifest.mcp.fields, [field]: support } };
  return { ...agent, manifest: { ...agent.manifest, mcp } } as Agent;
}

describe("mcpFieldAgents", () => {
  const [a, b, c] = AGENTS as [Agent, Agent, Agent];
  const none: McpFieldSupport = { support: "none", why: "no way to say it" };
  const dropped: McpFieldSupport = { support: "dropped", why: "timing only" };
  const native: McpFieldSupport = { support: "native" };
  const translated: McpFieldSupport = { support: "translated", how: "another spelling" };

  it("names the agents that write a field, as is or translated", () => {
    const agents = [withField(a, "url", native), withField(b, "url", translated), withField(c, "url", none)];
    expect(mcpFieldAgents(agents).url).toBe(
      `Written for ${a.manifest.displayName} and ${b.manifest.displayName} only.`,
    );
  });

  it("says every agent, one agent or no agent", () => {
    expect(mcpFieldAgents([withField(a, "args", native), withField(b, "args", translated)]).args).toBe(
      "Written for every agent.",
    );
    expect(mcpFieldAgents([withField(a, "args", dropped), withField(b, "args", native)]).args).toBe(
      `Written for ${b.manifest.displayName} only.`,
    );
    expect(mcpFieldAgents([withField(a, "args", dropped), withField(b, "args", none)]).args).toBe(
      "Written for no agent.",
    );
  });
});

describe("kanon schema", () => {
  it("describes each MCP field with the agents the manifests say write it", async () => {
    const schema = JSON.parse((await s.run(["schema"])).stdout);
    const server = schema.properties.mcp.properties.servers.additionalProperties.properties;
    const written = mcpFieldAgents(AGENTS);
    for (const [field, sentence] of Object.entries(written)) {
      const description: string = server[field].description;
      expect(description.endsWith(` ${sentence}`), field).toBe(true);
      // The field's own meaning names no agent (opencode_enabled is OpenCode's switch by its name).
      if (field === "opencode_enabled") continue;
      const meaning = description.slice(0, -sentence.length);
      for (const agent of AGENTS) expect(meaning, field).not.toContain(agent.manifest.displayName);
    }
  });
});
