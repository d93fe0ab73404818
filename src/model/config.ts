/**
 * The kanon.yaml document as loaded (after defaults, before env expansion). Field names are the YAML
 * keys, so existing homes written for the Go original load unchanged.
 */

export interface KanonConfig {
  version: number;
  /** The agents this home renders for; absent: the agents on by default. */
  agents?: string[];
  instructions: { files: InstructionFile[] };
  skills: SkillEntry[];
  mcp: { servers: Record<string, McpServer> };
  hooks: HookEntry[];
  /** Entries that target, disable or rename the slash commands of the home's `commands/` folder. */
  commands?: ItemEntry[];
  /**
   * Entries for the subagents of the home's `agents/` folder (the key `agents:` is the list of agents
   * the home renders for, so this section is `subagents:`).
   */
  subagents?: ItemEntry[];
  /** The envelope of every command hook that does not say its own: `native` (the default) or `neutral`. */
  hooks_envelope?: HookEnvelope;
  /** kanon's own hooks for cross-agent continuity (waypoint re-anchor, position, pause). */
  continuity?: ContinuitySettings;
  /** The stage order of `kanon stage` (default assess, plan, execute, reflect). */
  stages?: StageEntry[];
  stage_hooks?: StageHook[];
  metadata: Record<string, string>;
}

export interface ContinuitySettings {
  reanchor?: boolean;
  position_on_prompt?: boolean;
  /** The re-anchor block's bound in characters (default 4,800). */
  max_chars?: number;
}

/** A stage: its name, or `{name, optional: true}`. */
export type StageEntry = string | { name?: string; optional?: boolean };

/** A command run by `kanon stage start|done` and `kanon task start|done`. */
export interface StageHook {
  name?: string;
  /** `<stage|task|change|*>:<before|after|*>` */
  on?: string;
  command?: string;
  /** Seconds (default 15). */
  timeout?: number;
  on_failure?: "warn" | "error" | "ignore";
  enabled?: boolean;
}

/**
 * `native`: the hook gets the agent's own stdin and its output goes where the agent puts it (as
 * kanon always did). `neutral`: kanon's hook runner gives it one envelope in every agent and
 * delivers its output as context (src/runner/).
 */
export type HookEnvelope = "native" | "neutral";

/** An instruction file: a path (every agent), or a path with the agents whose text it is. */
export type InstructionFile = string | { path?: string; targets?: string[] };

export function instructionPath(f: InstructionFile): string {
  return typeof f === "string" ? f : (f.path ?? "");
}

export function instructionTargets(f: InstructionFile): string[] | undefined {
  return typeof f === "string" ? undefined : f.targets;
}

export interface GitSource {
  url: string;
  ref: string;
  subdir?: string;
}

export interface SkillEntry {
  name?: string;
  path?: string;
  git?: GitSource;
  include?: string[];
  exclude?: string[];
  targets?: string[];
  enabled?: boolean;
}

/**
 * A `commands:` or `subagents:` entry, shaped like a local skill's: `name` adjusts the file of that
 * name (`commands/<name>.md`); with `path`, the item is read from that file and renders as `name`
 * (a file of the folder named so renders under the entry's name only).
 */
export interface ItemEntry {
  name?: string;
  path?: string;
  /** Replace the file's own `targets` (front matter). */
  targets?: string[];
  enabled?: boolean;
}

export interface McpTool {
  description?: string;
  approval?: string;
  approval_prompt?: string;
}

export interface McpServer {
  type?: string;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  env_vars?: string[];
  url?: string;
  headers?: Record<string, string>;
  env_headers?: Record<string, string>;
  bearer_token_env_var?: string;
  startup_timeout_sec?: number;
  tool_timeout_sec?: number;
  enabled_tools?: string[];
  disabled_tools?: string[];
  default_approval?: string;
  tools?: Record<string, McpTool>;
  opencode_enabled?: boolean;
  targets?: string[];
  enabled?: boolean;
  /** Resolve, at apply, the references an agent cannot expand (core/mcp.ts). */
  resolve_env?: boolean;
  /**
   * Per agent: the fields that differ for that agent (each replaces the server's field of that name),
   * and `unset`, fields the agent does not get. One server, its one name in every agent's file.
   */
  overrides?: Record<string, McpOverride>;
}

/**
 * A server's env with each `env_vars` name forwarded as `NAME: ${NAME}` (an entry of that name in env
 * wins): for agents that expand references in env but do not pass every variable on (Gemini CLI
 * redacts secret-like names from the environment a server inherits).
 */
export function withForwarded(s: McpServer): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of s.env_vars ?? []) env[name] = `\${${name}}`;
  return { ...env, ...s.env };
}

/** Fields that stay the server's in every agent: which agents get it, whether at all, and how. */
type ServerWide = "targets" | "enabled" | "resolve_env" | "overrides";

/** The server fields one agent gets differently. */
export type McpOverride = Omit<McpServer, ServerWide> & {
  unset?: McpOverridable[];
};

/** The fields an override may set or unset. */
export type McpOverridable = keyof Omit<McpServer, ServerWide>;

export interface HookEntry {
  name: string;
  /** Neutral (Claude-named) event; empty means `name` is the event, as in the Go original. */
  event?: string;
  matcher?: string;
  type?: string;
  command?: string;
  args?: string[];
  /** Seconds. */
  timeout?: number;
  async?: boolean;
  async_rewake?: boolean;
  shell?: string;
  /** Claude's permission-rule filter, e.g. `Bash(git *)`. */
  if?: string;
  status_message?: string;
  url?: string;
  headers?: Record<string, string>;
  allowed_env_vars?: string[];
  server?: string;
  tool?: string;
  input?: Record<string, unknown>;
  prompt?: string;
  model?: string;
  continue_on_block?: boolean;
  /** command: `neutral` runs it through kanon's hook runner (absent: kanon.yaml's hooks_envelope). */
  envelope?: HookEnvelope;
  /** Neutral envelope: exit 2 or `decision: block` blocks where the event can block (else it never does). */
  blocking?: boolean;
  /** Neutral envelope: the most characters of context delivered (default 4,800). */
  max_output_chars?: number;
  /**
   * Not a kanon.yaml field: one of kanon's own handlers inside the runner, run instead of a command
   * (`carry`: the context kept for the next prompt). Built-in hooks are named `kanon/<handler>`.
   */
  builtin?: string;
  targets?: string[];
  enabled?: boolean;
}
