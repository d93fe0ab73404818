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
  commands: {
    verified: {
      version: "1.18.33",
      date: "2026-12-06",
      how: "run headless against the fake model (user and project folders, command/ and commands/; the body with its arguments reached the request) and the command loader read",
    },
    root: { user: ".config/opencode/commands", project: ".opencode/commands" },
    extension: ".md",
    format: { kind: "markdown" },
    fields: {
      description: { support: "native", name: "description" },
      "argument-hint": { support: "dropped", why: "OpenCode shows no argument hint" },
    },
    arguments: {
      all: "$ARGUMENTS",
      positional: { spelling: "${n}", base: 1, restToLast: true },
      reserved: { pattern: "\\$\\d+", does: "replaces it with an argument, or with nothing" },
      unplaced: "appended to the prompt after a blank line",
    },
    bodyNotes: [
      { pattern: "!`", note: "OpenCode runs !`…` in the prompt as a shell command and puts in its output" },
    ],
    invoke: "`/<name> <args>` (`opencode run --command <name> <args>`)",
  },
  subagents: {
    verified: {
      version: "1.18.33",
      date: "2026-12-06",
      how: "run headless against the fake model (user and project folders; the task tool ran the body as the system prompt with the tools the map left on) and the agent loader read",
    },
    root: { user: ".config/opencode/agents", project: ".opencode/agents" },
    extension: ".md",
    format: { kind: "markdown" },
    fixed: { mode: "subagent" },
    fields: {
      description: { support: "native", name: "description" },
      tools: { support: "native", name: "tools" },
      model: { support: "native", name: "model" },
    },
    // A list breaks OpenCode's whole configuration; a map switches tools off (run).
    toolList: {
      map: ["bash", "edit", "write", "read", "grep", "glob", "webfetch", "task", "todowrite", "skill"],
    },
    tools: {
      Bash: ["bash"],
      Edit: ["edit"],
      Write: ["write"],
      MultiEdit: ["edit"],
      Read: ["read"],
      Glob: ["glob"],
      Grep: ["grep"],
      WebFetch: ["webfetch"],
      Agent: ["task"],
      Task: ["task"],
      TodoWrite: ["todowrite"],
      Skill: ["skill"],
    },
    // `sonnet` fails at run time (`Model not found: sonnet/.`).
    models: { pattern: "^[^/\\s]+/\\S+$", say: "provider/model names (anthropic/claude-sonnet-4-5, …)" },
    inherit: null,
    invoke: "the `task` tool (`subagent_type: <name>`)",
    notes: ["tools: the built-in tools not listed are switched off; other tools (an MCP server's) stay on"],
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
