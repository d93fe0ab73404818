/** Claude Code, verified against 2.1.332 (npm binary read and end-to-end runs, 2026-11-30). */
import type { AgentManifest, EventSupport } from "../../model/manifest.js";

const VERIFIED = {
  version: "2.1.332",
  date: "2026-11-30",
  how: "bundled schemas read; e2e against a fake model; handler and event tables match SchemaStore claude-code-settings.json of 2026-08-03 (d2cbdcd), plus the events the 2.1.332 binary added since",
};

/** Fields every Claude handler type takes (SchemaStore claude-code-settings.json, hookCommand). */
const common = {
  timeout: { support: "native" },
  // "Evaluated only on tool-related events …; on other events a hook with `if` set never runs."
  if: {
    support: "native",
    events: ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"],
  },
  status_message: { support: "native", name: "statusMessage" },
} as const;

const toolBlock = {
  can: true,
  how: ["exit2", "json"],
  effect: "the tool call is blocked; stderr reaches the model",
} as const;
const observe = { can: false } as const;
/** Measured live for plain stdout and additionalContext (probed at 9,990 and 10,010 characters). */
const limit = {
  max: 10_000,
  unit: "utf16",
  over: "the text is replaced by a pointer to a saved file with a 2 KB preview",
} as const;
/** Each event whose hookSpecificOutput takes additionalContext. */
const additional = { context: "additionalContext" } as const;

/** Claude's own events; anything else is still passed through (Claude drops unknown entries one by one). */
const events: Record<string, EventSupport> = {
  SessionStart: {
    native: "SessionStart",
    matcher: "source",
    values: ["startup", "resume", "clear", "compact", "fork"],
    block: observe,
    context: { channel: "stdout or additionalContext", limit },
    envelope: additional,
    observeOnly: true,
  },
  UserPromptSubmit: {
    native: "UserPromptSubmit",
    matcher: "none",
    block: {
      can: true,
      how: ["exit2", "json"],
      effect: "the prompt is blocked and erased; stderr reaches the user",
    },
    context: { channel: "stdout or additionalContext", limit },
    envelope: additional,
  },
  PreToolUse: {
    native: "PreToolUse",
    matcher: "tool",
    block: toolBlock,
    context: { channel: "additionalContext", limit },
    envelope: additional,
  },
  PostToolUse: {
    native: "PostToolUse",
    matcher: "tool",
    block: { can: true, how: ["exit2", "json"], effect: "stderr reaches the model (the tool already ran)" },
    context: { channel: "additionalContext", limit },
    envelope: additional,
  },
  Stop: {
    native: "Stop",
    matcher: "none",
    block: { can: true, how: ["exit2", "json"], effect: "stderr reaches the model and the turn continues" },
    context: null,
  },
  PreCompact: {
    native: "PreCompact",
    matcher: "trigger",
    values: ["manual", "auto"],
    block: { can: true, how: ["exit2"], effect: "compaction is blocked" },
    context: null,
  },
  PostCompact: {
    native: "PostCompact",
    matcher: "trigger",
    values: ["manual", "auto"],
    block: observe,
    // Its stdout only shows in /compact's display; SessionStart (source compact) fires first, and its
    // context lands.
    context: null,
    envelope: { as: { event: "SessionStart", matcher: "compact" } },
    observeOnly: true,
  },
  SessionEnd: {
    native: "SessionEnd",
    matcher: "reason",
    values: ["clear", "resume", "logout", "prompt_input_exit", "other"],
    block: observe,
    context: null,
    observeOnly: true,
  },
  Notification: {
    native: "Notification",
    matcher: "notification",
    block: observe,
    context: null,
    observeOnly: true,
  },
};

// Claude-only events: rendered as written, listed so that `kanon hooks` knows them.
for (const [name, matcher] of [
  ["PermissionRequest", "tool"],
  ["PostToolUseFailure", "tool"],
  ["PermissionDenied", "tool"],
  ["PreSkillShellCommand", "tool"],
  ["PostToolBatch", "none"],
  ["UserPromptExpansion", "none"],
  ["Setup", "trigger"],
  ["StopFailure", "none"],
  ["SubagentStart", "agent"],
  ["SubagentStop", "agent"],
  ["PreModelSwitch", "none"],
  ["PostModelSwitch", "none"],
  ["Elicitation", "none"],
  ["ElicitationResult", "none"],
  ["ConfigChange", "source"],
  ["InstructionsLoaded", "none"],
  ["DirectoryAdded", "source"],
  ["FileChanged", "none"],
  ["TaskCreated", "none"],
  ["TaskCompleted", "none"],
  ["TeammateIdle", "none"],
  ["WorktreeCreate", "none"],
  ["WorktreeRemove", "none"],
  ["CwdChanged", "none"],
  ["MessageDisplay", "none"],
] as const) {
  events[name] = { native: name, matcher, block: observe, context: null, notes: "Claude only" };
}

export const claudeManifest: AgentManifest = {
  id: "claude",
  displayName: "Claude Code",
  defaultOn: true,
  home: {
    name: "CLAUDE_CONFIG_DIR",
    replaces: ".claude",
    // The global config (MCP servers) moves into the directory too.
    alsoMoves: { ".claude.json": ".claude.json" },
    verified: { version: "2.1.332", date: "2026-12-01", how: "binary read" },
  },
  instructions: { user: ".claude/CLAUDE.md", project: "CLAUDE.md" },
  skills: { root: { user: ".claude/skills", project: ".claude/skills" }, providerNaming: "namespaced" },
  mcp: {
    verified: {
      version: "2.1.332",
      date: "2026-12-02",
      how: "conformance suite MCP phase (stub servers, stdio and HTTP) against the pinned binary",
    },
    file: { user: ".claude.json", project: ".mcp.json" },
    format: "json",
    key: "mcpServers",
    // "type may be omitted for stdio" (Claude Code's MCP docs); kanon writes it all the same.
    implied: { type: "stdio" },
    toolName: "mcp__{server}__{tool}",
    inheritsEnvironment: "all",
    fields: {
      type: { support: "native" },
      command: { support: "native" },
      args: { support: "native" },
      env: { support: "native" },
      env_vars: { support: "translated", how: "as env entries NAME: ${NAME}, which Claude Code expands" },
      url: { support: "native" },
      headers: { support: "native" },
      env_headers: { support: "translated", how: 'as headers "${VAR}", which Claude Code expands' },
      bearer_token_env_var: { support: "translated", how: "as the header Authorization: Bearer ${VAR}" },
      startup_timeout_sec: { support: "native", name: "timeout" },
      tool_timeout_sec: {
        support: "dropped",
        why: "Claude Code takes one tool timeout for all servers (MCP_TOOL_TIMEOUT)",
      },
      enabled_tools: {
        support: "none",
        why: "Claude Code's MCP entry has no tool filter; every tool of the server is offered",
      },
      disabled_tools: {
        support: "none",
        why: "Claude Code's MCP entry has no tool filter; every tool of the server is offered",
      },
      default_approval: {
        support: "dropped",
        why: "Claude Code asks before a tool runs by its own permission settings",
      },
      tools: {
        support: "dropped",
        why: "Claude Code asks before a tool runs by its own permission settings",
      },
      opencode_enabled: { support: "dropped", why: "OpenCode's own switch" },
    },
    projectGate:
      "a project server starts once the user approves it (enableAllProjectMcpServers or enabledMcpjsonServers in settings)",
  },
  commands: {
    verified: {
      version: "2.1.332",
      date: "2026-12-06",
      how: "run headless against the fake model (user, project and CLAUDE_CONFIG_DIR folders; the body with its arguments reached the request) and the command loader read",
    },
    root: { user: ".claude/commands", project: ".claude/commands" },
    extension: ".md",
    format: { kind: "markdown" },
    fields: {
      description: { support: "native", name: "description" },
      "argument-hint": { support: "native", name: "argument-hint" },
    },
    // `$0` is the first argument, `$1` the second (run with three arguments); `\$` escapes. Run with
    // `alpha beta`: `$0a` stayed as written (`\$(\d+)(?!\w)` in the binary), `$ARGUMENTS[0]x` gave
    // `alphax`, `$ARGUMENTSx` gave `alpha betax`.
    arguments: {
      all: "$ARGUMENTS",
      allReadsOn: { pattern: "\\[\\d+\\]", does: "reads $ARGUMENTS[n] as one argument" },
      positional: { spelling: "${n}", base: 0, beforeWord: "$ARGUMENTS[{n}]" },
      reserved: {
        say: "`$` and a number (`$0`, `$10`)",
        pattern: "\\$\\d+",
        does: "replaces it with an argument",
        escape: "\\",
      },
      unplaced: "appended to the prompt as `ARGUMENTS: <args>`",
    },
    // Binary read: the command loader runs these before the prompt goes to the model.
    bodyNotes: [
      {
        pattern: "!`|(^|\\n)```!",
        note: "Claude Code runs !`…` (and a ```! block) in the prompt as a shell command and puts in its output",
      },
    ],
    invoke: "`/<name> <args>`",
    // Run: a skill and a command of one name, user or project scope either: `/name` ran the skill's
    // body and only the skill was listed (binary read: the skills loader reads commands/ last).
    skillNamesWin: "runs the skill of a command's name, never the command",
    notes: ["without a description, Claude Code shows the prompt's first line"],
  },
  subagents: {
    verified: {
      version: "2.1.332",
      date: "2026-12-06",
      how: "run headless against the fake model (user and project folders; the Agent tool ran the body as the system prompt with exactly the listed tools) and the agent loader read",
    },
    root: { user: ".claude/agents", project: ".claude/agents" },
    extension: ".md",
    format: { kind: "markdown" },
    // The name in the front matter is the subagent's type; a file without one is skipped.
    nameField: "name",
    fields: {
      description: { support: "native", name: "description" },
      tools: { support: "native", name: "tools" },
      model: { support: "native", name: "model" },
    },
    toolList: "comma",
    tools: {
      Bash: ["Bash"],
      Edit: ["Edit"],
      Write: ["Write"],
      MultiEdit: ["MultiEdit"],
      NotebookEdit: ["NotebookEdit"],
      Read: ["Read"],
      Glob: ["Glob"],
      Grep: ["Grep"],
      WebFetch: ["WebFetch"],
      WebSearch: ["WebSearch"],
      Agent: ["Agent"],
      Task: ["Agent"],
      TodoWrite: ["TodoWrite"],
      Skill: ["Skill"],
    },
    // Aliases (sonnet, opus, haiku) or a full model id, passed on as written.
    inherit: "inherit",
    invoke: "the `Agent` tool (`subagent_type: <name>`), when the description fits or the user asks",
  },
  import: {
    mcpFile: { label: "json", secretPath: "claude_json" },
    // The entry shape Codex's config.toml has too: the Go original read both files alike.
    mcpEntry: {
      fields: {
        type: { kind: "transport", values: "any" },
        command: { kind: "string", to: "command" },
        args: { kind: "strings", to: "args" },
        env: { kind: "env" },
        env_vars: { kind: "strings", to: "env_vars" },
        url: { kind: "string", to: "url" },
        headers: { kind: "headers", envRefs: true },
        http_headers: { kind: "headers", envRefs: true },
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
      omitImpliedType: true,
    },
    hookFile: { label: "settings", secretPath: "settings" },
  },
  hooks: {
    verified: VERIFIED,
    file: { user: ".claude/settings.json", project: ".claude/settings.json" },
    passThrough: true,
    events,
    // The 2.1.332 binary: in exec form, command and each arg get replaceAll("${CLAUDE_PROJECT_DIR}",
    // projectDir) (that spelling only: not $CLAUDE_PROJECT_DIR, not ${CLAUDE_PROJECT_DIR:-…}); shell
    // form is left alone, and the variable is in the hook's environment either way.
    execSubstitutes: ["${CLAUDE_PROJECT_DIR}"],
    handlers: {
      command: {
        fields: {
          ...common,
          command: { support: "native" },
          args: { support: "native", notes: "exec form: spawned directly, no shell" },
          shell: { support: "native" },
          async: { support: "native" },
          async_rewake: { support: "native", name: "asyncRewake" },
        },
        runs: "/bin/sh -c <command>, or exec form without a shell when args is set; cwd is the project",
      },
      http: {
        fields: {
          ...common,
          url: { support: "native" },
          headers: { support: "native" },
          allowed_env_vars: { support: "native", name: "allowedEnvVars" },
        },
        runs: "POST of the hook input JSON to url; the JSON reply decides",
      },
      mcp_tool: {
        fields: {
          ...common,
          server: { support: "native" },
          tool: { support: "native" },
          input: { support: "native" },
        },
        runs: "calls tool on the connected MCP server; input strings expand ${tool_input.…}",
      },
      prompt: {
        fields: {
          ...common,
          prompt: { support: "native" },
          model: { support: "native" },
          continue_on_block: { support: "native", name: "continueOnBlock" },
        },
        runs: "asks a model with prompt ($ARGUMENTS = the hook input JSON)",
      },
      agent: {
        fields: { ...common, prompt: { support: "native" }, model: { support: "native" } },
        runs: "runs a subagent with tools on prompt",
      },
    },
    matcher: {
      listSeparators: ["|", ","],
      trimsSpaces: true,
      regex: "javascript",
      notes:
        "empty or * matches all; names of [A-Za-z0-9_|, -] are an exact, case-sensitive list split on | or ,; anything else is an unanchored JavaScript regex",
    },
    timeouts: { unit: "s", defaultSec: 600 },
    tools: {
      Bash: ["Bash"],
      Edit: ["Edit"],
      Write: ["Write"],
      MultiEdit: ["MultiEdit"],
      NotebookEdit: ["NotebookEdit"],
      Read: ["Read"],
      Glob: ["Glob"],
      Grep: ["Grep"],
      WebFetch: ["WebFetch"],
      WebSearch: ["WebSearch"],
      Agent: ["Agent"],
      Task: ["Task"],
      TodoWrite: ["TodoWrite"],
      Skill: ["Skill"],
    },
    gates: [
      {
        id: "claude-workspace-trust",
        scopes: ["project"],
        description:
          "interactive Claude asks once to trust a project folder before its settings run (claude -p skips the dialog)",
      },
    ],
    // The 2.1.332 binary builds each command hook's environment from its own, then the session's
    // variables and CLAUDE_PROJECT_DIR; the conformance suite's hooks see them all.
    environment: {
      names: [
        "CLAUDE_PROJECT_DIR",
        "CLAUDECODE",
        "CLAUDE_CODE_SESSION_ID",
        "CLAUDE_CODE_CHILD_SESSION",
        "CLAUDE_CODE_SESSION_ATTENDED",
        "CLAUDE_PID",
      ],
      notes:
        "SessionStart, Setup, CwdChanged and FileChanged hooks also get CLAUDE_ENV_FILE, plugin hooks CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA",
      verified: {
        ...VERIFIED,
        date: "2026-12-06",
        how: "binary read (the command hook's env); the conformance suite's hook-env check (e2e against a fake model)",
      },
    },
    runtime: [
      "stdin: session_id, transcript_path, cwd, hook_event_name, plus tool_name/tool_input (tool events), prompt, source, …",
      "exit 0: stdout parsed as JSON (plain stdout is context for SessionStart and UserPromptSubmit); exit 2: block, stderr used; other: non-blocking error",
      "exec form (args): ${CLAUDE_PROJECT_DIR} (that spelling only) is replaced with the project directory as text in command and each arg; no ~ or other $VAR is expanded",
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
      carry: "runner",
    },
  },
};
