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
