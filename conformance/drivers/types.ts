// The driver interface: everything the suite needs to know about one agent CLI.
// Adding an agent (Kimi Code, Gemini CLI, …) means writing one module that exports an `AgentDriver` and
// listing it in drivers/index.ts. The runner, the fake model, the checks and the summary are shared.

import type { AgentManifest } from "../../src/model/manifest.js";
import type { ScriptedCall } from "../fake-model/protocols.js";
import type { RunResult } from "../lib/proc.js";

export type Scope = "user" | "project";

/** The neutral hook events the suite observes, in the order they must fire. */
export const LIFECYCLE = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"] as const;
export type LifecycleEvent = (typeof LIFECYCLE)[number];

/** Per agent-and-scope directories. Everything lives under `root`, a fresh temporary folder. */
export interface Layout {
  root: string;
  /** The agent's HOME; the XDG folders are inside it. */
  home: string;
  xdgConfig: string;
  xdgData: string;
  xdgCache: string;
  xdgState: string;
  /** The agent's working directory: a fresh git repository. Project-scope files are rendered here. */
  project: string;
  /** TMPDIR for the agent. */
  tmp: string;
  /** The copy of conformance/home that kanon renders. */
  kanonHome: string;
  /** kanonHome/hooks, exported to hooks as KANON_CONFORMANCE_HOOKS. */
  hooksDir: string;
}

export interface Installed {
  version: string;
  /** argv prefix that starts the agent (binary, or node + launcher). */
  argv: string[];
  /** Where the package was installed. */
  dir: string;
  /** True when the install came from the cache. */
  cached: boolean;
  seconds: number;
}

export interface InstallContext {
  /** Root of the agent cache; each driver installs into `<cacheRoot>/<id>@<version>`. */
  cacheRoot: string;
  log(line: string): void;
}

export interface AgentInvocation {
  argv: string[];
  /** Agent-specific environment, added to the isolation environment. */
  env: Record<string, string>;
  /** Text for stdin (else /dev/null). */
  stdin?: string;
}

/**
 * A check on one field of a hook's stdin payload, addressed by a dot path.
 * "string" = a non-empty string; "present" = the key exists (null allowed); "project" = a path equal to
 * the project directory; { equals } = deep equality; { includes } = a string containing the text.
 */
export type FieldRule = "string" | "present" | "project" | { equals: unknown } | { includes: string };

export interface PayloadContext {
  prompt: string;
  command: string;
}

/** What a phase of the suite (MCP, commands and subagents) runs with, for one agent and scope. */
export interface PhaseContext {
  driver: AgentDriver;
  installed: Installed;
  scope: Scope;
  /** Folder for this phase's layout. */
  root: string;
  repoRoot: string;
  kanonCli: string;
  timeoutMs: number;
}

/** One check of a phase: a column of the report, for the agent and scope's row. */
export interface PhaseCheck {
  id: string;
  status: "pass" | "fail" | "warn" | "skip";
  detail: string;
}

export interface ExtraCheck {
  id: string;
  ok: boolean;
  detail: string;
  /** Informational checks print WARN instead of failing the run. */
  info?: boolean;
}

export interface ExtraCheckContext {
  driver: AgentDriver;
  installed: Installed;
  layout: Layout;
  scope: Scope;
  /** Environment the agent runs with (isolation + driver env). */
  env: NodeJS.ProcessEnv;
  /** Runs kanon with extra arguments in this layout. */
  kanon(args: string[]): Promise<RunResult>;
  /** The kanon.yaml hooks that must be rendered for this agent. */
  renderedHooks: { name: string; command: string; args?: string[] }[];
  timeoutMs: number;
}

/** A subagent file kanon rendered: the name the agent knows it by, and the file. */
export interface RenderedSubagent {
  name: string;
  file: string;
}

/** A driver as written: what only running the agent needs. The agent's facts come from its manifest. */
export interface DriverSpec {
  /** kanon's manifest for the agent: its id, name, verified version, hook files and events. */
  manifest: AgentManifest;
  /** The npm package; its version is the manifest's verified version. */
  pkg: string;
  /** Wire protocol that the fake model must speak for this agent (informational). */
  protocol: string;
  /** The tool name hooks see for the shell tool. */
  shellToolName: string;
  /** Upper bound for one headless run. */
  timeoutMs: number;
  /**
   * The command as the agent's native file holds it, when kanon must rewrite it (Gemini's settings
   * expansion); the `omitted` check looks for this text.
   */
  nativeCommand?(command: string): string;
  /** Delay of the fake model's final answer (see FakeModelScript.finalDelayMs). */
  finalDelayMs?: number;
  /**
   * The agent's home variable (its manifest's `home`, e.g. KIMI_CODE_HOME), set for `kanon apply` and
   * the agent alike: kanon must write where the agent reads, outside HOME.
   */
  homeEnv?(layout: Layout): Record<string, string>;

  install(ctx: InstallContext): Promise<Installed>;
  /** Writes the endpoint configuration (fake model on 127.0.0.1) before kanon applies. */
  prepare(layout: Layout, modelUrl: string, scope: Scope): Promise<void>;
  /** The headless command line for one prompt. */
  invocation(installed: Installed, layout: Layout, modelUrl: string, prompt: string): AgentInvocation;
  /** Expected stdin payload fields per event. */
  payload(event: LifecycleEvent, ctx: PayloadContext): Record<string, FieldRule>;
  /** Agent-specific checks after the runs (e.g. Codex hook review). */
  extraChecks?(ctx: ExtraCheckContext): Promise<ExtraCheck[]>;
  /**
   * MCP phase: what the user decides, not kanon, before the agent starts and calls kanon's servers
   * headless (approving project servers, allowing their tools, trusting the folder).
   */
  mcpSetup?(layout: Layout, scope: Scope, servers: string[]): Promise<Record<string, string> | undefined>;
  /** MCP phase: the headless command line, when it differs from the hook runs' (see codex.ts). */
  mcpArgv?(argv: string[]): string[];
  /**
   * Commands phase: the headless command line that runs the slash command `name` with `args`, when the
   * agent does not take it as the prompt `/name args` (OpenCode's `run --command`).
   */
  commandInvocation?(
    installed: Installed,
    layout: Layout,
    modelUrl: string,
    name: string,
    args: string[],
  ): AgentInvocation;
  /**
   * Commands phase: the fake model's calls that hand `task` to the subagent `name` through the agent's
   * own tool (and what the subagent must call to finish). Absent: the agent has no subagents.
   */
  subagentCalls?(name: string, task: string): ScriptedCall[];
  /**
   * Commands phase: holds back the main agent's final answer this long, for an agent that starts its
   * subagent in the background and ends the run with the main turn (Codex's `spawn_agent`).
   */
  subagentDelayMs?: number;
  /**
   * Commands phase: what the user decides, not kanon, before the agent runs the rendered subagents
   * (`files`) headless (Gemini CLI's acknowledgement of project subagents).
   */
  subagentSetup?(layout: Layout, scope: Scope, subagents: RenderedSubagent[]): Promise<void>;
}

/** A driver with the facts read from its manifest (see define.ts). */
export interface AgentDriver extends DriverSpec {
  /** kanon's agent id (`--agent`). */
  id: string;
  title: string;
  /** The pinned exact version: the one the manifest was verified against. */
  version: string;
  /** Scopes in which the manifest puts hooks. */
  scopes: Scope[];
  /** Scopes in which the manifest puts MCP servers but no hooks: the MCP phase runs alone there. */
  mcpOnlyScopes: Scope[];
  /** Neutral events the agent has no hook for: kanon must warn and render nothing. */
  omittedEvents: string[];
  /** Files where kanon puts this agent's hooks in this scope. */
  hookFiles(layout: Layout, scope: Scope): string[];
}
