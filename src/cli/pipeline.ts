/**
 * The chain the commands share: resolve paths → load kanon.yaml → validate (hook decisions included)
 * → load the lock → load the source → render → plan. Each command takes as much of it as it needs.
 */
import { realpathSync } from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import { AGENT_IDS, AGENTS, selectAgents } from "../agents/index.js";
import { agentHomes } from "../core/homes.js";
import type { HookMachine } from "../core/hooks/envelope.js";
import { targetsAgent } from "../core/hooks/support.js";
import { declaredMerges } from "../core/merges.js";
import { renderAll } from "../core/render.js";
import { type Plan, planChanges } from "../destination/plan.js";
import { undeclaredMerge } from "../destination/record.js";
import { type LoadedRecord, loadRootState, rootStateDir, stateBase } from "../destination/state.js";
import type { Agent } from "../model/manifest.js";
import type { Paths } from "../model/source.js";
import { KanonError, type Scope, type TargetFile } from "../model/types.js";
import { loadLock } from "../providers/lock-file.js";
import type { Lock } from "../providers/lock-types.js";
import { runnerText } from "../runner/file.js";
import { locator } from "../source/decode.js";
import { type LoadedConfig, loadConfig, resolvePaths } from "../source/load.js";
import { loadSource } from "../source/source.js";
import {
  hookWarnings,
  type Locate,
  serverWarnings,
  type Validation,
  validateConfig,
} from "../source/validate.js";
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
  const { homes } = agentHomes(
    AGENTS.map((a) => a.manifest),
    io.env,
    io.cwd,
    realPathOrNull,
  );
  return flags.project
    ? { kind: "project", userHome: io.userHome, dir: resolve(io.cwd, flags.project), homes }
    : { kind: "user", userHome: io.userHome, homes };
}

function realPathOrNull(dir: string): string | null {
  try {
    return realpathSync(dir);
  } catch {
    return null;
  }
}

/**
 * Where node and kanon's hook runner are for hooks with the neutral envelope: facts of this machine,
 * resolved now, because an agent started from a desktop has a short PATH. The runner is per
 * destination root (`$XDG_DATA_HOME/kanon/`, a folder per project), so that each root's record owns
 * its own copy and removing a project's hooks leaves the user's alone.
 */
export function hookMachine(scope: Scope, io: Io): HookMachine & { stateDir: string } {
  const xdg = io.env.XDG_DATA_HOME;
  const data = xdg && isAbsolute(xdg) ? join(xdg, "kanon") : join(io.userHome, ".local", "share", "kanon");
  const dir = scope.kind === "user" ? data : join(data, "projects", basename(rootStateDir(data, scope.dir)));
  return {
    node: process.execPath,
    runner: join(dir, "hook-runner.mjs"),
    stateDir: stateBase(io.env, io.userHome),
  };
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
  // Each message names its value by a mark; positions are looked up only when there are messages,
  // and the marks are replaced with `kanon.yaml:LINE:COL`.
  const marked: (readonly (string | number)[])[] = [];
  const mark: Locate = (path) => `\u0000${marked.push(path) - 1}\u0000`;
  const agents = options.checkAgent ? selectAgents(flags.agent, loaded.config.agents) : [...AGENTS];
  const rendered = new Set(agents.map((a) => a.manifest.id));
  let validation = await validateConfig(
    loaded.config,
    paths,
    AGENTS,
    scope.kind,
    io.env,
    mark,
    rendered,
    hookMachine(scope, io),
  );
  if (validation.errors.length > 0 || validation.warnings.length > 0) {
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
  const warnings = [
    ...v.validation.warnings,
    ...hookWarnings(v.validation.decisions, v.agents),
    ...serverWarnings(v.validation.mcp, v.agents),
    ...agentHomes(
      v.agents.map((a) => a.manifest),
      io.env,
      io.cwd,
    ).warnings,
  ];
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
  const machine = hookMachine(v.scope, io);
  const neutral = v.validation.decisions.some((d) => d.native?.neutral);
  const files = renderAll({
    source,
    scope: v.scope,
    agents: v.agents,
    decisions: v.validation.decisions,
    mcp: v.validation.mcp,
    ...(neutral
      ? {
          runner: {
            path: machine.runner,
            content: runnerText(
              AGENTS.map((a) => a.manifest),
              machine.stateDir,
            ),
          },
        }
      : {}),
  });
  return { ...v, files, warnings: [...v.loaded.warnings, ...warnings] };
}

/** The destination root of a scope: the ownership record is kept per root. */
export function rootOf(scope: Scope): string {
  return scope.kind === "user" ? scope.userHome : scope.dir;
}

/** The state directory of a scope's destination root (record and history). */
export function stateDirOf(scope: Scope, io: Io): string {
  return rootStateDir(stateBase(io.env, io.userHome), rootOf(scope));
}

/**
 * The record of a scope's root. One whose co-owned entries merge what no manifest declares (another
 * key, another kind of merge: a record edited by hand) is unusable, as a malformed one is: kanon
 * decides what it takes out of a file the user shares by the manifests, never by the record alone.
 */
export function recordOf(scope: Scope, io: Io): LoadedRecord {
  let loaded = loadRootState(stateBase(io.env, io.userHome), rootOf(scope), io.fs);
  const why = loaded.record && undeclaredMerge(loaded.record, declaredMerges(AGENTS));
  if (why) {
    const path = join(loaded.dir, "record.json");
    loaded = {
      ...loaded,
      record: null,
      interrupted: [],
      warnings: [`the kanon record ${path} is unusable: ${why}; treating this machine as new`],
    };
  }
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
    interrupted: record.interrupted,
    ...(io.fs ? { fs: io.fs } : {}),
  });
  warn(io, plan.warnings);
  return { ...r, plan, record, warnings: [...r.warnings, ...record.warnings, ...plan.warnings] };
}
