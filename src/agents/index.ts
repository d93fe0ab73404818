/** The agent registry: render order is this order (codex, claude, opencode, as in the Go original). */
import type { Agent } from "../model/manifest.js";
import { KanonError } from "../model/types.js";
import { claude } from "./claude/index.js";
import { codex } from "./codex/index.js";
import { opencode } from "./opencode/index.js";

export const AGENTS: readonly Agent[] = [codex, claude, opencode];

export const AGENT_IDS: readonly string[] = AGENTS.map((a) => a.manifest.id);

/** `--agent`: all (every agent) or one agent id. */
export function selectAgents(flag: string): Agent[] {
  if (flag === "" || flag === "all") return [...AGENTS];
  const agent = AGENTS.find((a) => a.manifest.id === flag);
  if (!agent)
    throw new KanonError(`unsupported agent "${flag}" (known agents: all, ${AGENT_IDS.join(", ")})`);
  return [agent];
}
