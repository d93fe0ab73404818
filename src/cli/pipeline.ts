/**
 * The chain the commands share: resolve paths → load kanon.yaml → validate (hook decisions included)
 * → load the lock → load the source → render → plan. Each command takes as much of it as it needs.
 */
import { resolve } from "node:path";
import { AGENT_IDS, AGENTS, selectAgents } from "../agents/index.js";
import { targetsAgent } from "../core/hooks/support.js";
import { renderAll } from "../core/render.js";
import { type Plan, planChanges } from "../destination/plan.js";
import { type LoadedRecord, loadRootState, stateBase } from "../destination/state.js";
import type { Agent } from "../model/manifest.js";
import type { Paths } from "../model/source.js";
import { KanonError, type Scope, type TargetFile } from "../model/types.js";
import { loadLock } from "../providers/lock-file.js";
import type { Lock } from "../providers/lock-types.js";
import { type LoadedConfig, loadConfig, resolvePaths } from "../source/load.js";
import { loadSource } from "../source/source.js";
import { hookWarnings, type Locate, type Validation, validateConfig } from "../source/validate.js";
import { type GlobalFlags, type Io, progressOf, warn } from "./context.js";

export interface Validated {
  paths: Paths;
  scope: Scope;
  agents: Agent[];
  loaded: LoadedConfig;
  validation: Validation;
  lock: Lock | null;
}

export function scopeOf(flags: GlobalFlags, io: Io): Scope {
  return flags.project
    ? { kind: "project", userHome: io.userHome, dir: resolve(io.cwd, flags.project) }
    : { kind: "user", userHome: io.userHome };
}

export function pathsOf(flags: GlobalFlags, io: Io): Paths {
  return resolvePaths(flags, io.env, io.userHome, io.cwd);
}

/**
 * Load and validate. Warnings about the source are printed here (to stderr, before any error);
 * `agents` limits the hook-omission warnings to the agents the command renders.
 */
export async function loadValidated(
  flags: GlobalFlags,
  io: Io,
  options: { checkAgent: boolean },
): Promise<Validated> {
  // An unknown --agent fails before kanon.yaml is read.
  if (options.checkAgent) selectAgents(flags.agent);
  const paths = pathsOf(flags, io);
  const scope = scopeOf(flags, io);
  const loaded = await loadConfig(paths, AGENT_IDS);
  warn(io, loaded.warnings);
  // Each message names its value by a mark; kanon.yaml is parsed for positions (which costs time)
  // only when there are messages, and the marks are replaced with `kanon.yaml:LINE:COL`.
  const marked: (readonly (string | number)[])[] = [];
  const mark: Locate = (path) => `\u0000${marked.push(path) - 1}\u0000`;
  let validation = await validateConfig(loaded.config, paths, AGENTS, scope.kind, io.env, mark);
  if (validation.errors.length > 0 || validation.warnings.length > 0) {
    const { locator } = await import("../source/decode-positional.js");
    const locate = locator(loaded.text, loaded.label);
    const place = (m: string) =>
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the marks are NULs, which no message holds otherwise
      m.replace(/\u0000(\d+)\u0000/g, (_, i) => locate(marked[Number(i)]!));
    validation = {
      ...validation,
      errors: validation.errors.map(place),
      warnings: validation.warnings.map(place),
    };
    if (validation.errors.length > 0) throw new KanonError(validation.errors.join("\n"));
  }
  const agents = options.checkAgent ? selectAgents(flags.agent, loaded.config.agents) : [...AGENTS];
  const lock = await loadLock(paths.home);
  return { paths, scope, agents, loaded, validation, lock };
}

export interface Rendered extends Validated {
  files: TargetFile[];
  warnings: string[];
}

/** Through render: print the source and hook warnings, return the target state. */
export async function loadRendered(flags: GlobalFlags, io: Io): Promise<Rendered> {
  const v = await loadValidated(flags, io, { checkAgent: true });
  const warnings = [...v.validation.warnings, ...hookWarnings(v.validation.decisions, v.agents)];
  warn(io, warnings);
  // Providers that no selected agent renders are neither fetched nor read.
  const wanted = (targets: string[] | undefined) =>
    v.agents.some((a) => targetsAgent(targets, a.manifest.id));
  const source = await loadSource(v.loaded.config, v.paths, {
    lock: v.lock,
    env: io.env,
    wanted,
    ...progressOf(io),
  });
  const files = renderAll({ source, scope: v.scope, agents: v.agents, decisions: v.validation.decisions });
  return { ...v, files, warnings: [...v.loaded.warnings, ...warnings] };
}

/** The destination root of a scope: the ownership record is kept per root. */
export function rootOf(scope: Scope): string {
  return scope.kind === "user" ? scope.userHome : scope.dir;
}

export function recordOf(scope: Scope, io: Io): LoadedRecord {
  const root = rootOf(scope);
  const loaded = loadRootState(stateBase(io.env, io.userHome), root);
  warn(io, loaded.warnings);
  return loaded;
}

export async function loadPlan(
  flags: GlobalFlags,
  io: Io,
): Promise<Rendered & { plan: Plan; record: LoadedRecord }> {
  const r = await loadRendered(flags, io);
  const record = recordOf(r.scope, io);
  const plan = await planChanges(r.files, {
    record: record.record,
    root: rootOf(r.scope),
    agents: r.agents.map((a) => a.manifest.id),
  });
  warn(io, plan.warnings);
  return { ...r, plan, record, warnings: [...r.warnings, ...record.warnings, ...plan.warnings] };
}
