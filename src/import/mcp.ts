/**
 * MCP servers found in several agents' files become one neutral server when one server renders
 * back to what each of those agents has; otherwise the later agent's differing server is kept under
 * its own name, so nothing found is lost (reference §5.8.4, made exact).
 */
import { deepEqual } from "../formats/values.js";
import type { McpServer } from "../model/config.js";
import type { Agent } from "../model/manifest.js";

export interface FoundServer {
  agent: Agent;
  name: string;
  server: McpServer;
}

/** `a` with what only `b` has added: `a`'s fields and map entries win. */
function fill(a: McpServer, b: McpServer): McpServer {
  const out: Record<string, unknown> = { ...b, ...a };
  for (const key of ["env", "headers", "env_headers", "tools"] as const) {
    if (a[key] && b[key]) out[key] = { ...b[key], ...a[key] };
  }
  return out as McpServer;
}

/**
 * `a` plus each field only `b` has, one at a time, as long as the agents `a` came from still get
 * exactly what they have (OpenCode's `enabled` joins a server Codex read; its env headers do not).
 */
function fillWhileSame(a: McpServer, b: McpServer, from: Map<Agent, McpServer>): McpServer {
  let out: Record<string, unknown> = { ...a };
  const same = (s: McpServer) =>
    [...from].every(([agent, read]) => deepEqual(agent.mcpServer(s), agent.mcpServer(read)));
  for (const [key, value] of Object.entries(b)) {
    if (out[key] !== undefined) continue;
    const next = { ...out, [key]: value };
    if (same(next as McpServer)) out = next;
  }
  return out as McpServer;
}

export function importServers(
  found: readonly FoundServer[],
  allAgents: readonly string[],
): { servers: Record<string, McpServer>; warnings: string[] } {
  const warnings: string[] = [];
  const entries = new Map<string, { server: McpServer; from: Map<Agent, McpServer> }>();
  for (const f of found) {
    const existing = entries.get(f.name);
    if (!existing) {
      entries.set(f.name, { server: f.server, from: new Map([[f.agent, f.server]]) });
      continue;
    }
    const from = new Map(existing.from).set(f.agent, f.server);
    const renders = (s: McpServer) =>
      [...from].every(([agent, read]) => deepEqual(agent.mcpServer(s), agent.mcpServer(read)));
    const merged = [
      existing.server,
      fillWhileSame(existing.server, f.server, existing.from),
      fill(existing.server, f.server),
      f.server,
      fillWhileSame(f.server, existing.server, new Map([[f.agent, f.server]])),
      fill(f.server, existing.server),
    ].find(renders);
    if (merged) {
      entries.set(f.name, { server: merged, from });
      continue;
    }
    let name = `${f.agent.manifest.id}-${f.name}`;
    for (let i = 2; entries.has(name); i++) name = `${f.agent.manifest.id}-${f.name}-${i}`;
    const others = [...existing.from.keys()].map((a) => a.manifest.id).join(", ");
    warnings.push(
      `mcp server ${JSON.stringify(f.name)} of ${f.agent.manifest.id} differs from the one of ${others}; imported as ${JSON.stringify(name)}`,
    );
    entries.set(name, { server: f.server, from: new Map([[f.agent, f.server]]) });
  }
  const servers: Record<string, McpServer> = {};
  for (const [name, { server, from }] of entries) {
    const targets = allAgents.filter((a) => [...from.keys()].some((agent) => agent.manifest.id === a));
    servers[name] = targets.length === allAgents.length ? server : { ...server, targets };
  }
  return { servers, warnings };
}
