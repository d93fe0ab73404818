/**
 * Variables the agents set for the hooks they run (`CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR`, …)
 * and kanon's runner sets for neutral hooks (`KANON_AGENT`, …). A hook's command that uses one means
 * something only in the agents that set it: elsewhere the shell expands it to nothing. The support
 * check leaves such a hook out for the agents that do not set it (an error for an explicit target).
 */
import type { HookEntry } from "../../model/config.js";
import type { AgentManifest } from "../../model/manifest.js";
import { RUNNER_ENVIRONMENT } from "./envelope.js";

/** Every variable some agent sets for every hook it runs, and those kanon's runner sets. */
export function hookVariables(manifests: readonly AgentManifest[]): ReadonlySet<string> {
  return new Set([...manifests.flatMap((m) => m.hooks.environment.names), ...RUNNER_ENVIRONMENT]);
}

/**
 * The names whose value a shell takes from `text`: `$NAME`, `${NAME}` and `${NAME<op>…}` with an op
 * that reads the value (`#`, `%`, `/`, `:offset`), outside single quotes and not escaped. A reference
 * that tests for an unset variable (`${NAME:-…}`, `${NAME-…}`, `${NAME:+…}`, `${NAME:=…}`,
 * `${NAME:?…}`) is not one: it says what happens without it.
 */
export function shellVariableUses(text: string): string[] {
  const names = new Set<string>();
  // Linear in the command: a `${NAME…}` counts once a `}` closes it, which the last `}` tells
  // without a scan from each `$` (quadratic in a command of many unclosed `${`).
  const lastBrace = text.lastIndexOf("}");
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (quote === "'") {
      if (ch === "'") quote = null;
    } else if (ch === "\\") i++;
    else if (ch === "'" && quote === null) quote = "'";
    else if (ch === '"') quote = quote === '"' ? null : '"';
    else if (ch === "$") {
      VARIABLE.lastIndex = i;
      const m = VARIABLE.exec(text);
      const after = VARIABLE.lastIndex;
      const braced =
        m?.[2] !== undefined && lastBrace >= after && !/^:?[-+=?]/.test(text.slice(after, after + 2));
      const name = m?.[1] ?? (braced ? m?.[2] : undefined);
      if (name !== undefined) names.add(name);
    }
  }
  return [...names];
}

/** `$NAME`, or the start of `${NAME…}`, at `lastIndex`. */
const VARIABLE = /\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*))/y;

/**
 * The variables of `known` that a command hook's command and args use and this agent does not set
 * for it: its own, plus the runner's for a neutral hook. The args are read as the shell would too: a
 * hook with args runs without a shell, but one whose program is a shell (`sh -c '…'`) expands them.
 */
export function unsetVariables(
  hook: HookEntry,
  agent: AgentManifest,
  neutral: boolean,
  known: ReadonlySet<string>,
): string[] {
  if (hook.builtin !== undefined || (hook.type || "command") !== "command") return [];
  const set = new Set([...agent.hooks.environment.names, ...(neutral ? RUNNER_ENVIRONMENT : [])]);
  const used = [hook.command ?? "", ...(hook.args ?? [])].flatMap(shellVariableUses);
  return [...new Set(used)].filter((name) => known.has(name) && !set.has(name));
}

/** Why the agent cannot run a hook that uses `names`, and what to write instead. */
export function unsetVariablesMissing(
  names: readonly string[],
  agent: AgentManifest,
): { capability: string; detail: string } {
  const list = names.map((n) => `$${n}`).join(", ");
  const runner = names.filter((n) => RUNNER_ENVIRONMENT.includes(n));
  const own = names.filter((n) => !RUNNER_ENVIRONMENT.includes(n));
  const why: string[] = [];
  if (own.length > 0)
    why.push(
      `${agent.displayName} ${agent.hooks.environment.verified.version} does not set ${own.length > 1 ? "them" : "it"} for the hooks it runs; write ${own.map((n) => `\${${n}:-…}`).join(", ")} if the hook can do without ${own.length > 1 ? "them" : "it"}, or leave ${agent.id} out of its targets`,
    );
  if (runner.length > 0)
    why.push(
      `kanon's hook runner sets ${runner.map((n) => `$${n}`).join(", ")} for hooks with envelope: neutral only`,
    );
  return { capability: `${names.length > 1 ? "variables" : "variable"} ${list}`, detail: why.join("; ") };
}
