/** Codex CLI: config.toml `mcp_servers` entries and a kanon-owned hooks.json. */
import { hookGroups } from "../../core/hooks/groups.js";
import { encodeJson } from "../../formats/json.js";
import type { McpServer } from "../../model/config.js";
import type { Agent } from "../../model/manifest.js";
import { codexManifest } from "./manifest.js";

function mcpServer(s: McpServer): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => {
    if (value === undefined || value === "" || value === 0) return;
    if (Array.isArray(value) && value.length === 0) return;
    if (typeof value === "object" && value !== null && Object.keys(value).length === 0) return;
    item[key] = value;
  };
  set("url", s.url);
  set("command", s.command);
  set("args", s.args);
  set("env", s.env);
  set("env_vars", s.env_vars);
  set("http_headers", s.headers);
  set("env_http_headers", s.env_headers);
  set("bearer_token_env_var", s.bearer_token_env_var);
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
