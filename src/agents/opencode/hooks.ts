/**
 * OpenCode's hook row. OpenCode has no command hooks of its own: kanon writes one plugin file
 * (plugin.ts renders it, plugin-runtime.js is its code) that OpenCode 1 loads through `server` and
 * OpenCode 2 through `setup`, and that runs the hooks below with the same stdin and exit-code contract
 * as the other agents.
 *
 * Sources. OpenCode 1: opencode-ai 1.18.33 run end to end against a fake model (hooks fired, exit 2
 * blocked the shell tool, dispose waited for Stop) and its embedded bundle read (event names, the
 * compaction part, the abort error). OpenCode 2 (@opencode/cli 2.0.x–2.1.x): read from the source of
 * anomalyco/opencode (packages/plugin/src/promise/{adapter,tool,session,event}.ts,
 * packages/schema/src/session-event.ts) and its V2 docs; checked against a mock host only, never run.
 */
import type { EventSupport, HookCapabilities } from "../../model/manifest.js";

const observe = { can: false } as const;

/** Every event's OpenCode 2 binding was read, not run (the docs footnote it per event). */
const OPENCODE_2 = {
  version: "2.0.x–2.1.x",
  date: "2026-11-30",
  how: "the OpenCode 2 binding only: read from the source and the V2 docs, checked against a mock host, never run",
};

/** Both bindings of one neutral event, for the docs: "OpenCode 1: …; OpenCode 2: …". */
const both = (v1: string, v2: string) => `OpenCode 1: ${v1}; OpenCode 2: ${v2}`;

const events: Record<string, EventSupport> = {
  SessionStart: {
    native: both("event session.created", "ctx.event.subscribe() session.created"),
    matcher: "source",
    values: ["startup", "resume"],
    block: observe,
    context: null,
    observeOnly: true,
    notes:
      "startup for a new session; resume when the first prompt arrives in a session this OpenCode process did not see created (opencode run --continue, a session reopened in the TUI). Not fired for subagent sessions.",
  },
  UserPromptSubmit: {
    native: both("chat.message", 'ctx.session.hook("prompt")'),
    matcher: "none",
    block: observe,
    context: null,
    observeOnly: true,
    notes:
      "awaited before the prompt reaches the model; exit 2 is logged, not enforced (OpenCode 1 turns a thrown prompt hook into an opaque server error, OpenCode 2 has no prompt rejection API)",
  },
  PreToolUse: {
    native: both("tool.execute.before", 'ctx.tool.hook("execute.before")'),
    matcher: "tool",
    block: {
      can: true,
      how: ["exit2"],
      effect:
        "the tool call fails with the hook's stderr as its result, which the model sees; sibling calls in the same batch still run",
    },
    context: null,
    notes:
      "fires for subagent and MCP tool calls too, and on OpenCode 2 for Code Mode's execute and each tool it runs",
  },
  PostToolUse: {
    native: both("tool.execute.after", 'ctx.tool.hook("execute.after") with status "completed"'),
    matcher: "tool",
    block: observe,
    context: null,
    observeOnly: true,
    notes:
      "after a successful call only (OpenCode 1 has no hook for failed calls); awaited, so it delays the turn",
  },
  Stop: {
    native: both(
      "event session.idle",
      "ctx.event.subscribe() session.execution.succeeded, session.idle or session.status idle (once per turn)",
    ),
    matcher: "none",
    block: observe,
    context: null,
    observeOnly: true,
    notes:
      "not after an interrupted or failed turn, nor for subagent sessions; OpenCode waits for a running Stop hook before it exits (opencode run returns after it)",
  },
  PostCompact: {
    native: both("event session.compacted", "ctx.event.subscribe() session.compaction.ended"),
    matcher: "trigger",
    values: ["manual", "auto"],
    block: observe,
    context: null,
    observeOnly: true,
    notes:
      "OpenCode 1's trigger comes from the compaction part of the session, OpenCode 2's from the event's reason",
  },
  Interrupt: {
    native: both(
      "event session.error with MessageAbortedError",
      'ctx.event.subscribe() session.execution.interrupted with reason "user"',
    ),
    matcher: "none",
    block: observe,
    context: null,
    observeOnly: true,
    notes: "the user aborted the turn; read from OpenCode's source on both versions, not triggered in a run",
  },
};

for (const support of Object.values(events)) support.verified = OPENCODE_2;
// A neutral hook's context goes into the system prompt of the session's next requests (OpenCode 1:
// experimental.chat.system.transform; OpenCode 2: ctx.session.hook("context")). Stop and Interrupt
// come after the turn: the plugin keeps theirs for the next prompt.
for (const name of ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostCompact"])
  events[name]!.envelope = { context: "plugin" };

export const opencodeHooks: HookCapabilities = {
  verified: {
    version: "1.18.33",
    date: "2026-11-30",
    how: "OpenCode 1.18.33 run end to end against a fake model and its bundle read; OpenCode 2 (2.0.x–2.1.x) from source and docs only, with a mock host",
  },
  file: { user: ".config/opencode/plugins/kanon-hooks.js", project: ".opencode/plugins/kanon-hooks.js" },
  passThrough: false,
  events,
  handlers: {
    command: {
      fields: {
        command: { support: "native", notes: "run with /bin/sh -c" },
        args: {
          support: "native",
          notes: "exec form: command is spawned with args as its argument vector, no shell",
        },
        timeout: {
          support: "native",
          notes: "seconds; the hook's process group gets SIGTERM, then SIGKILL 2 s later",
        },
        async: {
          support: "native",
          notes: "started and not awaited: it cannot block, and OpenCode may exit first",
        },
        status_message: { support: "dropped", why: "OpenCode shows no hook status" },
      },
      runs: "by the kanon-hooks plugin inside OpenCode: /bin/sh -c <command>, or <command> <args…> with no shell; cwd = the project directory OpenCode runs in",
    },
  },
  matcher: {
    listSeparators: ["|", ","],
    trimsSpaces: true,
    regex: null,
    notes:
      "evaluated by the plugin at run time: a list of names is compared exactly with OpenCode's tool ID (neutral tool names are translated to both versions' IDs); a regex is tested unanchored against the tool ID and against each neutral name that maps to it",
  },
  timeouts: { unit: "s", defaultSec: 600 },
  // Neutral tool → OpenCode tool IDs on both versions (1.18.33: tool list sent to the model, plus the
  // conditional apply_patch/websearch; 2.x: the tools docs and core built-ins).
  tools: {
    Bash: ["bash", "shell"],
    Edit: ["edit", "apply_patch", "patch"],
    Write: ["write", "apply_patch", "patch"],
    Read: ["read"],
    Glob: ["glob"],
    Grep: ["grep"],
    WebFetch: ["webfetch"],
    WebSearch: ["websearch"],
    Task: ["task", "subagent"],
    Agent: ["task", "subagent"],
    TodoWrite: ["todowrite"],
    Skill: ["skill"],
  },
  gates: [],
  runtime: [
    "one generated plugin, plugins/kanon-hooks.js, loaded by directory discovery on OpenCode 1 (server) and OpenCode 2 (setup); kanon never lists it in opencode.json",
    "stdin: one JSON object with hook_event_name, session_id and cwd; tool events add tool_name (OpenCode's own tool ID, as is: the shell tool is bash on OpenCode 1 and shell on OpenCode 2), tool_input (OpenCode's arguments, as is) and tool_use_id; PostToolUse adds tool_response, UserPromptSubmit prompt, SessionStart source, PostCompact trigger",
    "exit 2 on PreToolUse blocks that tool call with the hook's stderr as the message; every other failure (other exit codes, a timeout, a command that cannot start) is logged to OpenCode's stderr with a [kanon-hooks] prefix and blocks nothing",
    "commands run with /bin/sh -c, or directly with no shell when args is set; timeout is in seconds and kills the hook's process group (SIGTERM, then SIGKILL after 2 s); async: true starts the hook and does not wait for it; Stop hooks are awaited before `opencode run` exits",
    "UserPromptSubmit, PostToolUse, Stop, SessionStart, PostCompact and Interrupt are observe-only on OpenCode",
    "a native hook's stdout reaches nothing (the plugin does not read it); a neutral hook's context goes into the system prompt of its session's requests: SessionStart's and PostCompact's for the rest of the session, the prompt and tool hooks' for that turn, Stop's and Interrupt's from the next prompt on",
    "hooks inherit OpenCode's environment; OpenCode 2 runs plugins in a shared background service unless started with --standalone, so give commands absolute paths",
  ],
  envelope: {
    fields: {
      session_id: "session_id",
      cwd: "cwd",
      prompt: "prompt",
      tool_name: "tool_name",
      tool_input: "tool_input",
      tool_output: "tool_response",
      source: "source",
      trigger: "trigger",
    },
    carry: "plugin",
  },
};
