/** The agent registry: render order is this order (codex, claude, opencode as in the Go original, then the newer ones). */
import type { Agent } from "../model/manifest.js";
import { KanonError } from "../model/types.js";
import { claude } from "./claude/index.js";
import { codex } from "./codex/index.js";
import { gemini } from "./gemini/index.js";
import { kimi } from "./kimi/index.js";
import { opencode } from "./opencode/index.js";

export const AGENTS: readonly Agent[] = [codex, claude, opencode, gemini, kimi];

export const AGENT_IDS: readonly string[] = AGENTS.map((a) => a.manifest.id);

/** The agents a home renders for: its `agents:` list, else every agent that is on by default. */
function homeAgents(listed: readonly string[] | undefined): Agent[] {
  if (!listed || listed.length === 0) return AGENTS.filter((a) => a.manifest.defaultOn);
  return AGENTS.filter((a) => listed.includes(a.manifest.id));
}

/**
 * `--agent`: all (the home's agents) or one agent id, which may be outside the home's `agents:`
 * list (an explicit request).
 */
export function selectAgents(flag: string, listed?: readonly string[]): Agent[] {
  if (flag === "" || flag === "all") return homeAgents(listed);
  const agent = AGENTS.find((a) => a.manifest.id === flag);
  if (!agent)
    throw new KanonError(`unsupported agent "${flag}" (known agents: all, ${AGENT_IDS.join(", ")})`);
  return [agent];
}
