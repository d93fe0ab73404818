/** Codex CLI: config.toml `mcp_servers` entries and a kanon-owned hooks.json. */
import { hookGroups } from "../../core/hooks/groups.js";
import { encodeJson } from "../../formats/json.js";
import type { McpServer } from "../../model/config.js";
import type { Agent } from "../../model/manifest.js";
import { codexManifest } from "./manifest.js";

/** A value that is exactly one `${NAME}` (no default): Codex can take it from its environment by name. */
const WHOLE_REF = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
const BEARER_REF = /^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * Codex passes env and http_headers as written (0.171.0, seen in the conformance suite), so a
 * reference goes through the fields that read the environment: `NAME: ${NAME}` → env_vars,
 * a header `${VAR}` → env_http_headers, `Authorization: Bearer ${VAR}` → bearer_token_env_var. Any
 * other reference stays as text, and core/mcp.ts resolves it at apply or leaves the server out.
 */
function mcpServer(s: McpServer): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  const env: Record<string, string> = {};
  const envVars = [...(s.env_vars ?? [])];
  for (const [name, value] of Object.entries(s.env ?? {})) {
    if (WHOLE_REF.exec(value)?.[1] === name) {
      if (!envVars.includes(name)) envVars.push(name);
    } else env[name] = value;
  }
  const headers: Record<string, string> = {};
  const envHeaders: Record<string, string> = { ...s.env_headers };
  let bearer = s.bearer_token_env_var || undefined;
  for (const [header, value] of Object.entries(s.headers ?? {})) {
    const whole = WHOLE_REF.exec(value)?.[1];
    const token = header.toLowerCase() === "authorization" ? BEARER_REF.exec(value)?.[1] : undefined;
    if (whole && envHeaders[header] === undefined) envHeaders[header] = whole;
    else if (token && bearer === undefined) bearer = token;
    else headers[header] = value;
  }
  const set = (key: string, value: unknown) => {
    if (value === undefined || value === "" || value === 0) return;
    if (Array.isArray(value) && value.length === 0) return;
    if (typeof value === "object" && value !== null && Object.keys(value).length === 0) return;
    item[key] = value;
  };
  set("url", s.url);
  set("command", s.command);
  set("args", s.args);
  set("env", env);
  set("env_vars", envVars);
  set("http_headers", headers);
  set("env_http_headers", envHeaders);
  set("bearer_token_env_var", bearer);
  set("startup_timeout_sec", s.startup_timeout_sec);
  set("tool_timeout_sec", s.tool_timeout_sec);
  set("enabled_tools", s.enabled_tools);
  set("disabled_tools", s.disabled_tools);
  // The Go original wrote default_tool_approval and tools.<t>.approval, approval_prompt and
  // description, which Codex parses and ignores; these are the keys Codex reads (values validated).
  set("default_tools_approval_mode", s.default_approval);
  const tools = Object.entries(s.tools ?? {}).filter(([, t]) => t.approval);
  if (tools.length > 0)
    item.tools = Object.fromEntries(tools.map(([name, t]) => [name, { approval_mode: t.approval }]));
  return item;
}

export const codex: Agent = {
  manifest: codexManifest,
  mcpServer,
  loadImport: async () => (await import("./import.js")).codexImport,
  hookFile(hooks) {
    if (hooks.length === 0) return null;
    // Codex rejects any top-level key but `hooks` and `description`: kanon writes only `hooks`, and
    // only its own handlers in it (the user's stay where they are).
    const managed = { hooks: hookGroups(hooks) };
    return {
      content: encodeJson(managed),
      managed,
      merge: { kind: "handlers", format: "json", key: "hooks" },
    };
  },
  gatedHooks: async (input) => (await import("./review.js")).codexGatedHooks(input),
};
