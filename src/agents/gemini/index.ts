/** Gemini CLI: settings.json holds both `mcpServers` entries and kanon's groups in `hooks`. */
import { hookGroups } from "../../core/hooks/groups.js";
import { encodeJson } from "../../formats/json.js";
import { type McpServer, withForwarded } from "../../model/config.js";
import type { Agent } from "../../model/manifest.js";
import { GEMINI_HOOK_PREFIX, geminiManifest } from "./manifest.js";

/**
 * Gemini expands `$VAR`, `${VAR}` and `${VAR:-default}` in these strings when it loads the settings,
 * which is what kanon.yaml's `${VAR}` references mean, so values are written as they are.
 */
function mcpServer(s: McpServer): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  if (s.url) {
    item.url = s.url;
    item.type = s.type === "sse" ? "sse" : "http";
    const headers: Record<string, string> = { ...s.headers };
    for (const [header, envName] of Object.entries(s.env_headers ?? {})) headers[header] = `\${${envName}}`;
    if (s.bearer_token_env_var && headers.Authorization === undefined)
      headers.Authorization = `Bearer \${${s.bearer_token_env_var}}`;
    if (Object.keys(headers).length > 0) item.headers = headers;
  } else {
    item.command = s.command ?? "";
    if (s.args?.length) item.args = s.args;
    // Gemini redacts secret-like names (TOKEN, KEY, …) from the environment a server inherits, so a
    // forwarded variable is written as an env entry, which it expands when it loads the settings.
    const env = withForwarded(s);
    if (Object.keys(env).length > 0) item.env = env;
  }
  // Gemini's timeout is the MCP request timeout, in milliseconds.
  if (s.tool_timeout_sec && s.tool_timeout_sec > 0) item.timeout = s.tool_timeout_sec * 1000;
  if (s.enabled_tools?.length) item.includeTools = s.enabled_tools;
  if (s.disabled_tools?.length) item.excludeTools = s.disabled_tools;
  return item;
}

export const gemini: Agent = {
  manifest: geminiManifest,
  mcpServer,
  loadImport: async () => (await import("./import.js")).geminiImport,
  hookFile(hooks) {
    if (hooks.length === 0) return null;
    const managed = { hooks: hookGroups(hooks, { namePrefix: GEMINI_HOOK_PREFIX }) };
    return {
      content: encodeJson(managed),
      managed,
      merge: { kind: "hook-groups", format: "json", key: "hooks", namePrefix: GEMINI_HOOK_PREFIX },
    };
  },
  gatedHooks: async (input) => (await import("./trust.js")).geminiGatedHooks(input),
};
