/**
 * MCP servers found in several agents' files under one name become one neutral server under that
 * name: the fields most of those agents agree on, and for each agent that has the server otherwise
 * (a literal token where another agent reads `{env:TOKEN}`, a different command) an override with
 * just what differs. Every agent's file keeps the server's own name; nothing found is renamed or
 * lost, and every agent gets back exactly what it has (reference §5.8.4, made exact).
 */
import { OVERRIDABLE, overrideBetween, serverFor } from "../core/mcp-overrides.js";
import { mcpFileName } from "../core/mcp-variables.js";
import { deepEqual, isPlainObject, type PlainObject } from "../formats/values.js";
import type { McpOverride, McpServer } from "../model/config.js";
import { envRefs, shownRef } from "../model/env.js";
import type { Agent } from "../model/manifest.js";
import { wordList } from "../model/text.js";

export interface FoundServer {
  agent: Agent;
  name: string;
  /** The agent's own entry, the keys it was read from. */
  native: PlainObject;
  /**
   * The entry read back, most neutral first: each renders for `agent` exactly what the first does
   * (`env_vars = ["T"]` may also read as `env: {T: "${T}"}` where the agent renders that the same).
   */
  readings: McpServer[];
}

/** `a` with what only `b` has added: `a`'s fields and map entries win. */
function fill(a: McpServer, b: McpServer): McpServer {
  const out: Record<string, unknown> = { ...b, ...a };
  for (const key of ["env", "headers", "env_headers", "tools"] as const) {
    if (a[key] && b[key]) out[key] = { ...b[key], ...a[key] };
  }
  return out as McpServer;
}

export function importServers(
  found: readonly FoundServer[],
  allAgents: readonly string[],
): { servers: Record<string, McpServer>; warnings: string[] } {
  const byName = new Map<string, FoundServer[]>();
  for (const f of found) byName.set(f.name, [...(byName.get(f.name) ?? []), f]);
  const servers: Record<string, McpServer> = {};
  const warnings: string[] = [];
  for (const [name, list] of byName) {
    const server = oneServer(list);
    if (!rendersBack(server, list))
      warnings.push(
        `mcp server ${JSON.stringify(name)} may not render back exactly as found for ${list.map((f) => f.agent.manifest.id).join(", ")}; kanon diff shows the difference`,
      );
    for (const f of list) {
      const change = entryChange(f, f.agent.mcpServer(serverFor(server, f.agent.manifest.id)));
      if (change) warnings.push(change);
    }
    const targets = allAgents.filter((a) => list.some((f) => f.agent.manifest.id === a));
    servers[name] = targets.length === allAgents.length ? server : { ...server, targets };
  }
  return { servers, warnings };
}

/** The agents (indexes into `list`) that get exactly what they have from `s` without an override. */
function coverage(list: readonly FoundServer[], wants: readonly unknown[], s: McpServer): boolean[] {
  return list.map((f, i) => deepEqual(f.agent.mcpServer(s), wants[i]));
}

const count = (c: readonly boolean[]) => c.filter(Boolean).length;
const keeps = (next: readonly boolean[], prev: readonly boolean[]) => prev.every((p, i) => !p || next[i]);

/**
 * The base that renders back to what the most agents have, grown from each reading by the fields of
 * the others as long as no agent it fits stops fitting (OpenCode's `enabled` joins a server Codex
 * read, which Codex does not render), then one override per agent it does not fit.
 */
function oneServer(list: readonly FoundServer[]): McpServer {
  const wants = list.map((f) => f.agent.mcpServer(f.readings[0]!));
  let best: { server: McpServer; fits: boolean[] } | null = null;
  for (const f of list) {
    for (const reading of f.readings) {
      let server = reading;
      let fits = coverage(list, wants, server);
      for (const g of list) {
        for (const other of g.readings) {
          for (const next of [fill(server, other), fillWhileFits(server, other, list, wants, fits)]) {
            const c = coverage(list, wants, next);
            if (keeps(c, fits) && count(c) > count(fits)) {
              server = next;
              fits = c;
              break;
            }
          }
        }
      }
      if (!best || count(fits) > count(best.fits)) best = { server, fits };
    }
  }
  const { server, fits } = best!;
  const overrides: Record<string, McpOverride> = {};
  list.forEach((f, i) => {
    if (fits[i]) return;
    // The reading that differs from the base in the fewest fields.
    const options = f.readings
      .map((r) => overrideBetween(server, r, deepEqual))
      .filter((o): o is McpOverride => o !== null)
      .sort((a, b) => Object.keys(a).length - Object.keys(b).length);
    if (options[0]) overrides[f.agent.manifest.id] = options[0];
  });
  return Object.keys(overrides).length > 0 ? { ...server, overrides } : server;
}

/** `a` plus each field only `b` has, one at a time, as long as every agent `a` fits still fits. */
function fillWhileFits(
  a: McpServer,
  b: McpServer,
  list: readonly FoundServer[],
  wants: readonly unknown[],
  fits: readonly boolean[],
): McpServer {
  let out: McpServer = a;
  for (const key of OVERRIDABLE) {
    if (out[key] !== undefined || b[key] === undefined) continue;
    const next = { ...out, [key]: b[key] };
    if (keeps(coverage(list, wants, next), fits)) out = next;
  }
  return out;
}

/** Whether `s`, with its overrides, gives each agent in `list` what it has. */
function rendersBack(s: McpServer, list: readonly FoundServer[]): boolean {
  return list.every((f) =>
    deepEqual(f.agent.mcpServer(serverFor(s, f.agent.manifest.id)), f.agent.mcpServer(f.readings[0]!)),
  );
}

/**
 * What the first apply will change in an agent's own entry, named by its keys, when the server
 * renders for it otherwise than it is written (`env.GITHUB_TOKEN will be written as env_vars`): a
 * reference read as the variable's value where the agent took it as text, a key the agent reads
 * under another name. A key the agent assumes when it is absent (its manifest's `mcp.implied`) is no
 * change; null when nothing changes.
 */
function entryChange({ agent, name, native }: FoundServer, rendered: PlainObject): string | null {
  const m = agent.manifest;
  const before = leaves(native);
  const after = leaves(rendered);
  for (const [key, value] of Object.entries(m.mcp.implied ?? {}))
    if (!Object.hasOwn(native, key) && after.get(key) === value) after.delete(key);
  const gone = [...before.keys()].filter((path) => !after.has(path));
  const added = [...after.keys()].filter((path) => !before.has(path));
  const changed = [...before.keys()].filter((p) => after.has(p) && !deepEqual(before.get(p), after.get(p)));
  const parts: string[] = [];
  const list = (paths: string[]) => wordList(paths, "and");
  if (gone.length > 0)
    parts.push(`${list(gone)} will be ${added.length > 0 ? `written as ${list(added)}` : "left out"}`);
  else if (added.length > 0) parts.push(`${list(added)} will be added`);
  // A number or a switch is no secret: its new value is shown.
  for (const path of changed) {
    const v = after.get(path);
    parts.push(`${path} will change${typeof v === "number" || typeof v === "boolean" ? ` to ${v}` : ""}`);
  }
  if (parts.length === 0) return null;
  // A reference the agent took as text, which kanon.yaml reads as the variable's value (named only:
  // its default may be a secret).
  const refs = [...gone, ...changed]
    .map((path) => before.get(path))
    .flatMap((v) => (typeof v === "string" && m.mcp.variables === "as-written" ? envRefs(v) : []))
    .map((ref) => shownRef(ref.name));
  const why =
    refs.length > 0
      ? ` (${m.displayName} does not expand ${list([...new Set(refs)])} in ${mcpFileName(m)})`
      : "";
  return `mcp server ${JSON.stringify(name)} for ${m.id}: ${parts.join("; ")}${why}`;
}

/** Every value of an entry that is not a table, by its dotted path (`env.GITHUB_TOKEN`). */
function leaves(entry: PlainObject, prefix = "", out = new Map<string, unknown>()): Map<string, unknown> {
  for (const [key, value] of Object.entries(entry)) {
    if (isPlainObject(value) && Object.keys(value).length > 0) leaves(value, `${prefix}${key}.`, out);
    else out.set(`${prefix}${key}`, value);
  }
  return out;
}
