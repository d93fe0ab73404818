/** OpenCode: instructions, skills and MCP as OpenCode 1 reads them (OpenCode 2 reads the same V1 shapes). */
import type { AgentManifest } from "../../model/manifest.js";
import { opencodeHooks } from "./hooks.js";

export const opencodeManifest: AgentManifest = {
  id: "opencode",
  displayName: "OpenCode",
  defaultOn: true,
  // OPENCODE_CONFIG_DIR is not a home: it adds a config directory, read after the global one (and after
  // the project's), so kanon keeps writing the global one, where OpenCode still reads everything.
  home: {
    name: "XDG_CONFIG_HOME",
    replaces: ".config",
    verified: { version: "1.18.33", date: "2026-12-01", how: "binary read (xdg-basedir)" },
  },
  instructions: { user: ".config/opencode/AGENTS.md", project: "AGENTS.md" },
  skills: { root: { user: ".config/opencode/skills", project: ".opencode/skills" }, providerNaming: "slug" },
  mcp: {
    verified: {
      version: "1.18.33",
      date: "2026-12-02",
      how: "conformance suite MCP phase (stub servers, stdio and HTTP) against the pinned binary",
    },
    file: { user: ".config/opencode/opencode.json", project: "opencode.json" },
    alternatives: [{ user: ".config/opencode/opencode.jsonc", project: "opencode.jsonc" }],
    format: "jsonc",
    key: "mcp",
    toolName: "{server}_{tool}",
    inheritsEnvironment: "all",
    // OpenCode substitutes its own {env:VAR} (no default) anywhere in the file; ${VAR} stays text.
    variables: "as-written",
    fields: {
      type: { support: "translated", how: "type local (command) or remote (url)" },
      command: { support: "translated", how: "command and args as one command list" },
      args: { support: "translated", how: "command and args as one command list" },
      env: { support: "translated", how: "as environment, each ${VAR} as {env:VAR}" },
      env_vars: { support: "translated", how: "as environment entries NAME: {env:NAME}" },
      url: { support: "native" },
      headers: { support: "translated", how: "each ${VAR} as {env:VAR}" },
      env_headers: { support: "translated", how: "as headers {env:VAR}" },
      bearer_token_env_var: { support: "translated", how: "as the header Authorization: Bearer {env:VAR}" },
      startup_timeout_sec: { support: "translated", how: "timeout, in milliseconds" },
      tool_timeout_sec: { support: "dropped", why: "OpenCode has no per-server tool timeout" },
      enabled_tools: {
        support: "none",
        why: "OpenCode's MCP entry has no tool filter; every tool of the server is offered",
      },
      disabled_tools: {
        support: "none",
        why: "OpenCode's MCP entry has no tool filter; every tool of the server is offered",
      },
      default_approval: {
        support: "dropped",
        why: "OpenCode asks before a tool runs by its own permission settings",
      },
      tools: { support: "dropped", why: "OpenCode asks before a tool runs by its own permission settings" },
      opencode_enabled: { support: "native", name: "enabled" },
    },
  },
  import: {
    // OpenCode also reads Claude's instructions and skills and the shared .agents/skills.
    instructionFallbacks: [{ user: ".claude/CLAUDE.md", project: "CLAUDE.md" }],
    skillRoots: [
      { user: ".claude/skills", project: ".claude/skills" },
      { user: ".agents/skills", project: ".agents/skills" },
    ],
    mcpFile: { label: "config", secretPath: "config" },
    mcpEntry: {
      envRef: "{env:NAME}",
      fields: {
        // local/remote follow from command/url; kanon writes them itself.
        type: { kind: "transport", values: { local: null, remote: null } },
        command: { kind: "command list" },
        environment: { kind: "env" },
        env: { kind: "env" },
        url: { kind: "string", to: "url" },
        headers: { kind: "headers", envRefs: true, bearer: "any case" },
        timeout: { kind: "milliseconds", to: "startup_timeout_sec", round: "up" },
        // OpenCode's own switch, never the neutral `enabled`.
        enabled: { kind: "boolean", to: "opencode_enabled" },
      },
    },
    hookFile: { label: "plugin", secretPath: "plugin" },
  },
  hooks: opencodeHooks,
};
