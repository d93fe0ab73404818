/**
 * What each agent gets of each MCP server, decided from its manifest's MCP table: every field the
 * server sets is written as is, translated, dropped (timing, another agent's switch: a note) or left
 * out (the agent cannot say it: a warning, an error for an explicit target). A `${VAR}` reference the
 * agent would pass to the server as text is resolved by kanon at apply when the server allows it
 * (`resolve_env: true`); otherwise the server is left out for that agent. Validate decides (warnings,
 * errors), render writes what was decided, and `kanon mcp` prints it.
 */
import type { McpServer } from "../model/config.js";
import { envRefs, envValue, expandEnv } from "../model/env.js";
import { type Agent, MCP_FIELDS, type McpFieldName } from "../model/manifest.js";
import { wordList } from "../model/text.js";
import { literalVariables, mcpFileName } from "./mcp-variables.js";

export interface McpDecision {
  server: string;
  agent: string;
  /** The server's targets name the agent. */
  explicit: boolean;
  outcome: "as-written" | "translated" | "omitted";
  /** The neutral server as the agent's entry is rendered from it (absent when left out). */
  render?: McpServer;
  /** `field: how` for each translated field the server sets. */
  translations: string[];
  /** `field: why` for each dropped field (changes nothing the server does). */
  notes: string[];
  /** Fields the agent cannot say, left out of its entry: `field: why`, and where (a kanon.yaml path). */
  left: { field: string; why: string }[];
  /** Neutral values kanon resolved at apply for this agent (`env.TOKEN`, `headers.X`, …). */
  resolved: string[];
  /** Why the server is left out for the agent, and the values that make it so (kanon.yaml paths). */
  omitted?: { why: string; paths: string[] };
}

const isSet = (v: unknown) =>
  v !== undefined && v !== "" && v !== 0 && !(Array.isArray(v) && v.length === 0) && !isEmptyMap(v);
const isEmptyMap = (v: unknown) =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

/** A neutral value that holds (or names) a variable, and how kanon fills it in at apply. */
interface Reference {
  path: string;
  resolve(s: McpServer, env: NodeJS.ProcessEnv): void;
}

function references(s: McpServer): Reference[] {
  const refs: Reference[] = [];
  const has = (v: string | undefined) => v !== undefined && envRefs(v).length > 0;
  if (has(s.command))
    refs.push({ path: "command", resolve: (t, env) => (t.command = expandEnv(t.command!, env)) });
  (s.args ?? []).forEach((a, i) => {
    if (has(a))
      refs.push({ path: `args.${i}`, resolve: (t, env) => (t.args![i] = expandEnv(t.args![i]!, env)) });
  });
  for (const [k, v] of Object.entries(s.env ?? {}))
    if (has(v))
      refs.push({ path: `env.${k}`, resolve: (t, env) => (t.env![k] = expandEnv(t.env![k]!, env)) });
  if (has(s.url)) refs.push({ path: "url", resolve: (t, env) => (t.url = expandEnv(t.url!, env)) });
  for (const [k, v] of Object.entries(s.headers ?? {}))
    if (has(v))
      refs.push({
        path: `headers.${k}`,
        resolve: (t, env) => (t.headers![k] = expandEnv(t.headers![k]!, env)),
      });
  for (const [k, name] of Object.entries(s.env_headers ?? {}))
    refs.push({
      path: `env_headers.${k}`,
      resolve: (t, env) => {
        t.headers = { ...t.headers, [k]: envValue(env, name) ?? "" };
        delete t.env_headers![k];
      },
    });
  if (s.bearer_token_env_var) {
    const name = s.bearer_token_env_var;
    refs.push({
      path: "bearer_token_env_var",
      resolve: (t, env) => {
        t.headers = { ...t.headers, Authorization: `Bearer ${envValue(env, name) ?? ""}` };
        delete t.bearer_token_env_var;
      },
    });
  }
  return refs;
}

const copy = (s: McpServer): McpServer => structuredClone(s);

/** The decision for one server and agent (`env` is kanon's environment, for resolve_env). */
export function decideServer(
  agent: Agent,
  name: string,
  server: McpServer,
  explicit: boolean,
  env: NodeJS.ProcessEnv,
): McpDecision {
  const m = agent.manifest;
  const d: McpDecision = {
    server: name,
    agent: m.id,
    explicit,
    outcome: "as-written",
    translations: [],
    notes: [],
    left: [],
    resolved: [],
  };
  const transport = server.type || (server.url ? "http" : "stdio");
  const transports = m.mcp.transports;
  if (
    transports &&
    (transport === "stdio" || transport === "http" || transport === "sse") &&
    !transports.includes(transport)
  ) {
    d.outcome = "omitted";
    d.omitted = {
      why: `${m.displayName} has no ${transport} transport (it speaks ${transports.join(", ")})`,
      paths: ["type"],
    };
    return d;
  }
  const render = copy(server);
  for (const field of MCP_FIELDS) {
    if (!isSet(server[field])) continue;
    const support = m.mcp.fields[field];
    if (support.support === "translated") d.translations.push(`${field}: ${support.how}`);
    else if (support.support === "dropped") d.notes.push(`${field}: ${support.why}`);
    else if (support.support === "none") {
      d.left.push({ field, why: support.why });
      delete render[field];
    }
  }

  // References the agent's entry would still hold as text: find the neutral values behind them by
  // resolving each one alone (with an empty environment) and seeing whether a reference goes away.
  const left = literalVariables(agent, render);
  if (left.length > 0) {
    const culprits = references(render).filter((ref) => {
      const probe = copy(render);
      ref.resolve(probe, {});
      return literalVariables(agent, probe).length < left.length;
    });
    if (server.resolve_env) {
      for (const ref of culprits) ref.resolve(render, env);
      d.resolved = culprits.map((r) => r.path);
    }
    const still = literalVariables(agent, render);
    if (still.length > 0) {
      const paths = server.resolve_env ? [] : culprits.map((r) => r.path);
      d.omitted = {
        why: `${m.displayName} would pass ${still.join(", ")} to the server as written (it does not expand variables in ${mcpFileName(m)})${paths.length ? `; resolve_env: true lets kanon fill in ${paths.join(", ")} at apply` : ""}`,
        paths,
      };
      d.outcome = "omitted";
      return d;
    }
  }
  d.render = render;
  if (d.translations.length + d.notes.length + d.left.length + d.resolved.length > 0)
    d.outcome = "translated";
  return d;
}

/**
 * Per MCP field, a sentence naming the agents that write it (as is or translated), from the
 * manifests: `kanon schema`'s help text for the field, so that it names no agent by hand.
 */
export function mcpFieldAgents(agents: readonly Agent[]): Record<McpFieldName, string> {
  const written = {} as Record<McpFieldName, string>;
  for (const field of MCP_FIELDS) {
    const names = agents
      .filter((a) => ["native", "translated"].includes(a.manifest.mcp.fields[field].support))
      .map((a) => a.manifest.displayName);
    written[field] =
      names.length === agents.length
        ? "Written for every agent."
        : names.length === 0
          ? "Written for no agent."
          : `Written for ${wordList(names, "and")} only.`;
  }
  return written;
}
