/** What the agents' manifests say, in the words kanon's messages use: so that a test's text follows a pinned version. */
import { AGENTS } from "../../src/agents/index.js";

/**
 * Why a hook that uses $CLAUDE_PROJECT_DIR is left out for `agent`, which does not set it: the agent
 * and the version its hook variables were checked against, from its manifest (hooks.environment).
 */
export function projectDirUnset(agent: string): string {
  const m = AGENTS.find((a) => a.manifest.id === agent)?.manifest;
  if (!m) throw new Error(`no agent ${agent}`);
  return `${m.displayName} ${m.hooks.environment.verified.version} does not set it for the hooks it runs; write \${CLAUDE_PROJECT_DIR:-…} if the hook can do without it, or leave ${agent} out of its targets`;
}
