/** OpenCode: opencode.json(c) `mcp` entries and the generated kanon-hooks.js plugin. */
import { type McpServer, withForwarded } from "../../model/config.js";
import type { Agent } from "../../model/manifest.js";
import { opencodeManifest } from "./manifest.js";
import { pluginRuntimeLines, renderOpenCodePlugin } from "./plugin.js";

/**
 * OpenCode substitutes `{env:NAME}`; it has no default syntax, so a `${NAME:-x}` stays as text, which
 * core/mcp.ts resolves at apply or reports (an unset variable would otherwise become "", silently).
 */
const toOpenCodeEnv = (value: string) =>
  value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => `{env:${name}}`);

function mcpServer(s: McpServer): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  if (s.url) {
    item.type = "remote";
    item.url = s.url;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(s.headers ?? {})) headers[k] = toOpenCodeEnv(v);
    for (const [k, envName] of Object.entries(s.env_headers ?? {})) headers[k] = `{env:${envName}}`;
    if (s.bearer_token_env_var && headers.Authorization === undefined) {
      headers.Authorization = `Bearer {env:${s.bearer_token_env_var}}`;
    }
    if (Object.keys(headers).length > 0) item.headers = headers;
  } else {
    item.type = "local";
    item.command = [s.command ?? "", ...(s.args ?? [])];
    const env = withForwarded(s);
    if (Object.keys(env).length > 0) {
      item.environment = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, toOpenCodeEnv(v)]));
    }
  }
  if (s.startup_timeout_sec && s.startup_timeout_sec > 0) item.timeout = s.startup_timeout_sec * 1000;
  if (s.opencode_enabled !== undefined) item.enabled = s.opencode_enabled;
  return item;
}

export const opencode: Agent = {
  manifest: opencodeManifest,
  mcpServer,
  loadImport: async () => (await import("./import.js")).opencodeImport,
  hookFile(hooks) {
    if (hooks.length === 0) return null;
    const content = renderOpenCodePlugin(
      hooks.map((h) => ({
        name: h.name,
        event: h.neutralEvent,
        matcher:
          h.matcher.kind === "all"
            ? null
            : h.matcher.kind === "names"
              ? { names: h.matcher.names }
              : { regex: h.matcher.source },
        command: h.command ?? "",
        ...(h.args ? { args: h.args } : {}),
        ...(h.timeout ? { timeout: h.timeout } : {}),
        ...(h.async ? { async: true } : {}),
        ...(h.neutral ? { neutral: true } : {}),
      })),
    );
    return { content, elided: pluginRuntimeLines(content) };
  },
};
