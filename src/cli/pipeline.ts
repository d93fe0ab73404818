/**
 * The chain the commands share: resolve paths → load kanon.yaml → validate (hook decisions included)
 * → load the lock → load the source → render → plan. Each command takes as much of it as it needs.
 */
import { existsSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { AGENT_IDS, AGENTS, selectAgents } from "../agents/index.js";
import { agentDestinations, agentHomes } from "../core/homes.js";
import type { HookMachine } from "../core/hooks/envelope.js";
import { targetsAgent } from "../core/hooks/support.js";
import type { McpDecision } from "../core/mcp.js";
import { declaredMerges } from "../core/merges.js";
import { isInside } from "../core/names.js";
import { renderAll } from "../core/render.js";
import { type MissingSecret, substituteSecrets, usesSecrets } from "../core/secrets.js";
import { type Plan, planChanges } from "../destination/plan.js";
import { fileOwners, undeclaredMerge } from "../destination/record.js";
import { readSecretStore, secretStorePath } from "../destination/secrets.js";
import { type LoadedRecord, loadRootState, rootStateDir, stateBase } from "../destination/state.js";
import type { MachineInput } from "../import/machine.js";
import type { Agent } from "../model/manifest.js";
import type { Paths, Source } from "../model/source.js";
import { KanonError, type Scope, type TargetFile } from "../model/types.js";
import { loadLock } from "../providers/lock-file.js";
import type { Lock } from "../providers/lock-types.js";
import { runnerText } from "../runner/file.js";
import { realOrSelf } from "../source/home-files.js";
import { assertSettledHome } from "../source/home-state.js";
import { type LoadedConfig, loadConfig, resolvePaths } from "../source/load.js";
import { loadSource } from "../source/source.js";
import {
  hookWarnings,
  itemWarnings,
  type Locate,
  serverWarnings,
  type Validation,
  validateConfig,
} from "../source/validate.js";
import { type GlobalFlags, type Io, noteSecrets, progressOf, warn } from "./context.js";

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
export function hookMachine(scope: Scope, io: Io): HookMachine & { stateDir: string; dataDirs: string[] } {
  const xdg = io.env.XDG_DATA_HOME;
  const data = xdg && isAbsolute(xdg) ? join(xdg, "kanon") : join(io.userHome, ".local", "share", "kanon");
  return {
    node: process.execPath,
    runner: data + runnerTail(scope),
    stateDir: stateBase(io.env, io.userHome),
    // The folders every root's runner shares: the user's runner and the projects' live side by side.
    dataDirs: [data, join(data, "projects")],
  };
}

/** The runner's path below kanon's data folder: `/hook-runner.mjs`, or in the project's own folder. */
const runnerTail = (scope: Scope): string =>
  scope.kind === "user"
    ? "/hook-runner.mjs"
    : `/projects/${basename(rootStateDir("/", scope.dir))}/hook-runner.mjs`;

/**
 * Whether the record may name `path` as this scope's hook runner: where hookMachine puts it, below a
 * `kanon` data folder anywhere (XDG_DATA_HOME may have moved since the apply that wrote it).
 */
export function isRunnerPath(path: string, scope: Scope): boolean {
  return (
    isAbsolute(path) &&
    resolve(path) === path &&
    !path.includes("\u0000") &&
    path.endsWith(`/kanon${runnerTail(scope)}`)
  );
}

export function pathsOf(flags: GlobalFlags, io: Io): Paths {
  return resolvePaths(flags, io.env, io.userHome, io.cwd);
}

/** Where `kanon import` (and the UI's import mode) reads this machine. */
export function machineOf(flags: GlobalFlags, io: Io): MachineInput {
  return {
    paths: pathsOf(flags, io),
    scope: scopeOf(flags, io),
    agent: flags.agent,
    env: io.env,
    ...progressOf(io),
  };
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
  // A home in the middle of a merge or rebase holds half-resolved files: nothing renders from it.
  assertSettledHome(paths.home);
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
    // Loaded here, as loadConfig loads the decoder: `kanon undo` uses this module, reads no
    // kanon.yaml, and so never loads the YAML library.
    const { locator } = await import("../source/decode.js");
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
  source: Source;
  files: TargetFile[];
  warnings: string[];
  /** The secret store's values written into `files` (name → value). */
  secrets: ReadonlyMap<string, string>;
}

/**
 * Through render: print the source and hook warnings, return the target state. `${secret:NAME}` is
 * replaced by the value in this machine's secret store (what apply writes), unless `references`:
 * `kanon render` shows kanon.yaml's references, never the values.
 */
export async function loadRendered(
  flags: GlobalFlags,
  io: Io,
  options: { references?: boolean } = {},
): Promise<Rendered> {
  const v = await loadValidated(flags, io, { checkAgent: true });
  const warnings = [
    ...v.validation.warnings,
    ...hookWarnings(v.validation.decisions, v.agents),
    ...serverWarnings(v.validation.mcp, v.agents),
    ...itemWarnings(v.validation.items, v.agents),
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
  const { mcp, secrets } = options.references
    ? { mcp: [...v.validation.mcp], secrets: new Map<string, string>() }
    : withSecrets(v.validation.mcp, v.agents, io);
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
    mcp,
    items: v.validation.items,
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
  if (secrets.size > 0) {
    const modes = privateModes(files, secrets);
    warn(io, modes);
    warnings.push(...modes);
  }
  return { ...v, source, files, secrets, warnings: [...v.loaded.warnings, ...warnings] };
}

/**
 * The MCP decisions with the secret store's values in place of `${secret:NAME}`, in the servers the
 * selected agents render. A secret this machine does not have stops the command before anything is
 * written: no agent file ever gets a placeholder.
 */
function withSecrets(
  decisions: readonly McpDecision[],
  agents: readonly Agent[],
  io: Io,
): { mcp: McpDecision[]; secrets: Map<string, string> } {
  const ids = new Set(agents.map((a) => a.manifest.id));
  const rendered = (d: McpDecision) => d.render !== undefined && ids.has(d.agent);
  if (!usesSecrets(decisions.filter(rendered).map((d) => d.render)))
    return { mcp: [...decisions], secrets: new Map() };
  const store = readSecretStore(secretStorePath(io.env, io.userHome));
  warn(io, store.warnings);
  const lookup = (name: string) => (Object.hasOwn(store.secrets, name) ? store.secrets[name] : undefined);
  const secrets = new Map<string, string>();
  const missing: MissingSecret[] = [];
  const mcp = decisions.map((d) => {
    if (!rendered(d)) return d;
    const r = substituteSecrets({ [d.server]: d.render! }, lookup);
    for (const [name, value] of r.used) secrets.set(name, value);
    for (const m of r.missing)
      if (!missing.some((x) => x.name === m.name && x.server === m.server)) missing.push(m);
    return { ...d, render: r.servers[d.server]! };
  });
  if (missing.length > 0)
    throw new KanonError(
      missing
        .map(
          (m) =>
            `secret ${m.name} is not set on this machine (mcp server ${JSON.stringify(m.server)} uses it): set it with "kanon secret set ${m.name}"; nothing was written`,
        )
        .join("\n"),
    );
  noteSecrets(io, secrets);
  return { mcp, secrets };
}

/**
 * Files that will hold a secret value are private: one kanon creates is 0600; an existing one keeps
 * its mode, with a warning when others can read it.
 */
function privateModes(files: TargetFile[], secrets: ReadonlyMap<string, string>): string[] {
  const values = [...secrets].flatMap(([name, v]) => [
    { name, bytes: Buffer.from(v) },
    // As JSON and TOML strings write it.
    { name, bytes: Buffer.from(JSON.stringify(v).slice(1, -1)) },
  ]);
  const warnings: string[] = [];
  for (const f of files) {
    const content = Buffer.from(f.content.buffer, f.content.byteOffset, f.content.byteLength);
    const held = values.find((v) => content.includes(v.bytes));
    if (!held) continue;
    const path = [f.path, ...(f.alternatives ?? [])].find((p) => statSync(p, { throwIfNoEntry: false }));
    const mode = path ? statSync(path).mode & 0o777 : null;
    if (mode === null) f.mode = 0o600;
    else {
      if (!f.merge) f.mode = mode;
      if ((mode & 0o077) !== 0)
        warnings.push(
          `${path} holds the secret ${held.name} and other users can read it (mode 0${mode.toString(8)}): chmod 600 ${path}`,
        );
    }
  }
  return warnings;
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
  let loaded = containRecord(loadRootState(stateBase(io.env, io.userHome), rootOf(scope), io.fs), scope);
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

/**
 * The record as far as it names places kanon renders to (core/homes.ts agentDestinations): a path
 * of any other shape — outside every agent's destination, `..` in it, an unknown agent — is left out
 * with a warning, so that no record can make kanon write or delete there.
 */
function containRecord(loaded: LoadedRecord, scope: Scope): LoadedRecord {
  const record = loaded.record;
  if (!record) return loaded;
  const byId = new Map(AGENTS.map((a) => [a.manifest.id, agentDestinations(a.manifest, scope)]));
  const allowed = (path: string, agents: readonly string[]) =>
    agents.some((id) => byId.get(id)?.(path) === true) || isRunnerPath(path, scope);
  const warnings: string[] = [];
  const keep = <T>(entries: Record<string, T>, agentsOf: (v: T) => string[]): Record<string, T> => {
    const out: Record<string, T> = {};
    for (const [path, v] of Object.entries(entries)) {
      if (allowed(path, agentsOf(v))) out[path] = v;
      else
        warnings.push(
          `the ownership record names ${JSON.stringify(path)} for ${agentsOf(v).join(", ")}, where kanon writes nothing; it is left alone`,
        );
    }
    return out;
  };
  const files = keep(record.files, fileOwners);
  const entries = keep(record.entries, (e) => [e.agent]);
  const dirs = record.dirs.filter((d) => isAbsolute(d) && resolve(d) === d);
  const known = new Set([...Object.keys(files), ...Object.keys(entries)]);
  const interrupted = loaded.interrupted.filter(
    (p) => known.has(p) || [...byId.values()].some((isDestination) => isDestination(p)),
  );
  if (
    warnings.length === 0 &&
    dirs.length === record.dirs.length &&
    interrupted.length === loaded.interrupted.length
  )
    return loaded;
  return {
    ...loaded,
    dir: loaded.dir,
    record: { ...record, files, entries, dirs },
    warnings: [...loaded.warnings, ...warnings],
    interrupted,
  };
}

export type Planned = Rendered & { plan: Plan; record: LoadedRecord };

export async function loadPlan(flags: GlobalFlags, io: Io): Promise<Planned> {
  return planOf(await loadRendered(flags, io), io);
}

/** A rendered home against the disk and the ownership record of its scope. */
export async function planOf(r: Rendered, io: Io): Promise<Planned> {
  const record = recordOf(r.scope, io);
  const machine = hookMachine(r.scope, io);
  const plan = await planChanges(r.files, {
    record: record.record,
    root: rootOf(r.scope),
    agents: r.agents.map((a) => a.manifest.id),
    interrupted: record.interrupted,
    sharedDirs: machine.dataDirs,
    ...(io.fs ? { fs: io.fs } : {}),
  });
  if (r.scope.kind === "project") assertInsideProject(plan, r.scope.dir, machine.runner);
  warn(io, plan.warnings);
  return { ...r, plan, record, warnings: [...r.warnings, ...record.warnings, ...plan.warnings] };
}

/**
 * A project is often someone else's repository: a symlink in it (`CLAUDE.md -> ~/.bashrc`, `.claude
 * -> ~/.ssh`) must not make kanon write outside it. Every file a change writes must be in the project
 * once symlinks (of the file and of its folders) are resolved; otherwise nothing is written.
 */
function assertInsideProject(plan: Plan, dir: string, runner: string): void {
  const root = realOrSelf(dir);
  const real = new Map<string, string>();
  const realDir = (d: string): string => {
    let r = real.get(d);
    if (r === undefined) {
      r = existsSync(d) || dirname(d) === d ? realOrSelf(d) : join(realDir(dirname(d)), basename(d));
      real.set(d, r);
    }
    return r;
  };
  for (const c of plan.changes) {
    if (c.action === "delete") continue; // a delete unlinks the path itself, never a link's target
    if (c.path === runner) continue; // kanon's hook runner, in kanon's data folder (hookMachine)
    const target = join(realDir(dirname(c.path)), basename(c.path));
    if (!isInside(root, target))
      throw new KanonError(
        `${c.file.path}: a symlink in the project points outside it (${target}); kanon writes only inside ${dir}, so nothing was written`,
      );
  }
}
