/**
 * Reading an MCP entry in the shape Codex's config.toml and Claude's .claude.json/.mcp.json share back
 * into a neutral server (reference §5.8.4). Each agent's folder says which of the variations it uses.
 */
import { isPlainObject } from "../../formats/values.js";
import type { McpServer, McpTool } from "../../model/config.js";
import type { McpRead } from "../../model/manifest.js";

export interface McpShape {
  /** A header whose value is exactly `${NAME}` means env_headers NAME (Claude has no env headers). */
  headerRefsAreEnv: boolean;
}

/** `${NAME}` with nothing around it and no default. */
const WHOLE_REF = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

export const leftRaw = (agent: string, name: string, why: string) =>
  `left MCP server ${JSON.stringify(name)} raw for ${agent} because ${why}`;

export const skippedField = (agent: string, name: string, key: string, why = "") =>
  `skipped unsupported ${agent} mcp server ${JSON.stringify(name)} field ${JSON.stringify(key)}${why}`;

/**
 * How every agent's MCP reader ends: an entry with neither a command nor a url is left raw (a
 * server kanon cannot render); otherwise the server read, with the warnings about its fields.
 */
export function finishMcpRead(agent: string, name: string, server: McpServer, warnings: string[]): McpRead {
  if (!server.command && !server.url)
    return { server: null, warnings: [leftRaw(agent, name, "it has no command or url")] };
  return { server, warnings };
}

export function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}

export function isStringMap(v: unknown): v is Record<string, string> {
  return isPlainObject(v) && Object.values(v).every((x) => typeof x === "string");
}

export function readMcpShape(agent: string, name: string, entry: unknown, shape: McpShape): McpRead {
  const warnings: string[] = [];
  if (!isPlainObject(entry)) return { server: null, warnings: [leftRaw(agent, name, "it is not an object")] };
  const s: McpServer = {};
  const wrong = (key: string, kind: string) =>
    warnings.push(skippedField(agent, name, key, ` because it is not ${kind}`));
  for (const [key, v] of Object.entries(entry)) {
    switch (key) {
      case "type":
      case "command":
      case "url":
      case "bearer_token_env_var":
        if (typeof v === "string") s[key] = v;
        else wrong(key, "a string");
        break;
      // Codex reads default_tools_approval_mode; the Go original wrote default_tool_approval.
      case "default_tools_approval_mode":
      case "default_tool_approval":
        if (typeof v === "string") s.default_approval = v;
        else wrong(key, "a string");
        break;
      case "args":
      case "env_vars":
      case "enabled_tools":
      case "disabled_tools":
        if (isStringList(v)) s[key] = [...v];
        else wrong(key, "a list of strings");
        break;
      case "env":
        if (isStringMap(v)) s.env = { ...v };
        else wrong(key, "a map of strings");
        break;
      case "headers":
      case "http_headers":
        if (!isStringMap(v)) {
          wrong(key, "a map of strings");
          break;
        }
        {
          const literal: Record<string, string> = {};
          const fromEnv: Record<string, string> = { ...s.env_headers };
          for (const [header, value] of Object.entries(v as Record<string, string>)) {
            const ref = shape.headerRefsAreEnv ? WHOLE_REF.exec(value) : null;
            if (ref) fromEnv[header] = ref[1]!;
            else literal[header] = value;
          }
          if (Object.keys(literal).length > 0) s.headers = literal;
          else delete s.headers;
          if (Object.keys(fromEnv).length > 0) s.env_headers = fromEnv;
        }
        break;
      case "env_headers":
      case "env_http_headers":
        if (isStringMap(v)) s.env_headers = { ...s.env_headers, ...(v as Record<string, string>) };
        else wrong(key, "a map of strings");
        break;
      case "startup_timeout_sec":
      case "tool_timeout_sec":
      case "timeout":
        if (typeof v === "number" && Number.isInteger(v) && v >= 0) {
          s[key === "timeout" ? "startup_timeout_sec" : key] = v;
        } else wrong(key, "a whole number of seconds");
        break;
      case "tools": {
        const tools = readTools(v);
        if (tools) s.tools = tools;
        else wrong(key, "a table of tools");
        break;
      }
      default:
        warnings.push(skippedField(agent, name, key));
    }
  }
  return finishMcpRead(agent, name, s, warnings);
}

function readTools(v: unknown): Record<string, McpTool> | null {
  if (!isPlainObject(v)) return null;
  const out: Record<string, McpTool> = {};
  for (const [tool, t] of Object.entries(v)) {
    if (!isPlainObject(t)) return null;
    const entry: McpTool = {};
    for (const field of ["description", "approval", "approval_prompt"] as const) {
      const x = t[field];
      if (x === undefined) continue;
      if (typeof x !== "string") return null;
      if (x !== "") entry[field] = x;
    }
    // The key Codex reads (tools.<t>.approval_mode) comes back as the neutral approval.
    const mode = t.approval_mode;
    if (mode !== undefined) {
      if (typeof mode !== "string") return null;
      if (mode !== "") entry.approval = mode;
    }
    out[tool] = entry;
  }
  return out;
}
