/** Claude Code: `.claude.json`/`.mcp.json` `mcpServers` entries and the settings.json `hooks` value. */
import { hookGroups } from "../../core/hooks/groups.js";
import { encodeJson } from "../../formats/json.js";
import { type McpServer, withForwarded } from "../../model/config.js";
import type { Agent } from "../../model/manifest.js";
import { claudeManifest } from "./manifest.js";

function mcpServer(s: McpServer): Record<string, unknown> {
  const item: Record<string, unknown> = { type: s.type || (s.url ? "http" : "stdio") };
  if (s.url) item.url = s.url;
  if (s.command) item.command = s.command;
  if (s.args?.length) item.args = s.args;
  const env = withForwarded(s);
  if (Object.keys(env).length > 0) item.env = env;
  const headers: Record<string, string> = { ...s.headers };
  for (const [header, envName] of Object.entries(s.env_headers ?? {})) headers[header] = `\${${envName}}`;
  // Claude Code has no bearer field; it expands ${VAR} in headers.
  if (s.bearer_token_env_var && !Object.keys(headers).some((h) => h.toLowerCase() === "authorization"))
    headers.Authorization = `Bearer \${${s.bearer_token_env_var}}`;
  if (Object.keys(headers).length > 0) item.headers = headers;
  if (s.startup_timeout_sec && s.startup_timeout_sec > 0) item.timeout = s.startup_timeout_sec;
  return item;
}

export const claude: Agent = {
  manifest: claudeManifest,
  mcpServer,
  loadImport: async () => (await import("./import.js")).claudeImport,
  hookFile(hooks) {
    if (hooks.length === 0) return null;
    const managed = { hooks: hookGroups(hooks) };
    return {
      content: encodeJson(managed),
      managed,
      merge: { kind: "handlers", format: "json", key: "hooks" },
    };
  },
};
