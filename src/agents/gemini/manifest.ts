/**
 * Gemini CLI, verified against 0.61.0: its bundle read (hook events, runner, matcher planner, the
 * settings loader's variable expansion) and end-to-end runs against a fake model (2026-11-30).
 */
import type { AgentManifest, EventSupport } from "../../model/manifest.js";

const VERIFIED = {
  version: "0.61.0",
  date: "2026-11-30",
  how: "bundle read; e2e against a fake model; settings.json checked against its repository's schemas/settings.schema.json (at 5411f11, 2026-08-21), whose hook definitions the 0.61.0 bundle carries",
};
/** Events read in the bundle and docs but not fired in the end-to-end runs. */
const READ_ONLY = { version: "0.61.0", date: "2026-11-30", how: "bundle and docs read only (not run)" };

const observe = { can: false } as const;
const deny = (effect: string) => ({ can: true, how: ["exit2", "json"], effect }) as const;
/** Each event whose hookSpecificOutput takes additionalContext (20,000 characters arrived intact). */
const additional = { context: "additionalContext" } as const;

const events: Record<string, EventSupport> = {
  SessionStart: {
    native: "SessionStart",
    matcher: "source",
    values: ["startup", "resume", "clear"],
    exactValue: true,
    block: observe,
    context: { channel: "hookSpecificOutput.additionalContext (JSON on stdout)", limit: null },
    envelope: additional,
    observeOnly: true,
  },
  UserPromptSubmit: {
    native: "BeforeAgent",
    matcher: "none",
    block: deny("the prompt is dropped; the reason is shown"),
    context: {
      channel: "hookSpecificOutput.additionalContext (JSON on stdout; plain text is only shown)",
      limit: null,
    },
    envelope: additional,
  },
  PreToolUse: {
    native: "BeforeTool",
    matcher: "tool",
    block: deny(
      "the tool call is blocked; the reason (stdout, else stderr) reaches the model as a tool error",
    ),
    context: null,
  },
  PostToolUse: {
    native: "AfterTool",
    matcher: "tool",
    block: deny("the tool result the model sees is replaced by the reason"),
    context: { channel: "hookSpecificOutput.additionalContext (JSON on stdout)", limit: null },
    envelope: additional,
  },
  Stop: {
    native: "AfterAgent",
    matcher: "none",
    block: deny("the reason becomes a new prompt and the agent retries"),
    context: null,
  },
  PreCompact: {
    native: "PreCompress",
    matcher: "trigger",
    values: ["manual", "auto"],
    exactValue: true,
    block: observe,
    context: null,
    observeOnly: true,
    verified: READ_ONLY,
  },
  SessionEnd: {
    native: "SessionEnd",
    matcher: "reason",
    values: ["exit", "clear", "logout", "prompt_input_exit", "other"],
    exactValue: true,
    block: observe,
    context: null,
    observeOnly: true,
  },
  Notification: {
    native: "Notification",
    matcher: "none",
    block: observe,
    context: null,
    observeOnly: true,
    verified: READ_ONLY,
  },
};

/** Handler names kanon writes start with this: how kanon tells its hook groups from the user's. */
export const GEMINI_HOOK_PREFIX = "kanon:";

export const geminiManifest: AgentManifest = {
  id: "gemini",
  displayName: "Gemini CLI",
  defaultOn: false,
  home: {
    name: "GEMINI_CLI_HOME",
    replaces: "",
    notes: "the folder that holds .gemini/",
    verified: { version: "0.61.0", date: "2026-12-01", how: "bundle read (paths.ts homedir)" },
  },
  instructions: { user: ".gemini/GEMINI.md", project: "GEMINI.md" },
  skills: { root: { user: ".gemini/skills", project: ".gemini/skills" }, providerNaming: "slug" },
  mcp: {
    verified: {
      version: "0.61.0",
      date: "2026-12-02",
      how: "conformance suite MCP phase (stub servers, stdio and HTTP) against the pinned binary",
    },
    file: { user: ".gemini/settings.json", project: ".gemini/settings.json" },
    format: "json",
    key: "mcpServers",
    toolName: "mcp_{server}_{tool}",
    inheritsEnvironment: "not secret-like names",
    fields: {
      type: { support: "translated", how: "type http or sse with the url; none for a command" },
      command: { support: "native" },
      args: { support: "native" },
      env: { support: "native" },
      env_vars: {
        support: "translated",
        how: "as env entries NAME: ${NAME}, which Gemini CLI expands (it does not pass on secret-like names: TOKEN, KEY, SECRET, …)",
      },
      url: { support: "native" },
      headers: { support: "native" },
      env_headers: { support: "translated", how: 'as headers "${VAR}", which Gemini CLI expands' },
      bearer_token_env_var: { support: "translated", how: "as the header Authorization: Bearer ${VAR}" },
      startup_timeout_sec: { support: "dropped", why: "Gemini CLI has no startup timeout per server" },
      tool_timeout_sec: { support: "translated", how: "timeout, in milliseconds" },
      enabled_tools: { support: "native", name: "includeTools" },
      disabled_tools: { support: "native", name: "excludeTools" },
      default_approval: {
        support: "dropped",
        why: "Gemini CLI asks before a tool runs by its approval mode",
      },
      tools: { support: "dropped", why: "Gemini CLI asks before a tool runs by its approval mode" },
      opencode_enabled: { support: "dropped", why: "OpenCode's own switch" },
    },
    projectGate: "project settings (and their servers) load only in a trusted folder",
  },
  // settings.json is also the hook file: its MCP reader reports the other keys and scans secrets.
  commands: {
    verified: {
      version: "0.61.0",
      date: "2026-12-06",
      how: "run headless against the fake model (user and trusted project folders; the prompt with {{args}} reached the request) and FileCommandLoader read",
    },
    root: { user: ".gemini/commands", project: ".gemini/commands" },
    extension: ".toml",
    format: { kind: "toml", prompt: "prompt" },
    // Each other character becomes `_` in the command's name, and it is cut at 50.
    names: { pattern: "^[A-Za-z0-9_.-]{1,50}$", say: "names of up to 50 letters, digits, _, - and ." },
    fields: {
      description: { support: "native", name: "description" },
      "argument-hint": { support: "dropped", why: "Gemini CLI shows no argument hint" },
    },
    arguments: {
      all: "{{args}}",
      positional: null,
      reserved: { pattern: "\\{\\{args\\}\\}", does: "replaces it with the arguments" },
      unplaced: "appended to the prompt after a blank line, with the whole command line as typed",
    },
    bodyNotes: [
      {
        pattern: "!\\{",
        note: "Gemini CLI runs !{…} in the prompt as a shell command and puts in its output",
      },
      { pattern: "@\\{", note: "Gemini CLI puts the file named in @{…} into the prompt" },
    ],
    gates: [
      {
        id: "gemini-trusted-folder",
        scopes: ["project"],
        description: "Gemini CLI reads a project's commands only in a trusted folder",
      },
    ],
    invoke: "`/<name> <args>`",
  },
  subagents: {
    verified: {
      version: "0.61.0",
      date: "2026-12-06",
      how: "run headless against the fake model (user and acknowledged project folders; invoke_agent ran the body as the system instruction with exactly the listed tools) and agentLoader read",
    },
    root: { user: ".gemini/agents", project: ".gemini/agents" },
    extension: ".md",
    // Its schema is strict: an unknown key rejects the subagent, so only these are written.
    format: { kind: "markdown" },
    nameField: "name",
    names: { pattern: "^[a-z0-9_-]+$", say: "lower-case names of a-z, 0-9, - and _" },
    fields: {
      description: { support: "native", name: "description" },
      tools: { support: "native", name: "tools" },
      model: { support: "native", name: "model" },
    },
    // An unknown tool name rejects the subagent: only the names its run offered.
    toolList: "list",
    tools: {
      Bash: ["run_shell_command"],
      Edit: ["replace"],
      MultiEdit: ["replace"],
      Write: ["write_file"],
      Read: ["read_file"],
      Glob: ["glob"],
      Grep: ["grep_search"],
      WebFetch: ["web_fetch"],
      WebSearch: ["google_web_search"],
      TodoWrite: ["write_todos"],
    },
    models: {
      pattern: "^(?!(sonnet|opus|haiku)$)[^/\\s]+$",
      say: "Gemini model names (gemini-2.5-flash, …), not Claude Code's aliases or provider/model names",
    },
    inherit: "inherit",
    gates: [
      {
        id: "gemini-agent-acknowledgement",
        scopes: ["project"],
        description:
          "Gemini CLI uses a project's subagent only in a trusted folder and once the user acknowledges it (again after each change)",
      },
    ],
    invoke: "the `invoke_agent` tool (`agent_name: <name>`); the subagent answers with `complete_task`",
  },
  import: {
    mcpFile: { label: "settings", secretPath: "settings" },
    mcpEntry: {
      fields: {
        command: { kind: "string", to: "command" },
        args: { kind: "strings", to: "args" },
        env: { kind: "env" },
        url: { kind: "string", to: "url" },
        // http is what kanon writes for every url; only sse needs saying.
        type: { kind: "transport", values: { http: null, sse: "sse" } },
        headers: { kind: "headers", envRefs: true, bearer: "Authorization" },
        // The MCP request timeout.
        timeout: { kind: "milliseconds", to: "tool_timeout_sec", round: "exact" },
        includeTools: { kind: "strings", to: "enabled_tools" },
        excludeTools: { kind: "strings", to: "disabled_tools" },
      },
    },
  },
  hooks: {
    verified: VERIFIED,
    file: { user: ".gemini/settings.json", project: ".gemini/settings.json" },
    passThrough: false,
    events,
    // Only command handlers: the settings schema's `type` is "command" alone (the loader also takes
    // "runtime" and "plugin", which are programmatic). A handler has no async, if or shell.
    handlers: {
      command: {
        fields: {
          command: { support: "native" },
          args: { support: "translated", how: "posix-command-line" },
          timeout: { support: "native" },
          status_message: { support: "dropped", why: "Gemini CLI shows no hook status" },
        },
        runs: "bash -c <command>, cwd = the session cwd; $GEMINI_PROJECT_DIR and $CLAUDE_PROJECT_DIR are also substituted, shell-quoted",
      },
    },
    matcher: {
      listSeparators: [],
      trimsSpaces: false,
      regex: "javascript",
      notes:
        "tool events: an unanchored JavaScript regex (kanon anchors exact names: ^(?:run_shell_command)$); SessionStart, SessionEnd and PreCompress: the one value, compared exactly; other events ignore the matcher",
    },
    timeouts: { unit: "ms", defaultSec: 60 },
    tools: {
      Bash: ["run_shell_command"],
      Edit: ["replace"],
      Write: ["write_file"],
      MultiEdit: ["replace"],
      Read: ["read_file"],
      Glob: ["glob"],
      Grep: ["grep_search"],
      WebFetch: ["web_fetch"],
      WebSearch: ["google_web_search"],
      TodoWrite: ["write_todos"],
      Skill: ["activate_skill"],
    },
    gates: [
      {
        id: "gemini-folder-trust",
        scopes: ["user", "project"],
        description:
          "Gemini CLI loads settings.json hooks (user ones too) only in a trusted folder: trustedFolders.json or GEMINI_CLI_TRUST_WORKSPACE=true; headless runs in an untrusted folder exit 55",
      },
    ],
    expandsVariables: true,
    runtime: [
      "stdin: session_id, transcript_path, cwd, hook_event_name, timestamp, plus tool_name/tool_input (tool events), prompt, source, reason, …",
      "stdout must be empty or one JSON object; exit 2 with text blocks (stdout, else stderr, is the reason); exit 1 warns",
      "env: GEMINI_PROJECT_DIR, GEMINI_CWD, GEMINI_SESSION_ID, CLAUDE_PROJECT_DIR and the parent environment",
      "settings strings are expanded ($VAR, ${VAR:-default}) when the file loads: kanon protects every $ of a hook command",
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
      // gemini -p puts SessionStart's context before the prompt, and BeforeAgent sees it there.
      promptPrefix: "^<hook_context>[\\s\\S]*?</hook_context>\\n\\n",
      carry: "runner",
    },
  },
};
