/** Kimi Code: mcp.json `mcpServers` entries and kanon's `[[hooks]]` tables in config.toml. */

import { encodeMarkedTables } from "../../formats/toml.js";
import type { McpServer } from "../../model/config.js";
import type { Agent } from "../../model/manifest.js";
import { kimiManifest, KIMI_HOOK_MARKER as MARKER } from "./manifest.js";

const BEARER_REF = /^Bearer \$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

function mcpServer(s: McpServer): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  if (s.url) {
    if (s.type === "sse") item.transport = "sse";
    item.url = s.url;
    const headers: Record<string, string> = { ...s.headers };
    // Kimi sends headers as written; an env_headers value could only be `${VAR}` text, which leaves the
    // server out for Kimi (core/mcp-variables.ts).
    for (const [header, envName] of Object.entries(s.env_headers ?? {})) headers[header] = `\${${envName}}`;
    // Kimi's bearerTokenEnvVar sends `Authorization: Bearer <value>` and replaces any Authorization
    // header, so `Authorization: Bearer ${VAR}` is that field, and no other Authorization header is sent.
    let bearer = s.bearer_token_env_var || undefined;
    for (const [header, value] of Object.entries(headers)) {
      if (header.toLowerCase() !== "authorization") continue;
      const m = BEARER_REF.exec(value);
      if (bearer === undefined && m) bearer = m[1];
      if (bearer !== undefined) delete headers[header];
    }
    if (Object.keys(headers).length > 0) item.headers = headers;
    if (bearer) item.bearerTokenEnvVar = bearer;
  } else {
    item.command = s.command ?? "";
    if (s.args?.length) item.args = s.args;
    // Kimi passes env values as written (no ${VAR} expansion) on top of its own environment, so
    // `NAME: ${NAME}` is what the server inherits anyway: leave it out rather than pass "${NAME}".
    const env = Object.entries(s.env ?? {}).filter(([name, value]) => value !== `\${${name}}`);
    if (env.length > 0) item.env = Object.fromEntries(env);
  }
  if (s.startup_timeout_sec && s.startup_timeout_sec > 0)
    item.startupTimeoutMs = s.startup_timeout_sec * 1000;
  if (s.tool_timeout_sec && s.tool_timeout_sec > 0) item.toolTimeoutMs = s.tool_timeout_sec * 1000;
  if (s.enabled_tools?.length) item.enabledTools = s.enabled_tools;
  if (s.disabled_tools?.length) item.disabledTools = s.disabled_tools;
  return item;
}

export const kimi: Agent = {
  manifest: kimiManifest,
  mcpServer,
  loadImport: async () => (await import("./import.js")).kimiImport,
  hookFile(hooks) {
    if (hooks.length === 0) return null;
    // Kimi's schema is strict: exactly these keys, or it drops every hook.
    const tables = hooks.map((h) => ({
      event: h.event,
      ...(h.matcherText ? { matcher: h.matcherText } : {}),
      command: h.command ?? "",
      ...(h.timeout ? { timeout: h.timeout } : {}),
    }));
    const labels = hooks.map((h) => h.name);
    return {
      content: encodeMarkedTables("hooks", tables, MARKER, labels),
      managed: { hooks: tables },
      merge: { kind: "tables", format: "toml", key: "hooks", marker: MARKER, labels },
    };
  },
};
