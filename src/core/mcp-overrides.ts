/**
 * A server's per-agent overrides (kanon.yaml `mcp.servers.<name>.overrides.<agent>`): what one agent
 * gets differently under the same server name. Render, validation and import all see a server through
 * `serverFor`, so an override is one more way of writing the server an agent gets, never a second one.
 */
import type { McpOverridable, McpOverride, McpServer } from "../model/config.js";
import { MCP_FIELDS } from "../model/manifest.js";

/** The fields an override may set or unset, in kanon.yaml's order: every field an agent's entry can carry. */
export const OVERRIDABLE: readonly McpOverridable[] = MCP_FIELDS;

/** The server as `agent` gets it: its fields, each one the agent's override names replaced or unset. */
export function serverFor(s: McpServer, agent: string): McpServer {
  const { overrides, ...base } = s;
  const o = overrides && Object.hasOwn(overrides, agent) ? overrides[agent] : undefined;
  if (!o) return base;
  const { unset, ...fields } = o;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  for (const f of unset ?? []) delete out[f];
  return out as McpServer;
}

/**
 * The override that turns `base` into `wanted` for one agent: the fields that differ, and the fields
 * `wanted` lacks. Null when they are the same.
 */
export function overrideBetween(
  base: McpServer,
  wanted: McpServer,
  same: (a: unknown, b: unknown) => boolean,
): McpOverride | null {
  const o: Record<string, unknown> = {};
  const unset: McpOverridable[] = [];
  for (const f of OVERRIDABLE) {
    const a = base[f];
    const b = wanted[f];
    if (same(a ?? null, b ?? null)) continue;
    if (b === undefined) unset.push(f);
    else o[f] = b;
  }
  if (unset.length > 0) o.unset = unset;
  return Object.keys(o).length > 0 ? (o as McpOverride) : null;
}
