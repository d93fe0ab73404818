/**
 * `kanon import`: the machine's native agent files → a neutral kanon.yaml plus the instruction and
 * skill files it references (reference §5.8). This is the edge that reads the disk; the reverse maps
 * live in each agent's folder (its manifest's import tables, its import.ts) and beside this file.
 */
import { lstatSync, readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { type ParseError, parse as parseJsonc, printParseErrorCode } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { AGENTS } from "../agents/index.js";
import { agentPath } from "../core/homes.js";
import { literalVariables, literalVariablesWhy } from "../core/mcp-variables.js";
import { nameProblem, segmentProblem } from "../core/names.js";
import { providerSkillName } from "../core/skill-names.js";
import { nestingProblem } from "../formats/nesting.js";
import { deepEqual, isPlainObject, type PlainObject, setOwn } from "../formats/values.js";
import { READ_LIMIT, ReadRefused, readBounded } from "../model/bounded-read.js";
import type { InstructionFile, ItemEntry, KanonConfig, McpServer, SkillEntry } from "../model/config.js";
import { osErrorText } from "../model/fs-errors.js";
import type { Agent, AgentImport, AgentManifest, ScopedPath } from "../model/manifest.js";
import type { Source, TreeFile } from "../model/source.js";
import { compareBytes, trimSpace } from "../model/text.js";
import { KanonError, type Scope } from "../model/types.js";
import { hashSkillFiles } from "../providers/hash.js";
import { readTree } from "../providers/tree.js";
import { RESERVED_NAMES, unwritableChar } from "../source/limits.js";
import { type FoundHooks, type HookNames, importHooks } from "./hooks.js";
import { importItems } from "./items.js";
import { type FoundServer, importServers } from "./mcp.js";
import { readMcpEntry } from "./mcp-entry.js";
import {
  hookSecretWarnings,
  moveSecrets,
  SECRET_POLICIES,
  type SecretPolicy,
  secretWarnings,
} from "./secrets.js";

export const INSTRUCTION_POLICIES = ["auto", "merge", "per-agent", "skip"] as const;

export interface ImportOptions {
  /** Agents to read (`--agent`), in registry order. */
  agents: readonly Agent[];
  /** Every registered agent id: an entry found in all of them needs no targets. */
  allAgents: readonly string[];
  scope: Scope;
  instructionPolicy: string;
  secretPolicy: string;
  /** This machine's secret store: a value already there keeps its name. */
  storedSecrets?: Readonly<Record<string, string>>;
  hookNames: HookNames;
  /**
   * The existing Kanon home, loaded with its kanon.lock: skills that are exactly what one of its git
   * providers renders come back as that provider's entry instead of local copies.
   */
  home?: Source;
}

/** A file for the Kanon home, relative to it. */
export interface HomeFile {
  rel: string;
  content: Uint8Array;
  mode: number;
}

export interface Imported {
  config: KanonConfig;
  files: HomeFile[];
  /** For the machine's secret store (`--secret-policy store`): name → value, written with the home. */
  secrets: Record<string, string>;
  warnings: string[];
}

/** Where a manifest path of an agent is in the scope imported from (core/homes.ts). */
type At = (m: AgentManifest, p: ScopedPath) => string | null;

/** A skill file larger than this is not copied (the skill is skipped with a warning). */
const MAX_SKILL_FILE = 10 * 1024 * 1024;

export function checkPolicies(
  o: Pick<ImportOptions, "secretPolicy" | "instructionPolicy" | "allAgents">,
): void {
  if (!(SECRET_POLICIES as readonly string[]).includes(o.secretPolicy))
    throw new KanonError(
      `unsupported secret policy ${JSON.stringify(o.secretPolicy)}; use ${SECRET_POLICIES.join(", ")}`,
    );
  const policies = [...o.allAgents, ...INSTRUCTION_POLICIES];
  if (!policies.includes(o.instructionPolicy))
    throw new KanonError(`unsupported instruction policy ${JSON.stringify(o.instructionPolicy)}`);
}

export async function importMachine(options: ImportOptions): Promise<Imported> {
  // Every agent read is a possible target; the agents off by default join the home's `agents:` list
  // below only when something was found for them.
  const universe = AGENTS.map((a) => a.manifest.id).filter(
    (id) => options.allAgents.includes(id) || options.agents.some((a) => a.manifest.id === id),
  );
  const o: ImportOptions = { ...options, allAgents: universe };
  checkPolicies(o);

  const warnings: string[] = [];
  const files: HomeFile[] = [];
  const at: At = (m, p) => agentPath(m, p, o.scope);

  const instructions = importInstructions(o, options.allAgents, at, files);
  const skills = await importSkills(o, at, files, warnings);
  const items = importItems(o.agents, o.scope, at, o.allAgents, files, warnings, skills);

  const servers: FoundServer[] = [];
  const hooks: FoundHooks[] = [];
  for (const agent of o.agents) {
    const m = agent.manifest;
    if (!m.import) {
      warnings.push(`${m.displayName} settings are not importable yet`);
      continue;
    }
    const reader = (await agent.loadImport?.()) ?? {};
    servers.push(...readMcpFile(agent, reader, at, warnings, o.secretPolicy));
    const hookPath = at(m, m.hooks.file);
    if (!hookPath || !reader.readHooks) continue;
    for (const other of reader.unreadableHookFiles?.(hookPath) ?? [])
      warnings.push(
        `kept your plugin ${other} where it is: ${m.displayName} runs it, and kanon imports hooks only from the ${basename(hookPath)} it generates`,
      );
    const text = readText(hookPath, warnings);
    if (text === null) continue;
    const deep = nestingProblem(text, hookPath.endsWith(".toml") ? "toml" : "jsonc");
    if (deep) {
      warnings.push(`could not parse ${hookPath}: ${deep}`);
      continue;
    }
    try {
      const read = reader.readHooks(text, hookPath);
      if (o.secretPolicy === "keep" && m.import.hookFile && read.document !== undefined)
        warnings.push(...secretWarnings(read.document, `${m.id}.${m.import.hookFile.secretPath}`));
      warnings.push(...read.warnings);
      hooks.push({ manifest: m, read });
    } catch (e) {
      warnings.push(`could not parse ${hookPath}: ${(e as Error).message}`);
    }
  }
  const mcp = importServers(servers, o.allAgents);
  const neutralHooks = importHooks(hooks, o.allAgents, o.scope.kind, o.hookNames);
  warnings.push(...mcp.warnings, ...neutralHooks.warnings);
  let config: KanonConfig = writable(
    {
      version: 1,
      instructions: { files: instructions.files },
      skills,
      ...(items.commands.length > 0 ? { commands: items.commands } : {}),
      ...(items.subagents.length > 0 ? { subagents: items.subagents } : {}),
      mcp: { servers: mcp.servers },
      hooks: neutralHooks.hooks,
      metadata: { generated_by: "kanon import" },
    },
    files,
    warnings,
  );
  // After writable(): a server left out takes no secret into the store.
  const policy = o.secretPolicy as SecretPolicy;
  let secrets: Record<string, string> = {};
  if (policy !== "keep") {
    const moved = moveSecrets(config.mcp.servers, policy, o.storedSecrets ?? {});
    config = { ...config, mcp: { servers: moved.servers } };
    secrets = moved.secrets;
    warnings.push(...moved.warnings, ...hookSecretWarnings(config.hooks));
  }
  return {
    config: homeAgents(config, options.allAgents, universe, instructions.found),
    files,
    secrets,
    warnings,
  };
}

/**
 * What kanon.yaml can hold: a server, hook or skill whose name kanon.yaml would refuse (a newline,
 * `constructor`, a skill name that is not one safe folder name) or with a value holding a NUL is left
 * out with a warning, so that `import --write` never writes a kanon.yaml that kanon then rejects.
 */
function writable(c: KanonConfig, files: HomeFile[], warnings: string[]): KanonConfig {
  const bad = (value: unknown): string | null => {
    if (typeof value === "string") return unwritableChar(value, false);
    if (Array.isArray(value)) return value.map(bad).find((p) => p !== null) ?? null;
    if (!isPlainObject(value)) return null;
    for (const [k, v] of Object.entries(value)) {
      const problem = RESERVED_NAMES.has(k) ? `has the key ${JSON.stringify(k)}` : unwritableChar(k, true);
      if (problem) return problem;
      const inner = bad(v);
      if (inner) return inner;
    }
    return null;
  };
  const nameIssue = (name: string) =>
    RESERVED_NAMES.has(name) ? "is reserved" : (unwritableChar(name, true) ?? nameProblem(name));
  const servers: Record<string, McpServer> = {};
  for (const [name, server] of Object.entries(c.mcp.servers)) {
    const problem = nameIssue(name) ?? bad(server);
    if (problem)
      warnings.push(`skipped mcp server ${JSON.stringify(name)}: ${problem}, which kanon.yaml cannot hold`);
    else servers[name] = server;
  }
  const hooks = c.hooks.filter((h) => {
    const problem = nameIssue(h.name) ?? bad(h);
    if (problem)
      warnings.push(`skipped hook ${JSON.stringify(h.name)}: ${problem}, which kanon.yaml cannot hold`);
    return !problem;
  });
  const skills = c.skills.filter((s) => {
    const problem = s.git ? null : segmentProblem(s.name ?? "");
    if (!problem) return true;
    warnings.push(`skipped skill ${JSON.stringify(s.name)}: the name ${problem}`);
    const prefix = `skills/${s.name}/`;
    for (let i = files.length - 1; i >= 0; i--) if (files[i]!.rel.startsWith(prefix)) files.splice(i, 1);
    return false;
  });
  return { ...c, skills, mcp: { servers }, hooks };
}

/**
 * The home's agents: the default ones plus each other agent something was found for, listed in
 * `agents:` when that differs from the default. Targets that name every one of them are dropped.
 */
function homeAgents(
  c: KanonConfig,
  defaults: readonly string[],
  universe: readonly string[],
  instructionAgents: readonly string[],
): KanonConfig {
  const found = new Set(instructionAgents);
  const targeted = (t: string[] | undefined) => {
    for (const id of t ?? universe) found.add(id);
  };
  for (const f of c.instructions.files) if (typeof f !== "string") targeted(f.targets);
  for (const s of [...c.skills, ...(c.commands ?? []), ...(c.subagents ?? [])]) targeted(s.targets);
  for (const s of Object.values(c.mcp.servers)) targeted(s.targets);
  for (const h of c.hooks) targeted(h.targets);
  const agents = universe.filter((id) => defaults.includes(id) || found.has(id));
  const every = (t: string[] | undefined) => !!t && agents.every((id) => t.includes(id));
  const untarget = <T extends { targets?: string[] }>(x: T): T => {
    if (!every(x.targets)) return x;
    const { targets: _, ...rest } = x;
    return rest as T;
  };
  const { commands, subagents, ...rest } = c;
  return {
    ...rest,
    ...(agents.length === defaults.length ? {} : { agents }),
    instructions: {
      files: c.instructions.files.map((f) =>
        typeof f !== "string" && every(f.targets) ? (f.path ?? "") : f,
      ),
    },
    // A local skill for every agent needs no entry (its folder says it); a provider always does.
    skills: c.skills.map(untarget).filter((s) => s.git || s.targets !== undefined),
    // Likewise a command or subagent: its file in commands/ or agents/ says it.
    ...sectionEntries("commands", commands, untarget),
    ...sectionEntries("subagents", subagents, untarget),
    mcp: { servers: Object.fromEntries(Object.entries(c.mcp.servers).map(([n, s]) => [n, untarget(s)])) },
    hooks: c.hooks.map(untarget),
  };
}

/** A section's entries that still say something once targets naming every agent are dropped. */
function sectionEntries(
  key: "commands" | "subagents",
  entries: ItemEntry[] | undefined,
  untarget: (e: ItemEntry) => ItemEntry,
): Partial<KanonConfig> {
  const kept = (entries ?? []).map(untarget).filter((e) => e.targets !== undefined);
  return kept.length > 0 ? { [key]: kept } : {};
}

/** The text of a file, or null when it is missing, empty or unreadable (the last with a warning). */
function readText(path: string, warnings: string[]): string | null {
  let text: string;
  try {
    text = readBounded(path, { limit: READ_LIMIT.destination }).bytes.toString("utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR")
      warnings.push(`could not read ${path}: ${e instanceof ReadRefused ? e.reason : osErrorText(e)}`);
    return null;
  }
  return text.trim() === "" ? null : text;
}

function parseDocument(text: string, format: "json" | "jsonc" | "toml"): unknown {
  const body = text.replace(/^\uFEFF/, "");
  const deep = nestingProblem(body, format);
  if (deep) throw new Error(deep);
  if (format === "toml") return parseToml(body);
  if (format === "json") return JSON.parse(body);
  const errors: ParseError[] = [];
  const value = parseJsonc(body, errors, { allowTrailingComma: true });
  if (errors.length > 0)
    throw new Error(`${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}`);
  return value;
}

function readMcpFile(
  agent: Agent,
  reader: AgentImport,
  at: At,
  warnings: string[],
  policy: string,
): FoundServer[] {
  const m = agent.manifest;
  const { mcpFile: label, mcpEntry } = m.import!;
  const path = [m.mcp.file, ...(m.mcp.alternatives ?? [])]
    .map((p) => at(m, p))
    .find((p): p is string => p !== null && statSync(p, { throwIfNoEntry: false }) !== undefined);
  if (!path) return [];
  const text = readText(path, warnings);
  if (text === null) return [];
  let doc: unknown;
  try {
    doc = parseDocument(text, m.mcp.format);
    if (!isPlainObject(doc)) throw new Error("top level is not an object");
  } catch (e) {
    warnings.push(`could not parse ${path}: ${(e as Error).message.split("\n")[0]}`);
    return [];
  }
  // The other policies look only at what goes into kanon.yaml (the rest stays in the agent's file).
  if (policy === "keep") warnings.push(...secretWarnings(doc, `${m.id}.${label.secretPath}`));
  const out: FoundServer[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (key !== m.mcp.key) {
      warnings.push(
        ...(reader.readOtherMcpKey?.(key, value) ?? [
          `skipped unsupported ${m.id} ${label.label} field ${JSON.stringify(key)}`,
        ]),
      );
      continue;
    }
    if (!isPlainObject(value)) {
      warnings.push(
        `skipped unsupported ${m.id} ${label.label} field ${JSON.stringify(key)} because it is not a table`,
      );
      continue;
    }
    for (const name of Object.keys(value).sort(compareBytes)) {
      const read = readMcpEntry(m.id, mcpEntry, name, value[name]);
      warnings.push(...read.warnings);
      if (!read.server) continue;
      // `${VAR}` that the agent hands to the server as text has no kanon.yaml form (there it means the
      // variable's value): the entry stays the user's.
      const literal = literalVariables(agent, read.server);
      if (literal.length > 0) {
        warnings.push(
          `skipped ${m.id} mcp server ${JSON.stringify(name)}: ${literalVariablesWhy(agent, literal)}, and in kanon.yaml a reference is the variable's value`,
        );
        continue;
      }
      const native: PlainObject = {};
      for (const key of read.keys) setOwn(native, key, (value[name] as PlainObject)[key]);
      out.push({ agent, name, native, readings: readings(agent, read.server) });
    }
  }
  return out;
}

/**
 * An entry's neutral readings, most neutral first: the table's reading, then other ways of writing
 * the same thing, each kept only if it renders for the agent exactly what the first does (so that the
 * same server spelt differently by two agents can be one entry).
 */
function readings(agent: Agent, read: McpServer): McpServer[] {
  const want = agent.mcpServer(read);
  const others: McpServer[] = [];
  const { env_vars, bearer_token_env_var, env_headers, ...rest } = read;
  // Variables passed through by name (Codex env_vars) as references in env.
  if (env_vars && env_vars.length > 0)
    others.push({
      ...rest,
      ...(bearer_token_env_var ? { bearer_token_env_var } : {}),
      ...(env_headers ? { env_headers } : {}),
      env: { ...Object.fromEntries(env_vars.map((n) => [n, `\${${n}}`])), ...read.env },
    });
  // A bearer variable or env headers as the headers they stand for.
  const headers: Record<string, string> = {};
  for (const [h, v] of Object.entries(env_headers ?? {})) headers[h] = `\${${v}}`;
  if (bearer_token_env_var) headers.Authorization = `Bearer \${${bearer_token_env_var}}`;
  if (Object.keys(headers).length > 0)
    others.push({ ...rest, ...(env_vars ? { env_vars } : {}), headers: { ...headers, ...read.headers } });
  return [read, ...others.filter((o) => deepEqual(agent.mcpServer(o), want))];
}

/** The instruction files, and the agents a text was found for. */
function importInstructions(
  o: ImportOptions,
  defaults: readonly string[],
  at: At,
  files: HomeFile[],
): { files: InstructionFile[]; found: string[] } {
  if (o.instructionPolicy === "skip") return { files: [], found: [] };
  const primaries = new Map(o.agents.map((a) => [a.manifest.id, at(a.manifest, a.manifest.instructions)]));
  const found: { agent: Agent; path: string; text: string }[] = [];
  for (const agent of o.agents) {
    const own = primaries.get(agent.manifest.id);
    const fallbacks = (agent.manifest.import?.instructionFallbacks ?? [])
      .map((p) => at(agent.manifest, p))
      // Another agent's own file is that agent's text, not this one's.
      .filter((p) => p !== null && ![...primaries].some(([id, q]) => id !== agent.manifest.id && q === p));
    for (const path of [own, ...fallbacks]) {
      if (!path) continue;
      const text = trimSpace(readText(path, []) ?? "");
      if (text === "") continue;
      found.push({ agent, path, text });
      break;
    }
  }
  const write = (rel: string, text: string, agents: readonly Agent[]): InstructionFile => {
    files.push({ rel, content: Buffer.from(`${text}\n`, "utf8"), mode: 0o644 });
    const ids = agents.map((a) => a.manifest.id);
    return o.agents.every((a) => ids.includes(a.manifest.id)) ? rel : { path: rel, targets: ids };
  };
  const ids = found.map((f) => f.agent.manifest.id);
  const result = (list: InstructionFile[]) => ({ files: list, found: ids });
  const texts = [...new Set(found.map((f) => f.text))];
  const all = found.map((f) => f.agent);
  const policy = o.instructionPolicy;
  if (texts.length === 0) {
    if (o.allAgents.includes(policy)) throw notFound(policy, at);
    return result([]);
  }
  if (o.allAgents.includes(policy)) {
    const f = found.find((x) => x.agent.manifest.id === policy);
    if (!f) throw notFound(policy, at);
    return result([write("instructions/imported.md", f.text, o.agents)]);
  }
  if (policy === "merge") return result([write("instructions/imported.md", texts.join("\n\n"), all)]);
  if (texts.length === 1) return result([write("instructions/imported.md", texts[0]!, all)]);
  if (policy === "per-agent") {
    return result(
      texts.map((text) => {
        const agents = found.filter((f) => f.text === text).map((f) => f.agent);
        return write(`instructions/${agents[0]!.manifest.id}.md`, text, agents);
      }),
    );
  }
  // The agents that have a text, and the default ones (the reference's message).
  const choices = [
    ...o.allAgents.filter((a) => defaults.includes(a) || ids.includes(a)),
    "merge",
    "per-agent",
  ];
  throw new KanonError(
    `agent instruction files differ; rerun with --instruction-policy ${choices.join(", ")}, or skip`,
  );
}

function notFound(policy: string, at: At): KanonError {
  const agent = AGENTS.find((a) => a.manifest.id === policy);
  const file = agent ? basename(at(agent.manifest, agent.manifest.instructions) ?? "") : "instructions";
  const who = agent?.manifest.displayName ?? policy;
  return new KanonError(
    `instruction policy ${JSON.stringify(policy)} selected but ${who} ${file} was not found`,
  );
}

interface FoundSkill {
  name: string;
  /** The folder name it was found under. */
  dir: string;
  hash: string;
  agents: string[];
}

/**
 * Skills (reference §5.8.3): each agent's roots in order; the same content under the same name is one
 * skill for every agent that has it; a different content under a taken name becomes `<agent>-<name>`.
 */
async function importSkills(
  o: ImportOptions,
  at: At,
  files: HomeFile[],
  warnings: string[],
): Promise<SkillEntry[]> {
  const ownRoots = new Map(o.agents.map((a) => [a.manifest.id, at(a.manifest, a.manifest.skills.root)]));
  const scanned: { id: string; root: string; found: ScannedSkill[] }[] = [];
  for (const agent of o.agents) {
    const id = agent.manifest.id;
    const roots = [agent.manifest.skills.root, ...(agent.manifest.import?.skillRoots ?? [])]
      .map((p) => at(agent.manifest, p))
      .filter((r, i, all): r is string => r !== null && all.indexOf(r) === i)
      // Another imported agent's own root holds that agent's skills.
      .filter((r) => ![...ownRoots].some(([other, root]) => other !== id && root === r));
    for (const root of roots) scanned.push({ id, root, found: await scanRoot(root, warnings) });
  }
  const providers = o.home ? providerSkills(o, o.home, ownRoots, scanned) : [];

  const skills: FoundSkill[] = [];
  for (const { id, root, found: list } of scanned) {
    for (const found of list) {
      const same = skills.find((s) => s.dir === found.dir && s.hash === found.hash);
      if (same) {
        if (!same.agents.includes(id)) same.agents.push(id);
        continue;
      }
      let name = found.dir;
      if (skills.some((s) => s.name === name)) {
        name = `${id}-${found.dir}`;
        for (let i = 2; skills.some((s) => s.name === name); i++) name = `${id}-${found.dir}-${i}`;
        warnings.push(
          `skill ${JSON.stringify(found.dir)} in ${root} differs from one already imported; imported as ${JSON.stringify(name)}`,
        );
      }
      skills.push({ name, dir: found.dir, hash: found.hash, agents: [id] });
      for (const f of found.files)
        files.push({ rel: `skills/${name}/${f.rel}`, content: f.content, mode: f.mode });
    }
  }
  // A skill every agent has needs no entry; homeAgents drops those entries once it counted them.
  const target = (agents: readonly string[]) => {
    const targets = o.allAgents.filter((a) => agents.includes(a));
    return targets.length < o.allAgents.length ? { targets } : {};
  };
  return [
    ...skills.map((s) => ({ name: s.name, ...target(s.agents) })),
    ...providers.map((p) => {
      const { targets: _, ...entry } = p.entry;
      return { ...entry, ...target(p.agents) };
    }),
  ];
}

/**
 * Git providers of the existing home whose every child skill an agent has, exactly as kanon renders
 * it, in its own skill root: those skills come back as the provider's entry (kanon.lock pins it),
 * not as local copies, for every agent that has them, whether the entry targets it yet or not
 * (`--merge` then widens its targets). They are taken out of `scanned`.
 */
function providerSkills(
  o: ImportOptions,
  home: Source,
  ownRoots: Map<string, string | null>,
  scanned: { id: string; root: string; found: ScannedSkill[] }[],
): { entry: SkillEntry; agents: string[] }[] {
  const out: { entry: SkillEntry; agents: string[] }[] = [];
  for (const provider of home.providers) {
    const agents: string[] = [];
    for (const agent of o.agents) {
      const id = agent.manifest.id;
      const own = scanned.find((x) => x.id === id && x.root === ownRoots.get(id));
      if (!own || provider.children.length === 0) continue;
      const names = provider.children.map((child) => {
        const name = providerSkillName(agent.manifest.skills.providerNaming, provider.name, child.name);
        const files = child.files.map((f) =>
          f.rel === "SKILL.md" && home.renameSkillMd
            ? { ...f, content: home.renameSkillMd(f.content, name) }
            : f,
        );
        return { name, key: skillKey(files) };
      });
      if (!names.every((n) => own.found.some((f) => f.dir === n.name && f.hash === n.key))) continue;
      own.found = own.found.filter((f) => !names.some((n) => n.name === f.dir));
      agents.push(id);
    }
    if (agents.length > 0) out.push({ entry: home.config.skills[provider.entryIndex]!, agents });
  }
  return out;
}

/** What makes two skill folders the same: their files and modes. */
const skillKey = (files: readonly TreeFile[]) =>
  hashSkillFiles(files) + files.map((f) => f.mode.toString(8)).join(",");

interface ScannedSkill {
  dir: string;
  hash: string;
  files: TreeFile[];
}

async function scanRoot(root: string, warnings: string[]): Promise<ScannedSkill[]> {
  let names: string[];
  try {
    names = readdirSync(root).sort(compareBytes);
  } catch {
    return [];
  }
  const out: ScannedSkill[] = [];
  for (const dir of names) {
    const abs = join(root, dir);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st || dir.startsWith(".")) continue;
    if (st.isSymbolicLink()) {
      if (statSync(abs, { throwIfNoEntry: false })?.isDirectory())
        warnings.push(
          `skipped skill ${abs}: it is a symlink to a folder kanon does not manage; copy it into the Kanon home to import it`,
        );
      continue;
    }
    if (!st.isDirectory() || !statSync(join(abs, "SKILL.md"), { throwIfNoEntry: false })?.isFile()) continue;
    try {
      const problem = (what: string) => (rel: string) => {
        throw new Error(`${join(abs, rel)} is ${what}`);
      };
      const files = await readTree(abs, {
        onSymlink: problem("a symlink"),
        onSpecial: problem("not a regular file"),
      });
      for (const f of files) if (f.content.length > MAX_SKILL_FILE) problem("larger than 10 MiB")(f.rel);
      out.push({ dir, hash: skillKey(files), files });
    } catch (e) {
      warnings.push(`skipped skill ${abs}: ${(e as Error).message}`);
    }
  }
  return out;
}
