/** OpenAI Codex CLI, verified against 0.171.0 (binary schemas read and end-to-end runs, 2026-11-30). */
import type { AgentManifest, EventSupport } from "../../model/manifest.js";

const VERIFIED = {
  version: "0.171.0",
  date: "2026-11-30",
  how: "embedded hook schemas read; e2e against a fake model; hooks.json checked against SchemaStore codex-hooks.json of 2026-06-29 (bb45ad1)",
};

const observe = { can: false } as const;
/**
 * Codex's default `additionalContextLimit`, in tokens estimated as UTF-8 bytes ÷ 4 (a handler may raise
 * it; kanon does for a neutral hook whose max_output_chars is larger).
 */
export const ADDITIONAL_CONTEXT_LIMIT = 2500;
/** Measured live: 4,800 CJK characters (14,369 bytes) came through as about 3,590. */
const limit = {
  max: ADDITIONAL_CONTEXT_LIMIT,
  unit: "bytes/4",
  over: "a warning, the head and the tail with …N tokens truncated… between them, and a pointer to a saved file",
  raise: "additionalContextLimit",
} as const;
/** Each event whose hookSpecificOutput takes additionalContext. */
const additional = { context: "additionalContext" } as const;
const block = (effect: string) => ({ can: true, how: ["exit2", "json"], effect }) as const;

/** In the order Codex lists them (hooks.json's serde field order); trust.ts reads them in this order. */
const events: Record<string, EventSupport> = {
  PreModelRequest: {
    native: "PreModelRequest",
    matcher: "none",
    block: observe,
    context: null,
    observeOnly: true,
  },
  PostModelRequest: {
    native: "PostModelRequest",
    matcher: "none",
    block: observe,
    context: null,
    observeOnly: true,
  },
  PreToolUse: {
    native: "PreToolUse",
    matcher: "tool",
    block: block("the tool call is blocked; stderr becomes the tool output the model sees"),
    context: { channel: "additionalContext (developer message)", limit },
    envelope: additional,
  },
  PermissionRequest: {
    native: "PermissionRequest",
    matcher: "tool",
    block: { can: true, how: ["json"], effect: "a JSON decision allows or denies the request" },
    context: null,
  },
  PostToolUse: {
    native: "PostToolUse",
    matcher: "tool",
    block: block("the tool output sent to the model is replaced by stderr"),
    context: { channel: "additionalContext", limit },
    envelope: additional,
  },
  PreCompact: {
    native: "PreCompact",
    matcher: "trigger",
    values: ["manual", "auto"],
    block: observe,
    context: null,
  },
  PostCompact: {
    native: "PostCompact",
    matcher: "trigger",
    values: ["manual", "auto"],
    block: observe,
    // Its output goes nowhere; SessionStart (source compact) follows it, and its context lands.
    context: null,
    envelope: { as: { event: "SessionStart", matcher: "compact" } },
    observeOnly: true,
  },
  SessionStart: {
    native: "SessionStart",
    matcher: "source",
    values: ["startup", "resume", "clear", "compact", "fork"],
    block: observe,
    context: { channel: "stdout or additionalContext (developer message)", limit },
    envelope: additional,
    observeOnly: true,
  },
  SessionEnd: {
    native: "SessionEnd",
    matcher: "reason",
    values: ["other"],
    block: observe,
    context: null,
    maxTimeoutSec: 3,
    observeOnly: true,
  },
  UserPromptSubmit: {
    native: "UserPromptSubmit",
    matcher: "none",
    block: block("the turn is blocked before any model request"),
    context: { channel: "additionalContext (developer message)", limit },
    envelope: additional,
  },
  SubagentStart: { native: "SubagentStart", matcher: "agent", block: observe, context: null },
  SubagentStop: {
    native: "SubagentStop",
    matcher: "agent",
    block: block("the subagent continues"),
    context: null,
  },
  Stop: {
    native: "Stop",
    matcher: "none",
    block: block("stderr becomes a new user message and the turn continues"),
    context: null,
  },
  Interrupt: {
    native: "Interrupt",
    matcher: "none",
    block: observe,
    context: null,
    maxTimeoutSec: 3,
    observeOnly: true,
  },
};

export const codexManifest: AgentManifest = {
  id: "codex",
  displayName: "Codex CLI",
  defaultOn: true,
  // ~/.agents/skills stays in the user's home: only $CODEX_HOME/skills, a deprecated root, moves.
  home: {
    name: "CODEX_HOME",
    replaces: ".codex",
    realPath: true,
    verified: { version: "0.171.0", date: "2026-12-01", how: "binary read (find_codex_home)" },
  },
  instructions: { user: ".codex/AGENTS.md", project: "AGENTS.md" },
  skills: { root: { user: ".agents/skills", project: ".agents/skills" }, providerNaming: "namespaced" },
  mcp: {
    verified: {
      version: "0.171.0",
      date: "2026-12-02",
      how: "conformance suite MCP phase (stub servers, stdio and HTTP) against the pinned binary",
    },
    file: { user: ".codex/config.toml", project: ".codex/config.toml" },
    format: "toml",
    key: "mcp_servers",
    toolName: "mcp__{server}__{tool}",
    inheritsEnvironment: "none",
    // Codex 0.171.0: `unknown variant …, expected one of auto, prompt, writes, approve` (config not loaded).
    approvalModes: ["auto", "prompt", "writes", "approve"],
    variables: "as-written",
    fields: {
      type: {
        support: "translated",
        how: "not written: stdio follows from command, streamable HTTP from url (an sse server is left out)",
      },
      command: { support: "native" },
      args: { support: "native" },
      env: {
        support: "translated",
        how: "literal values as env; a value that is exactly ${NAME} of its own name as env_vars = [NAME] (Codex passes env as written)",
      },
      env_vars: { support: "native" },
      url: { support: "native" },
      headers: {
        support: "translated",
        how: "literal values as http_headers; a value that is exactly ${VAR} as env_http_headers, Authorization: Bearer ${VAR} as bearer_token_env_var",
      },
      env_headers: { support: "native", name: "env_http_headers" },
      bearer_token_env_var: { support: "native" },
      startup_timeout_sec: { support: "native" },
      tool_timeout_sec: { support: "native" },
      enabled_tools: { support: "native" },
      disabled_tools: { support: "native" },
      default_approval: { support: "native", name: "default_tools_approval_mode" },
      tools: { support: "translated", how: "tools.<t>.approval as tools.<t>.approval_mode" },
      opencode_enabled: { support: "dropped", why: "OpenCode's own switch" },
    },
    projectGate: 'project config.toml loads only when the project is trusted (trust_level = "trusted")',
    // No SSE client: a url is spoken to as streamable HTTP.
    transports: ["stdio", "http"],
  },
  commands: {
    verified: {
      version: "0.171.0",
      date: "2026-12-06",
      how: "run headless (a prompts/ file's body never reached the model) and the binary read: custom prompts were removed in 0.117.0",
    },
    lacks: "has no slash commands of its own since 0.117.0; it has skills instead",
  },
  subagents: {
    verified: {
      version: "0.171.0",
      date: "2026-12-06",
      how: "run headless against the fake model (user and trusted project folders; spawn_agent ran the role with its developer_instructions and model) and the agent role loader read",
    },
    root: { user: ".codex/agents", project: ".codex/agents" },
    extension: ".toml",
    // Unknown keys reject the file: only these are written.
    format: { kind: "toml", prompt: "developer_instructions" },
    nameField: "name",
    fields: {
      description: { support: "native", name: "description" },
      tools: {
        support: "none",
        why: "Codex CLI's agent roles have no tool list; their tools key means something else",
      },
      model: { support: "native", name: "model" },
    },
    toolList: "list",
    tools: {},
    models: {
      pattern: "^(?!(sonnet|opus|haiku)$)\\S+$",
      say: "its providers' model names (gpt-5.5, …), not Claude Code's aliases",
    },
    inherit: null,
    gates: [
      {
        id: "codex-project-trust",
        scopes: ["project"],
        description: "Codex CLI reads a project's agent roles only once the project is trusted",
      },
    ],
    invoke: "`spawn_agent` (`agent_type: <name>`) of the multi-agent tools, which runs it alongside",
  },
  import: {
    // Codex still reads its legacy skill folder.
    skillRoots: [{ user: ".codex/skills", project: ".codex/skills" }],
    mcpFile: { label: "config", secretPath: "config" },
    // The entry shape Claude's .claude.json has too: the Go original read both files alike. A header
    // is literal (env headers have their own table).
    mcpEntry: {
      fields: {
        type: { kind: "transport", values: "any" },
        command: { kind: "string", to: "command" },
        args: { kind: "strings", to: "args" },
        env: { kind: "env" },
        env_vars: { kind: "strings", to: "env_vars" },
        url: { kind: "string", to: "url" },
        headers: { kind: "headers" },
        http_headers: { kind: "headers" },
        env_headers: { kind: "env headers" },
        env_http_headers: { kind: "env headers" },
        bearer_token_env_var: { kind: "string", to: "bearer_token_env_var" },
        startup_timeout_sec: { kind: "seconds", to: "startup_timeout_sec" },
        timeout: { kind: "seconds", to: "startup_timeout_sec" },
        tool_timeout_sec: { kind: "seconds", to: "tool_timeout_sec" },
        enabled_tools: { kind: "strings", to: "enabled_tools" },
        disabled_tools: { kind: "strings", to: "disabled_tools" },
        // Codex reads default_tools_approval_mode; the Go original wrote default_tool_approval.
        default_tools_approval_mode: { kind: "string", to: "default_approval" },
        default_tool_approval: { kind: "string", to: "default_approval" },
        tools: { kind: "tools" },
      },
    },
    hookFile: { label: "hooks", secretPath: "hooks" },
  },
  hooks: {
    verified: VERIFIED,
    file: { user: ".codex/hooks.json", project: ".codex/hooks.json" },
    passThrough: false,
    events,
    // Only command handlers: prompt and agent are skipped ("prompt hooks are not supported yet"),
    // http is a parse error that drops the whole file, and mcp_tool is parsed but was not seen running.
    handlers: {
      command: {
        fields: {
          command: { support: "native" },
          args: {
            support: "translated",
            how: "posix-command-line",
          },
          timeout: { support: "native" },
          async: { support: "native" },
          status_message: { support: "native", name: "statusMessage" },
        },
        runs: "<login shell from passwd> -c <command>, cwd = the session cwd (observed /bin/bash -c)",
      },
    },
    matcher: {
      listSeparators: ["|"],
      trimsSpaces: false,
      regex: "rust",
      notes:
        "empty or * matches all; plain A|B names are an exact, case-sensitive list (a comma is not a separator); anything else is an unanchored Rust regex",
    },
    timeouts: { unit: "s", defaultSec: 600 },
    tools: {
      Bash: ["Bash"],
      // apply_patch answers to the matchers Edit and Write.
      Edit: ["Edit"],
      Write: ["Write"],
      MultiEdit: ["Edit"],
    },
    gates: [
      {
        id: "codex-hook-review",
        scopes: ["user", "project"],
        description:
          "Codex runs a new or changed hook only after the user reviews it in /hooks (its hash is stored in config.toml)",
      },
      {
        id: "codex-project-trust",
        scopes: ["project"],
        description: 'project hooks load only when the project is trusted (trust_level = "trusted")',
      },
    ],
    runtime: [
      "stdin: session_id, transcript_path, cwd, hook_event_name, model, plus tool_name/tool_input/tool_use_id (tool events), prompt, source, …",
      "tool_name is Bash for shell commands and apply_patch for edits",
      "exit 0: stdout parsed as JSON or taken as context; exit 2: block or feedback; other: failed, non-blocking",
      "SessionEnd and Interrupt timeouts are capped at 3 s",
    ],
    envelope: {
      fields: {
        session_id: "session_id",
        cwd: "cwd",
        transcript_path: "transcript_path",
        prompt: "prompt",
        tool_name: "tool_name",
        tool_input: "tool_input",
        tool_output: "tool_response",
        source: "source",
        trigger: "trigger",
        reason: "reason",
      },
      // Edits reach hooks as apply_patch (the matchers Edit and Write see it).
      toolNames: { apply_patch: "Edit" },
      carry: "runner",
    },
  },
};
