/**
 * The neutral hook vocabulary. It is Claude Code's (event names, matcher, handler fields), so homes
 * written for the Go original keep working; each agent's manifest maps it to what that agent runs.
 * This file holds only the neutral side: no agent knowledge.
 */

import type { MatcherKind } from "../../model/manifest.js";

export interface NeutralEvent {
  name: string;
  /** One line for the docs. */
  purpose: string;
  matcher: MatcherKind;
  /** Known values for value matchers (session sources, compaction triggers). */
  values?: string[];
}

/** Cross-agent events, in the order the docs list them. */
export const NEUTRAL_EVENTS: NeutralEvent[] = [
  {
    name: "SessionStart",
    purpose: "a session starts, resumes, is cleared, or restarts after compaction (matcher: source)",
    matcher: "source",
    values: ["startup", "resume", "clear", "compact"],
  },
  {
    name: "UserPromptSubmit",
    purpose: "the user submits a prompt, before the model sees it",
    matcher: "none",
  },
  { name: "PreToolUse", purpose: "before a tool call; can block it (matcher: tool name)", matcher: "tool" },
  { name: "PostToolUse", purpose: "after a tool call succeeded (matcher: tool name)", matcher: "tool" },
  { name: "Stop", purpose: "the agent finished its turn", matcher: "none" },
  { name: "Interrupt", purpose: "the user interrupted the turn (distinct from Stop)", matcher: "none" },
  {
    name: "PreCompact",
    purpose: "before the context is compacted (matcher: manual or auto)",
    matcher: "trigger",
    values: ["manual", "auto"],
  },
  {
    name: "PostCompact",
    purpose: "after compaction: re-anchor the new context (matcher: manual or auto)",
    matcher: "trigger",
    values: ["manual", "auto"],
  },
  { name: "SessionEnd", purpose: "the session ends (matcher: reason)", matcher: "reason" },
  {
    name: "Notification",
    purpose: "the agent notifies the user, e.g. waiting for input (matcher: type)",
    matcher: "notification",
  },
];

/**
 * Neutral tool names (Claude Code's), as a matcher names them. Names outside this list (e.g. MCP
 * tools `mcp__server__tool`) are passed to every agent unchanged.
 */
export const NEUTRAL_TOOLS = [
  "Bash",
  "Edit",
  "Write",
  "MultiEdit",
  "NotebookEdit",
  "Read",
  "Glob",
  "Grep",
  "WebFetch",
  "WebSearch",
  "Agent",
  "Task",
  "TodoWrite",
  "Skill",
] as const;

export function neutralEvent(name: string): NeutralEvent | undefined {
  return NEUTRAL_EVENTS.find((e) => e.name === name);
}

/** A neutral handler type: the kanon.yaml fields it requires and the ones it may carry. */
export interface NeutralHandler {
  type: string;
  /** One line for the docs. */
  purpose: string;
  required: readonly string[];
  optional: readonly string[];
}

/**
 * Claude Code's five handler types, with its fields in kanon's snake_case spelling (each agent's
 * manifest maps them to its own). A field outside a type's two lists is an error in kanon.yaml.
 */
export const NEUTRAL_HANDLERS: readonly NeutralHandler[] = [
  {
    type: "command",
    purpose: "runs a shell command (or an executable with args)",
    required: ["command"],
    optional: ["args", "shell", "timeout", "async", "async_rewake", "if", "status_message"],
  },
  {
    type: "http",
    purpose: "POSTs the hook input JSON to url",
    required: ["url"],
    optional: ["headers", "allowed_env_vars", "timeout", "if", "status_message"],
  },
  {
    type: "mcp_tool",
    purpose: "calls a tool of a connected MCP server",
    required: ["server", "tool"],
    optional: ["input", "timeout", "if", "status_message"],
  },
  {
    type: "prompt",
    purpose: "asks a model to decide",
    required: ["prompt"],
    optional: ["model", "timeout", "continue_on_block", "if", "status_message"],
  },
  {
    type: "agent",
    purpose: "runs a subagent that can use tools to decide",
    required: ["prompt"],
    optional: ["model", "timeout", "if", "status_message"],
  },
];

/** Every kanon.yaml handler field (the union of the types' fields), in the order they are checked. */
export const HANDLER_FIELDS: readonly string[] = [
  ...new Set(NEUTRAL_HANDLERS.flatMap((h) => [...h.required, ...h.optional])),
];

export function neutralHandler(type: string): NeutralHandler | undefined {
  return NEUTRAL_HANDLERS.find((h) => h.type === type);
}
