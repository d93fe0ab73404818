/**
 * `kanon import`: the machine's native agent files → a neutral kanon.yaml plus the instruction and
 * skill files it references (reference §5.8). This is the edge that reads the disk; the reverse maps
 * live in each agent's folder and in core/import.
 */
import { lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { type ParseError, parse as parseJsonc, printParseErrorCode } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { AGENTS } from "../agents/index.js";
import { type FoundHooks, type HookNames, importHooks } from "../core/import/hooks.js";
import { type FoundServer, importServers } from "../core/import/mcp.js";
import { secretWarnings } from "../core/import/secrets.js";
import { destination } from "../core/render.js";
import { isPlainObject } from "../formats/values.js";
import type { InstructionFile, KanonConfig, SkillEntry } from "../model/config.js";
import type { Agent, ScopedPath } from "../model/manifest.js";
import type { TreeFile } from "../model/source.js";
import { compareBytes, trimSpace } from "../model/text.js";
import { KanonError, type Scope } from "../model/types.js";
import { hashSkillFiles } from "../providers/hash.js";
import { readTree } from "../providers/tree.js";

export const INSTRUCTION_POLICIES = ["auto", "merge", "per-agent", "skip"] as const;

export interface ImportOptions {
  /** Agents to read (`--agent`), in registry order. */
  agents: readonly Agent[];
  /** Every registered agent id: an entry found in all of them needs no targets. */
  allAgents: readonly string[];
  scope: Scope;
  instructionPolicy: string;
  secretPolicy: string;
  hookNames: HookNames;
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
  warnings: string[];
}

/** A skill file larger than this is not copied (the skill is skipped with a warning). */
const MAX_SKILL_FILE = 10 * 1024 * 1024;

export function checkPolicies(
  o: Pick<ImportOptions, "secretPolicy" | "instructionPolicy" | "allAgents">,
): void {
  if (o.secretPolicy !== "keep")
    throw new KanonError(
      `unsupported secret policy ${JSON.stringify(o.secretPolicy)}; only "keep" is implemented`,
    );
  const policies = [...o.allAgents, ...INSTRUCTION_POLICIES];
  if (!policies.includes(o.instructionPolicy))
    throw new KanonError(`unsupported instruction policy ${JSON.stringify(o.instructionPolicy)}`);
}

export async function importMachine(o: ImportOptions): Promise<Imported> {
  checkPolicies(o);

  const warnings: string[] = [];
  const files: HomeFile[] = [];
  const at = (p: ScopedPath) => destination(p, o.scope);

  const instructions = importInstructions(o, at, files);
  const skills = await importSkills(o, at, files, warnings);

  const servers: FoundServer[] = [];
  const hooks: FoundHooks[] = [];
  for (const agent of o.agents) {
    const m = agent.manifest;
    if (!m.import || !agent.readMcpServer) {
      warnings.push(`${m.displayName} settings are not importable yet`);
      continue;
    }
    servers.push(...readMcpFile(agent, at, warnings));
    const hookPath = at(m.hooks.file);
    if (!hookPath || !agent.readHooks) continue;
    for (const other of agent.unreadableHookFiles?.(hookPath) ?? [])
      warnings.push(
        `skipped ${other}: ${m.displayName} hooks are imported only from the ${basename(hookPath)} kanon generates`,
      );
    const text = readText(hookPath, warnings);
    if (text === null) continue;
    try {
      const read = agent.readHooks(text);
      if (m.import.hookFile && read.document !== undefined)
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

  return {
    config: {
      version: 1,
      instructions: { files: instructions },
      skills,
      mcp: { servers: mcp.servers },
      hooks: neutralHooks.hooks,
      metadata: { generated_by: "kanon import" },
    },
    files,
    warnings,
  };
}

/** The text of a file, or null when it is missing, empty or unreadable (the last with a warning). */
function readText(path: string, warnings: string[]): string | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR")
      warnings.push(`could not read ${path}: ${(e as Error).message}`);
    return null;
  }
  return text.trim() === "" ? null : text;
}

function parseDocument(text: string, format: "json" | "jsonc" | "toml"): unknown {
  const body = text.replace(/^\uFEFF/, "");
  if (format === "toml") return parseToml(body);
  if (format === "json") return JSON.parse(body);
  const errors: ParseError[] = [];
  const value = parseJsonc(body, errors, { allowTrailingComma: true });
  if (errors.length > 0)
    throw new Error(`${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}`);
  return value;
}

function readMcpFile(agent: Agent, at: (p: ScopedPath) => string | null, warnings: string[]): FoundServer[] {
  const m = agent.manifest;
  const label = m.import!.mcpFile;
  const path = [m.mcp.file, ...(m.mcp.alternatives ?? [])]
    .map(at)
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
  warnings.push(...secretWarnings(doc, `${m.id}.${label.secretPath}`));
  const out: FoundServer[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (key !== m.mcp.key) {
      warnings.push(
        ...(agent.readOtherMcpKey?.(key, value) ?? [
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
      const read = agent.readMcpServer!(name, value[name]);
      warnings.push(...read.warnings);
      if (read.server) out.push({ agent, name, server: read.server });
    }
  }
  return out;
}

function importInstructions(
  o: ImportOptions,
  at: (p: ScopedPath) => string | null,
  files: HomeFile[],
): InstructionFile[] {
  if (o.instructionPolicy === "skip") return [];
  const primaries = new Map(o.agents.map((a) => [a.manifest.id, at(a.manifest.instructions)]));
  const found: { agent: Agent; path: string; text: string }[] = [];
  for (const agent of o.agents) {
    const own = primaries.get(agent.manifest.id);
    const fallbacks = (agent.manifest.import?.instructionFallbacks ?? [])
      .map(at)
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
  const texts = [...new Set(found.map((f) => f.text))];
  const all = found.map((f) => f.agent);
  const policy = o.instructionPolicy;
  if (texts.length === 0) {
    if (o.allAgents.includes(policy)) throw notFound(policy, at);
    return [];
  }
  if (o.allAgents.includes(policy)) {
    const f = found.find((x) => x.agent.manifest.id === policy);
    if (!f) throw notFound(policy, at);
    return [write("instructions/imported.md", f.text, o.agents)];
  }
  if (policy === "merge") return [write("instructions/imported.md", texts.join("\n\n"), all)];
  if (texts.length === 1) return [write("instructions/imported.md", texts[0]!, all)];
  if (policy === "per-agent") {
    return texts.map((text) => {
      const agents = found.filter((f) => f.text === text).map((f) => f.agent);
      return write(`instructions/${agents[0]!.manifest.id}.md`, text, agents);
    });
  }
  const choices = [...o.allAgents, "merge", "per-agent"];
  throw new KanonError(
    `agent instruction files differ; rerun with --instruction-policy ${choices.join(", ")}, or skip`,
  );
}

function notFound(policy: string, at: (p: ScopedPath) => string | null): KanonError {
  const agent = AGENTS.find((a) => a.manifest.id === policy);
  const file = agent ? basename(at(agent.manifest.instructions) ?? "") : "instructions";
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
  at: (p: ScopedPath) => string | null,
  files: HomeFile[],
  warnings: string[],
): Promise<SkillEntry[]> {
  const ownRoots = new Map(o.agents.map((a) => [a.manifest.id, at(a.manifest.skills.root)]));
  const skills: FoundSkill[] = [];
  for (const agent of o.agents) {
    const id = agent.manifest.id;
    const roots = [agent.manifest.skills.root, ...(agent.manifest.import?.skillRoots ?? [])]
      .map(at)
      .filter((r, i, all): r is string => r !== null && all.indexOf(r) === i)
      // Another imported agent's own root holds that agent's skills.
      .filter((r) => ![...ownRoots].some(([other, root]) => other !== id && root === r));
    for (const root of roots) {
      for (const found of await scanRoot(root, warnings)) {
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
  }
  return skills
    .map((s) => ({ s, targets: o.allAgents.filter((a) => s.agents.includes(a)) }))
    .filter(({ targets }) => targets.length < o.allAgents.length)
    .map(({ s, targets }) => ({ name: s.name, targets }));
}

async function scanRoot(
  root: string,
  warnings: string[],
): Promise<{ dir: string; hash: string; files: TreeFile[] }[]> {
  let names: string[];
  try {
    names = readdirSync(root).sort(compareBytes);
  } catch {
    return [];
  }
  const out: { dir: string; hash: string; files: TreeFile[] }[] = [];
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
      const hash = hashSkillFiles(files) + files.map((f) => f.mode.toString(8)).join(",");
      out.push({ dir, hash, files });
    } catch (e) {
      warnings.push(`skipped skill ${abs}: ${(e as Error).message}`);
    }
  }
  return out;
}
