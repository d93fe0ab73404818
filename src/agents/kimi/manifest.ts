/**
 * Kimi Code CLI (`@moonshot-ai/kimi-code`, binary `kimi`), verified against 2.1.0: its bundle read
 * (the strict [[hooks]] schema, events, runner) and end-to-end runs against a fake model, with
 * `kimi doctor` checking every rendered config.toml (2026-11-30).
 */
import type { AgentManifest, EventSupport } from "../../model/manifest.js";

const VERIFIED = {
  version: "2.1.0",
  date: "2026-11-30",
  how: "bundle read; e2e against a fake model; kimi doctor; [[hooks]] checked against the bundle's strict hook schema (Kimi publishes none)",
};
/** Events read in the code but not fired in the end-to-end runs. */
const READ_ONLY = { version: "2.1.0", date: "2026-11-30", how: "bundle read only (not run)" };

const observe = { can: false } as const;
const block = (effect: string) => ({ can: true, how: ["exit2", "json"], effect }) as const;

const events: Record<string, EventSupport> = {
  SessionStart: {
    native: "SessionStart",
    matcher: "source",
    values: ["startup", "resume"],
    block: observe,
    context: null,
    observeOnly: true,
    notes: "awaited, but its output is ignored",
  },
  UserPromptSubmit: {
    native: "UserPromptSubmit",
    matcher: "none",
    block: block("the prompt is stopped before any model request (kimi -p exits 1)"),
    context: { channel: "stdout or JSON message (a <hook_result> user message)", limit: null },
    envelope: { context: "stdout" },
  },
  PreToolUse: {
    native: "PreToolUse",
    matcher: "tool",
    block: block("the tool call is blocked; stderr or permissionDecisionReason reaches the model"),
    context: null,
  },
  PostToolUse: {
    native: "PostToolUse",
    matcher: "tool",
    block: observe,
    context: null,
    observeOnly: true,
    notes: "fire-and-forget, and killed when the turn ends: slow work is cut off",
  },
  Stop: {
    native: "Stop",
    matcher: "none",
    block: block("stderr becomes a user message and the turn continues (once per turn)"),
    context: null,
  },
  Interrupt: {
    native: "Interrupt",
    matcher: "none",
    block: observe,
    context: null,
    observeOnly: true,
    verified: READ_ONLY,
  },
  PreCompact: {
    native: "PreCompact",
    matcher: "trigger",
    values: ["manual", "auto"],
    block: observe,
    context: null,
    observeOnly: true,
    verified: READ_ONLY,
  },
  PostCompact: {
    native: "PostCompact",
    matcher: "trigger",
    values: ["manual", "auto"],
    block: observe,
    context: null,
    observeOnly: true,
    verified: READ_ONLY,
  },
  SessionEnd: {
    native: "SessionEnd",
    matcher: "reason",
    values: ["exit", "archive"],
    block: observe,
    context: null,
    observeOnly: true,
    notes: "never fires in kimi -p runs",
  },
  Notification: {
    native: "Notification",
    matcher: "notification",
    block: observe,
    context: null,
    observeOnly: true,
    verified: READ_ONLY,
  },
};

// Kimi-only events, rendered as written for hooks that name them; read in the code, not run.
for (const [name, matcher] of [
  ["PostToolUseFailure", "tool"],
  ["PermissionRequest", "tool"],
  ["PermissionResult", "tool"],
  ["UserPromptQueued", "none"],
  ["TurnStarted", "none"],
  ["StopFailure", "none"],
  ["SessionHeartbeat", "none"],
  ["SubagentStart", "agent"],
  ["SubagentStop", "agent"],
  ["TaskStarted", "none"],
] as const) {
  events[name] = {
    native: name,
    matcher,
    block: observe,
    context: null,
    notes: "Kimi Code only",
    verified: READ_ONLY,
  };
}

/** kanon's `[[hooks]]` tables carry `# kanon: <hook name>` on their header line. */
export const KIMI_HOOK_MARKER = "kanon";

export const kimiManifest: AgentManifest = {
  id: "kimi",
  displayName: "Kimi Code",
  defaultOn: false,
  home: {
    name: "KIMI_CODE_HOME",
    replaces: ".kimi-code",
    // Its config loader takes `KIMI_CODE_HOME ?? ~/.kimi-code` (`kimi doctor` then checks ./config.toml).
    emptyReads: ["config.toml", "mcp.json"],
    verified: { version: "2.1.0", date: "2026-12-01", how: "bundle read" },
  },
  instructions: { user: ".kimi-code/AGENTS.md", project: "AGENTS.md" },
  skills: { root: { user: ".kimi-code/skills", project: ".kimi-code/skills" }, providerNaming: "slug" },
  mcp: {
    verified: {
      version: "2.1.0",
      date: "2026-12-02",
      how: "conformance suite MCP phase (stub servers, stdio and HTTP) against the pinned binary",
    },
    file: { user: ".kimi-code/mcp.json", project: ".kimi-code/mcp.json" },
    format: "json",
    key: "mcpServers",
    toolName: "mcp__{server}__{tool}",
    inheritsEnvironment: "all",
    // mcp.json strings reach the server as written: no ${VAR} expansion anywhere.
    variables: "as-written",
    fields: {
      type: {
        support: "translated",
        how: "transport sse with the url; stdio and http follow from command and url",
      },
      command: { support: "native" },
      args: { support: "native" },
      env: {
        support: "translated",
        how: "literal values as env; NAME: ${NAME} left out (Kimi Code starts the server with its own environment)",
      },
      env_vars: {
        support: "translated",
        how: "not written: Kimi Code starts the server with its own environment",
      },
      url: { support: "native" },
      headers: {
        support: "translated",
        how: "Authorization: Bearer ${VAR} as bearerTokenEnvVar; the others as written",
      },
      env_headers: {
        support: "translated",
        how: 'as headers "${VAR}", which Kimi Code sends as written (resolve_env)',
      },
      bearer_token_env_var: { support: "native", name: "bearerTokenEnvVar" },
      startup_timeout_sec: { support: "translated", how: "startupTimeoutMs, in milliseconds" },
      tool_timeout_sec: { support: "translated", how: "toolTimeoutMs, in milliseconds" },
      enabled_tools: { support: "native", name: "enabledTools" },
      disabled_tools: { support: "native", name: "disabledTools" },
      default_approval: {
        support: "dropped",
        why: "Kimi Code asks before a tool runs by its permission mode",
      },
      tools: { support: "dropped", why: "Kimi Code asks before a tool runs by its permission mode" },
      opencode_enabled: { support: "dropped", why: "OpenCode's own switch" },
    },
    projectGate: "project servers start only in a folder the user trusted (Kimi Code's trust prompt)",
  },
  commands: {
    verified: {
      version: "2.1.0",
      date: "2026-12-06",
      how: "run headless (kimi -p passes /name as text) and the bundle read: commands come only from installed plugins",
    },
    lacks: "has no user or project commands, only those of an installed plugin, run from its terminal UI",
  },
  subagents: {
    verified: {
      version: "2.1.0",
      date: "2026-12-06",
      how: "run headless against the fake model (user and project folders; the Agent tool ran the body as the system prompt with exactly the listed tools) and parseAgentFileText read",
    },
    root: { user: ".kimi-code/agents", project: ".kimi-code/agents" },
    extension: ".md",
    format: { kind: "markdown" },
    // The file's name is the subagent's; a name of another shape is skipped (a line in its log).
    names: { pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$", say: "lower-case kebab-case names (a-z, 0-9, single -)" },
    fields: {
      description: { support: "native", name: "description" },
      tools: { support: "native", name: "tools" },
      model: { support: "none", why: "Kimi Code runs every subagent on the session's model" },
    },
    toolList: "comma",
    tools: {
      Bash: ["Bash"],
      Edit: ["Edit"],
      MultiEdit: ["Edit"],
      Write: ["Write"],
      Read: ["Read"],
      Glob: ["Glob"],
      Grep: ["Grep"],
      WebFetch: ["FetchURL"],
      WebSearch: ["WebSearch"],
      Agent: ["Agent"],
      Task: ["Agent"],
      TodoWrite: ["TodoList"],
      Skill: ["Skill"],
    },
    inherit: null,
    bodyNotes: [
      {
        pattern: "\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}",
        note: "Kimi Code fills in ${name} in the prompt with its own value where it has one (${cwd}: the working directory)",
      },
    ],
    invoke: "the `Agent` tool (`subagent_type: <name>`)",
  },
  import: {
    mcpFile: { label: "mcp", secretPath: "mcp" },
    mcpEntry: {
      fields: {
        command: { kind: "string", to: "command" },
        args: { kind: "strings", to: "args" },
        env: { kind: "env" },
        url: { kind: "string", to: "url" },
        // Kimi infers stdio and http; only sse is written.
        transport: { kind: "transport", values: { stdio: null, http: null, sse: "sse" } },
        headers: { kind: "headers", envRefs: true },
        bearerTokenEnvVar: { kind: "string", to: "bearer_token_env_var" },
        startupTimeoutMs: { kind: "milliseconds", to: "startup_timeout_sec", round: "exact" },
        toolTimeoutMs: { kind: "milliseconds", to: "tool_timeout_sec", round: "exact" },
        enabledTools: { kind: "strings", to: "enabled_tools" },
        disabledTools: { kind: "strings", to: "disabled_tools" },
      },
    },
    hookFile: { label: "config", secretPath: "config" },
  },
  hooks: {
    verified: VERIFIED,
    // Kimi Code reads hooks from $KIMI_CODE_HOME/config.toml only: there are no project hooks.
    file: { user: ".kimi-code/config.toml", project: null },
    passThrough: false,
    events,
    // A [[hooks]] table is a shell command only (event, matcher, command, timeout; no handler type),
    // and the schema is strict: one other key and Kimi Code drops every hook.
    handlers: {
      command: {
        fields: {
          command: { support: "native" },
          args: { support: "translated", how: "posix-command-line" },
          timeout: { support: "native" },
          status_message: { support: "dropped", why: "Kimi Code shows no hook status" },
        },
        runs: "spawned with shell: true in its own process group, cwd = the session cwd; the whole environment is inherited (model API key included)",
      },
    },
    matcher: {
      listSeparators: [],
      trimsSpaces: false,
      regex: "javascript",
      notes:
        "an unanchored JavaScript regex (kanon anchors exact names: ^(?:Bash)$); an invalid regex never matches",
    },
    timeouts: { unit: "s", defaultSec: 30, minSec: 1, maxSec: 600 },
    tools: {
      Bash: ["Bash"],
      Edit: ["Edit"],
      Write: ["Write"],
      MultiEdit: ["Edit"],
      Read: ["Read"],
      Glob: ["Glob"],
      Grep: ["Grep"],
      WebFetch: ["FetchURL"],
      Agent: ["Agent"],
      Task: ["Agent"],
      TodoWrite: ["TodoList"],
      Skill: ["Skill"],
    },
    gates: [],
    runtime: [
      "stdin: hook_event_name, session_id, cwd, client_type, plus tool_name/tool_input/tool_call_id (tool events), prompt (an array of content parts), source, …",
      "exit 2 blocks PreToolUse, UserPromptSubmit and Stop (stderr is the reason); other exits, crashes and timeouts allow",
      "one invalid [[hooks]] entry makes Kimi drop every hook: kanon writes only event, matcher, command and timeout (1–600 s)",
    ],
    // No transcript_path; SessionStart and PostCompact output is ignored, so their context is carried.
    envelope: {
      fields: {
        session_id: "session_id",
        cwd: "cwd",
        prompt: "prompt",
        tool_name: "tool_name",
        tool_input: "tool_input",
        tool_output: "tool_output",
        source: "source",
        trigger: "trigger",
        reason: "reason",
      },
      promptParts: true,
      carry: "runner",
    },
  },
};
