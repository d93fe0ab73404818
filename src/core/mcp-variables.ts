/**
 * `${VAR}` references that an agent would hand to an MCP server as written. An agent whose manifest
 * says it passes MCP strings "as-written" (Kimi Code's mcp.json) cannot run a server whose native
 * entry still holds one: the server would get the text `${TOKEN}`, not the token. Validate (an error
 * for explicit targets, a warning otherwise) and render (the server is left out) both ask here.
 */
import type { McpServer } from "../model/config.js";
import { envRefs, shownRef } from "../model/env.js";
import type { Agent, AgentManifest } from "../model/manifest.js";

/**
 * Where a left reference is in the agent's entry, e.g. `${TOKEN} in env.API_KEY`; empty when there is
 * none. A reference is shown by its name only: its default may be a secret (`${API_KEY:-sk-…}`).
 */
export function literalVariables(agent: Agent, server: McpServer): string[] {
  if (agent.manifest.mcp.variables !== "as-written") return [];
  const found: string[] = [];
  const walk = (value: unknown, path: string) => {
    if (typeof value === "string") {
      for (const ref of envRefs(value)) found.push(`${shownRef(ref.name)} in ${path}`);
    } else if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, `${path}[${i}]`);
    } else if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k);
    }
  };
  walk(agent.mcpServer(server), "");
  return found;
}

/** Why the agent gets no entry for the server, for the warning and the error. */
export function literalVariablesWhy(agent: Agent, found: readonly string[]): string {
  return `${agent.manifest.displayName} passes ${found.join(", ")} to the server as written (it does not expand variables in ${mcpFileName(agent.manifest)})`;
}

/** The name of the file the agent reads its MCP servers from, for messages (`config.toml`). */
export function mcpFileName(m: AgentManifest): string {
  return m.mcp.file.user?.split("/").pop() ?? "its MCP file";
}
