/**
 * Source state → target state. A pure function: everything it needs was loaded into `Source`, and
 * what each agent gets comes from its manifest plus its small native-format functions.
 */
import { join, sep } from "node:path";
import { encodeJson } from "../formats/json.js";
import { encodeToml } from "../formats/toml.js";
import { encodeText } from "../formats/utf8.js";
import type { Agent, ScopedPath } from "../model/manifest.js";
import type { Source } from "../model/source.js";
import { compareBytes, joinInstructions } from "../model/text.js";
import { KanonError, type Scope, type TargetFile } from "../model/types.js";
import { agentPath } from "./homes.js";
import type { HookDecision } from "./hooks/support.js";
import { nativeHooks, targetsAgent } from "./hooks/support.js";
import { type ItemDecision, itemCapabilities } from "./items.js";
import type { McpDecision } from "./mcp.js";
import { itemNameProblem, relativeProblem, segmentProblem } from "./names.js";
import { providerSkillName } from "./skill-names.js";

/** Bytes of instruction files that are not UTF-8 were decoded as escapes (formats/utf8.ts) and come back as they were. */
const text = (s: string) => encodeText(s);

export interface RenderInput {
  source: Source;
  scope: Scope;
  agents: readonly Agent[];
  /** Hook decisions from validation (only rendered and translated ones are written). */
  decisions: readonly HookDecision[];
  /**
   * kanon's hook runner on this machine (src/runner/): written when a rendered hook has the neutral
   * envelope, owned like every rendered file, so removing the last such hook removes it too.
   */
  runner?: { path: string; content: string };
  /** MCP server decisions from validation: each agent gets the servers decided for it, as decided. */
  mcp: readonly McpDecision[];
  /** Command and subagent decisions from validation: each agent gets the files decided for it. */
  items: readonly ItemDecision[];
}

export function renderAll(input: RenderInput): TargetFile[] {
  const files: TargetFile[] = [];
  for (const agent of input.agents) files.push(...renderAgent(agent, input));
  const runner = runnerFile(input);
  if (runner) files.push(runner);
  return dedupeAndSort(files);
}

/** The runner, owned by every rendered agent that has a neutral hook (kept until none has). */
function runnerFile({ agents, decisions, runner }: RenderInput): TargetFile | null {
  const users = agents
    .map((a) => a.manifest.id)
    .filter((id) => nativeHooks(decisions, id).some((h) => h.neutral));
  if (!runner || users.length === 0) return null;
  const [agent, ...others] = users;
  return {
    agent: agent!,
    path: runner.path,
    content: text(runner.content),
    mode: 0o644,
    ...(others.length > 0 ? { sharedWith: others } : {}),
  };
}

function renderAgent(agent: Agent, { source, scope, decisions, mcp, items }: RenderInput): TargetFile[] {
  const m = agent.manifest;
  const at = (p: ScopedPath) => agentPath(m, p, scope);
  const out: TargetFile[] = [];

  const instructionsPath = at(m.instructions);
  const instructions = joinInstructions(
    source.instructions.filter((i) => targetsAgent(i.targets, m.id)).map((i) => i.text),
  );
  if (instructions !== null && instructionsPath) {
    out.push({ agent: m.id, path: instructionsPath, content: text(instructions), mode: 0o644 });
  }

  const skillRoot = at(m.skills.root);
  // Each skill rendered for the agent, by name: what rendered it (`skill "x"`, a provider's).
  const skillOwners = new Map<string, string>();
  if (skillRoot) out.push(...renderSkills(agent, source, skillRoot, skillOwners));

  const mcpPath = at(m.mcp.file);
  // Disabled and untargeted servers have no decision; one left out has nothing to render.
  const decided = mcp.filter((d) => d.agent === m.id && d.render);
  const servers = decided.map((d) => [d.server, d.render!] as const).sort(([a], [b]) => compareBytes(a, b));
  if (mcpPath && servers.length > 0) {
    const managed = {
      [m.mcp.key]: Object.fromEntries(servers.map(([name, s]) => [name, agent.mcpServer(s)])),
    };
    const content = m.mcp.format === "toml" ? encodeToml(managed) : encodeJson(managed);
    const alternatives = (m.mcp.alternatives ?? []).map(at).filter((p): p is string => p !== null);
    out.push({
      agent: m.id,
      path: mcpPath,
      content: text(content),
      // A value kanon resolved at apply may be a secret: a file kanon creates for it is private.
      mode: decided.some((d) => d.resolved.length > 0) ? 0o600 : 0o644,
      merge: { kind: "entries", format: m.mcp.format, key: m.mcp.key },
      managed,
      ...(m.mcp.implied ? { implied: { [m.mcp.key]: m.mcp.implied } } : {}),
      ...(alternatives.length > 0 ? { alternatives } : {}),
    });
  }

  out.push(...renderItems(agent, items, scope, skillOwners));

  const hookPath = at(m.hooks.file);
  const natives = nativeHooks(decisions, m.id);
  const hookFile = hookPath ? agent.hookFile(natives) : null;
  if (hookPath && hookFile) {
    out.push({
      agent: m.id,
      path: hookPath,
      content: text(hookFile.content),
      mode: 0o644,
      ...(hookFile.merge ? { merge: hookFile.merge, managed: hookFile.managed ?? {} } : {}),
      ...(hookFile.elided ? { elided: hookFile.elided } : {}),
    });
  }
  return out;
}

/**
 * The agent's command and subagent files, one per item, in its folder for each: whole files kanon
 * owns (the user's own files beside them are never touched). The destination boundary: the file name
 * is the item's checked name and the agent's extension, one segment below the folder. A command named
 * like a skill rendered for an agent whose skill wins (`skillNamesWin`) duplicates it, as two skills
 * of one name do.
 */
function renderItems(
  agent: Agent,
  items: readonly ItemDecision[],
  scope: Scope,
  skillOwners: ReadonlyMap<string, string>,
): TargetFile[] {
  const m = agent.manifest;
  const out: TargetFile[] = [];
  for (const d of items) {
    if (d.agent !== m.id || !d.native) continue;
    const caps = itemCapabilities(m, d.item.kind);
    const root = caps && agentPath(m, caps.root, scope);
    const problem = itemNameProblem(d.item.name) ?? segmentProblem(d.native.file);
    if (problem) throw new KanonError(`${d.item.kind} ${JSON.stringify(d.item.name)}: the name ${problem}`);
    if (!root) continue;
    const skill = caps && "skillNamesWin" in caps && caps.skillNamesWin && skillOwners.get(d.item.name);
    if (skill)
      throw new KanonError(
        `${d.item.at.file}command ${JSON.stringify(d.item.name)} duplicates ${skill} for ${m.id}: ${m.displayName} ${caps.skillNamesWin}; rename one of them, or target them at different agents`,
      );
    out.push({ agent: m.id, path: join(root, d.native.file), content: text(d.native.text), mode: 0o644 });
  }
  return out;
}

function renderSkills(agent: Agent, source: Source, root: string, owners: Map<string, string>): TargetFile[] {
  const id = agent.manifest.id;
  const out: TargetFile[] = [];
  const claim = (name: string, owner: string) => {
    const prior = owners.get(name);
    if (prior) throw new KanonError(`skill "${name}" from ${owner} duplicates ${prior}`);
    owners.set(name, owner);
  };
  for (const skill of source.localSkills) {
    if (!targetsAgent(skill.targets, id)) continue;
    const owner = `skill ${JSON.stringify(skill.name)}`;
    claim(skill.name, owner);
    const at = skillPaths(root, skill.name, owner);
    for (const f of skill.files) out.push({ agent: id, path: at(f.rel), content: f.content, mode: f.mode });
  }
  for (const provider of source.providers) {
    if (!targetsAgent(provider.targets, id)) continue;
    for (const child of provider.children) {
      const name = providerSkillName(agent.manifest.skills.providerNaming, provider.name, child.name);
      const owner = `git skill provider ${JSON.stringify(provider.name)}`;
      claim(name, owner);
      const at = skillPaths(root, name, `${owner} skill ${JSON.stringify(child.name)}`);
      for (const f of child.files) {
        const content = f.rel === "SKILL.md" ? source.renameSkillMd!(f.content, name) : f.content;
        out.push({ agent: id, path: at(f.rel), content, mode: f.mode });
      }
    }
  }
  return out;
}

/**
 * The destination boundary for skills: a skill named `name` writes only below `<root>/<name>/`, and
 * only when `name` is one safe folder name and each file's path stays below that folder.
 */
function skillPaths(root: string, name: string, owner: string): (rel: string) => string {
  const problem = segmentProblem(name);
  if (problem) throw new KanonError(`${owner}: the skill name ${JSON.stringify(name)} ${problem}`);
  const dir = join(root, name);
  // `dir` and `path` are normalised (join): below it is a prefix test, not isInside's resolve and
  // relative (18,000 paths: ~55 ms of CPU against ~110 ms; the large home renders 4,500).
  const below = `${dir}${sep}`;
  return (rel) => {
    const path = join(dir, rel);
    const bad = relativeProblem(rel) ?? (path.startsWith(below) ? null : "leaves the skill folder");
    if (bad) throw new KanonError(`${owner}: the file ${JSON.stringify(rel)} ${bad}`);
    return path;
  };
}

/**
 * Two agents may render the same path (project AGENTS.md for Codex and OpenCode): identical files
 * are kept once (the first agent's, naming the others in `sharedWith`); different ones are an error. One co-owned file may get several
 * managed regions (Gemini settings.json: `mcpServers` and `hooks`): they become one file that merges
 * each region. Sorted by path bytes, then agent.
 */
export function dedupeAndSort(files: TargetFile[]): TargetFile[] {
  const byPath = new Map<string, TargetFile>();
  for (const f of files) {
    const prior = byPath.get(f.path);
    if (!prior) {
      byPath.set(f.path, f);
      continue;
    }
    const regions = combineRegions(prior, f);
    if (regions) {
      byPath.set(f.path, regions);
      continue;
    }
    const same =
      prior.mode === f.mode &&
      JSON.stringify(prior.merge) === JSON.stringify(f.merge) &&
      Buffer.compare(Buffer.from(prior.content), Buffer.from(f.content)) === 0;
    if (!same)
      throw new KanonError(
        `multiple agents render different content for ${f.path} (${prior.agent} and ${f.agent})`,
      );
    byPath.set(f.path, { ...prior, sharedWith: [...(prior.sharedWith ?? []), f.agent] });
  }
  return [...byPath.values()].sort((a, b) => compareBytes(a.path, b.path) || compareBytes(a.agent, b.agent));
}

/** One JSON file with the managed regions of both, when both are co-owned JSON files with distinct keys. */
function combineRegions(a: TargetFile, b: TargetFile): TargetFile | null {
  if (!a.merge || !b.merge || a.merge.format !== b.merge.format || a.merge.format === "toml") return null;
  if (a.alternatives || b.alternatives) return null;
  const regions = [a.merge, b.merge].flatMap((m) => (m.kind === "regions" ? m.regions : [m]));
  const keys = regions.map((r) => r.key);
  if (new Set(keys).size !== keys.length) return null;
  const managed = { ...a.managed, ...b.managed };
  const implied = { ...a.implied, ...b.implied };
  return {
    agent: a.agent,
    path: a.path,
    content: text(encodeJson(managed)),
    mode: a.mode,
    merge: { kind: "regions", format: a.merge.format, regions },
    managed,
    ...(Object.keys(implied).length > 0 ? { implied } : {}),
  };
}
