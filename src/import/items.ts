/**
 * `kanon import` of commands and subagents: each agent's files in its folders for them, read back
 * through its manifest (field names, tool names, placeholder spellings, the TOML key of the body) into
 * neutral items, each checked by rendering it back for the agent: a file whose body would not come
 * back the same, or that the agent could not be given again, stays the agent's (a warning says why).
 * The same item found for several agents is one item; a different one under a taken name becomes
 * `<agent>-<name>`, as skills do.
 */
import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { AGENTS } from "../agents/index.js";
import { neutralArguments, translateArguments } from "../core/item-text.js";
import { decideItem, itemCapabilities, missingText } from "../core/items.js";
import { itemNameProblem } from "../core/names.js";
import { encodeFrontMatter, type FrontValue } from "../formats/front-matter.js";
import { isPlainObject } from "../formats/values.js";
import { READ_LIMIT, ReadRefused, readBounded } from "../model/bounded-read.js";
import type { ItemEntry, SkillEntry } from "../model/config.js";
import { osErrorText } from "../model/fs-errors.js";
import type {
  Agent,
  AgentManifest,
  CommandCapabilities,
  ScopedPath,
  SubagentCapabilities,
} from "../model/manifest.js";
import type { CommandItem, Item, SubagentItem } from "../model/source.js";
import { compareBytes } from "../model/text.js";
import type { Scope } from "../model/types.js";
import { SECTIONS, splitFrontMatter } from "../source/items.js";
import { unwritableChar } from "../source/limits.js";

/** Where a manifest path of an agent is in the scope imported from (core/homes.ts). */
type At = (m: AgentManifest, p: ScopedPath) => string | null;

/** A neutral item as import finds it: no targets, no file of the home yet. */
type Found =
  | Omit<CommandItem, "targets" | "at" | "file" | "bodyLine">
  | Omit<SubagentItem, "targets" | "at" | "file" | "bodyLine">;

/** One entry per item found (targets: the agents it was found for, when not every agent). */
export interface ImportedItems {
  commands: ItemEntry[];
  subagents: ItemEntry[];
}

/** An item found for one or more agents; `model` per agent, the rest the same for all of them. */
interface Merged {
  item: Found;
  agents: string[];
  models: Record<string, string>;
  /** Each agent's file it was read from. */
  paths: Record<string, string>;
}

export function importItems(
  agents: readonly Agent[],
  scope: Scope,
  at: At,
  allAgents: readonly string[],
  /** The files import writes into the home (read.ts HomeFile): each item's joins them. */
  files: { rel: string; content: Uint8Array; mode: number }[],
  warnings: string[],
  /** The skills imported with them (the home's entries): a command one of them hides is not taken. */
  skills: readonly SkillEntry[],
): ImportedItems {
  const out: ImportedItems = { commands: [], subagents: [] };
  for (const kind of ["command", "subagent"] as const) {
    const merged: Merged[] = [];
    for (const agent of agents) {
      for (const found of readAgentItems(agent.manifest, kind, scope, at, warnings)) {
        if (!hiddenBySkill(found, agent.manifest, skills, allAgents, warnings))
          add(merged, found, agent, scope, warnings);
      }
    }
    for (const m of merged) {
      const item = withModels(m);
      leftBehind(m, item.name, at, warnings);
      files.push({
        rel: `${SECTIONS[kind].folder}/${item.name}.md`,
        content: Buffer.from(neutralText(item), "utf8"),
        mode: 0o644,
      });
      const targets = allAgents.filter((a) => m.agents.includes(a));
      out[SECTIONS[kind].key].push({
        name: item.name,
        ...(targets.length < allAgents.length ? { targets } : {}),
      });
    }
  }
  return out;
}

/**
 * Whether the item is a command the agent never runs, since a skill of its name imported for the agent
 * wins (`skillNamesWin`): it stays the agent's, with a warning (rendered beside the skill, it would be
 * an error).
 */
function hiddenBySkill(
  found: { item: Found; path: string },
  m: AgentManifest,
  skills: readonly SkillEntry[],
  allAgents: readonly string[],
  warnings: string[],
): boolean {
  const caps = found.item.kind === "command" ? itemCapabilities(m, "command") : null;
  if (!caps || !("skillNamesWin" in caps) || !caps.skillNamesWin) return false;
  const name = found.item.name;
  const skill = skills.some((s) => !s.git && s.name === name && (s.targets ?? allAgents).includes(m.id));
  if (skill)
    warnings.push(
      `skipped ${m.id} command ${found.path}: ${m.displayName} ${caps.skillNamesWin}, and the skill ${JSON.stringify(name)} is imported`,
    );
  return skill;
}

/**
 * One agent's found item into the list. It is an item already found when one neutral item renders,
 * for every agent either was found for, what that agent has (its model aside: that is the agent's
 * own): the one found before, this one, or the two joined (the fields either has, the tools of both:
 * a tool or an argument hint one agent drops is another's). Another item under a taken name is
 * renamed.
 */
function add(
  merged: Merged[],
  found: { item: Found; path: string },
  agent: Agent,
  scope: Scope,
  warnings: string[],
): void {
  const id = agent.manifest.id;
  const model = (found.item as SubagentItem).model;
  const item = withoutModel(found.item);
  for (const m of merged) {
    if (m.item.name !== item.name) continue;
    const agents = [...m.agents.filter((a) => a !== id), id];
    const expected = (a: string) => rendered(a === id ? item : m.item, manifestOf(a), scope);
    // Joined both ways: where the two orders of the tools disagree, one may be a map's (no order).
    const keep = [m.item, item, joined(m.item, item), joined(item, m.item)].find((c) =>
      agents.every((a) => rendered(c, manifestOf(a), scope) === expected(a)),
    );
    if (!keep) continue;
    m.item = keep;
    m.agents = agents;
    m.paths[id] = found.path;
    if (typeof model === "string") m.models[id] = model;
    return;
  }
  let name = item.name;
  if (merged.some((m) => m.item.name === name)) {
    name = `${id}-${item.name}`;
    for (let i = 2; merged.some((m) => m.item.name === name); i++) name = `${id}-${item.name}-${i}`;
    // The name it was read under was checked; a longer one may no longer be a file name.
    const problem = itemNameProblem(name);
    if (problem) {
      warnings.push(
        `skipped ${id} ${item.kind} ${found.path}: it differs from one already imported, and the name ${JSON.stringify(name)} it would take ${problem}`,
      );
      return;
    }
    warnings.push(
      `${item.kind} ${JSON.stringify(item.name)} in ${found.path} differs from one already imported; imported as ${JSON.stringify(name)}`,
    );
  }
  merged.push({
    item: { ...item, name },
    agents: [id],
    models: typeof model === "string" ? { [id]: model } : {},
    paths: { [id]: found.path },
  });
}

/**
 * A file the item was read from that is not where kanon writes it for its agent (another folder the
 * agent reads, another file name, a name taken): the agent would read both, so the warning names it.
 */
function leftBehind(m: Merged, name: string, at: At, warnings: string[]): void {
  for (const [id, path] of Object.entries(m.paths)) {
    const manifest = manifestOf(id);
    const caps = itemCapabilities(manifest, m.item.kind)!;
    const root = at(manifest, caps.root);
    const dest = root && join(root, `${name}${caps.extension}`);
    if (dest && dest !== path)
      warnings.push(
        `imported ${path}: kanon writes it to ${dest}, and ${manifest.displayName} would read both, so remove ${path} once you have applied`,
      );
  }
}

/** Two readings of one item joined: the fields either has, and the tools of both, each list's order kept. */
function joined(a: Found, b: Found): Found {
  const out = { ...b, ...Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) } as Found;
  if (out.kind === "subagent" && a.kind === "subagent" && b.kind === "subagent" && a.tools && b.tools)
    out.tools = interleave(a.tools, b.tools);
  return out;
}

/** Both lists in one, each in its own order where they do not disagree (a tool in both is one). */
function interleave(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && a[i] === b[j]) {
      out.push(a[i++]!);
      j++;
    } else if (i < a.length && !b.slice(j).includes(a[i]!)) out.push(a[i++]!);
    else if (j < b.length && !a.slice(i).includes(b[j]!)) out.push(b[j++]!);
    else out.push(a[i++]!);
  }
  return [...new Set(out)];
}

const manifestOf = (id: string) => AGENTS.find((a) => a.manifest.id === id)!.manifest;

/** The item's file for the agent (its model aside), or null when the agent gets none. */
function rendered(item: Found, m: AgentManifest, scope: Scope): string | null {
  return decideItem(asItem(item, ""), m, scope.kind)?.native?.text ?? null;
}

/** A found item as the support check takes one. */
const asItem = (item: Found, file: string): Item =>
  ({ ...item, targets: undefined, at: { file: "" }, file, bodyLine: 1 }) as Item;

function withoutModel(item: Found): Found {
  const { model: _, ...rest } = item as SubagentItem;
  return rest as Found;
}

/** The item with its model: one name when every agent it was found for has the same, else one per agent. */
function withModels(m: Merged): Found {
  const models = Object.values(m.models);
  if (models.length === 0) return m.item;
  const one = models.length === m.agents.length && models.every((x) => x === models[0]);
  return { ...m.item, model: one ? models[0]! : m.models } as Found;
}

/** The item's file in the Kanon home: neutral front matter, then the body. */
export function neutralText(item: Found): string {
  const front: [string, FrontValue][] = [];
  if (item.description) front.push(["description", item.description]);
  if (item.kind === "command" && item.argumentHint) front.push(["argument-hint", item.argumentHint]);
  if (item.kind === "subagent") {
    if (item.tools) front.push(["tools", item.tools]);
    if (item.model) front.push(["model", item.model]);
  }
  return encodeFrontMatter(front, item.body);
}

/** The items of one kind in the agent's folders (its own, then the others it reads), each read back and checked. */
function readAgentItems(
  m: AgentManifest,
  kind: Item["kind"],
  scope: Scope,
  at: At,
  warnings: string[],
): { item: Found; path: string }[] {
  const caps = itemCapabilities(m, kind);
  if (!caps) return [];
  const extra = (kind === "command" ? m.import?.commandRoots : m.import?.subagentRoots) ?? [];
  const roots = [caps.root, ...extra].map((r) => at(m, r)).filter((r): r is string => r !== null);
  const out: { item: Found; path: string }[] = [];
  const seen = new Set<string>();
  for (const root of roots)
    for (const path of itemFiles(root, caps.extension, warnings)) {
      const item = readItem(m, caps, kind, path, scope, warnings);
      if (!item) continue;
      // The first folder the agent reads wins, as it does.
      if (seen.has(item.name)) continue;
      seen.add(item.name);
      out.push({ item, path });
    }
  return out;
}

/** The files `<name><extension>` at the top of a folder, in name order; what kanon cannot take back is named in a warning. */
function itemFiles(root: string, extension: string, warnings: string[]): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const d of entries.sort((a, b) => compareBytes(a.name, b.name))) {
    if (d.name.startsWith(".")) continue;
    const path = join(root, d.name);
    if (d.isDirectory()) warnings.push(`skipped ${path}: kanon imports the files at the top of ${root} only`);
    else if (d.name.endsWith(extension) && d.isSymbolicLink())
      warnings.push(`skipped ${path}: it is a symlink; copy the file into the Kanon home to import it`);
    else if (d.name.endsWith(extension) && d.isFile()) out.push(path);
  }
  return out;
}

/**
 * One native file back to a neutral item, or null (with a warning): a file kanon cannot parse, whose
 * fields it cannot take, or whose item would not render back the same for the agent.
 */
function readItem(
  m: AgentManifest,
  caps: CommandCapabilities | SubagentCapabilities,
  kind: Item["kind"],
  path: string,
  scope: Scope,
  warnings: string[],
): Found | null {
  const skip = (why: string) => {
    warnings.push(`skipped ${m.id} ${kind} ${path}: ${why}`);
    return null;
  };
  let text: string;
  try {
    const bytes = readBounded(path, { limit: READ_LIMIT.destination }).bytes;
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (e) {
    if (e instanceof TypeError) return skip("it is not UTF-8");
    return skip(e instanceof ReadRefused ? e.reason : osErrorText(e));
  }
  // The home's files are read as kanon.yaml is: a NUL or an unpaired surrogate is refused there.
  const bad = unwritableChar(text, false);
  if (bad) return skip(`it ${bad}`);
  let native: { fields: Record<string, unknown>; body: string };
  try {
    native = parseNative(text, caps);
  } catch (e) {
    return skip(`it does not parse (${(e as Error).message.split("\n")[0]})`);
  }
  const fileName = path.slice(path.lastIndexOf("/") + 1, -caps.extension.length);
  const read = neutralItem(m, caps, kind, native, fileName, warnings, path);
  if (typeof read === "string") return skip(read);
  const nameProblem = itemNameProblem(read.name);
  if (nameProblem) return skip(`the name ${JSON.stringify(read.name)} ${nameProblem}`);
  // Rendered back for the agent, it must be given again, with the same body.
  const d = decideItem(asItem(read, path), m, scope.kind);
  if (!d?.native) return skip(d?.missing ? missingText(d.missing) : "not rendered back");
  return sameBody(read, caps, native.body)
    ? read
    : skip("its text would not come back the same (the agent reads it otherwise than kanon's placeholders)");
}

/** The fields and body of a native file: Markdown front matter and body, or TOML keys and the body's key. */
function parseNative(
  text: string,
  caps: CommandCapabilities | SubagentCapabilities,
): { fields: Record<string, unknown>; body: string } {
  if (caps.format.kind === "toml") {
    const doc = parseToml(text.replace(/^\uFEFF/, "")) as Record<string, unknown>;
    const { [caps.format.prompt]: body, ...fields } = doc;
    if (typeof body !== "string") throw new Error(`no ${caps.format.prompt} string`);
    return { fields, body };
  }
  const parts = splitFrontMatter(text);
  if ("unclosed" in parts) throw new Error("the front matter has no closing --- line");
  const fields = parts.front === null ? {} : parseYaml(parts.front);
  if (fields !== null && !isPlainObject(fields)) throw new Error("the front matter is not a mapping");
  return { fields: fields ?? {}, body: parts.body };
}

/**
 * The neutral item of a native file's fields (each read through the manifest; any other field is
 * skipped with a warning), or why there is none.
 */
function neutralItem(
  m: AgentManifest,
  caps: CommandCapabilities | SubagentCapabilities,
  kind: Item["kind"],
  native: { fields: Record<string, unknown>; body: string },
  fileName: string,
  warnings: string[],
  path: string,
): Found | string {
  const fields = { ...native.fields };
  const take = (key: string | undefined): unknown => {
    if (key === undefined || !Object.hasOwn(fields, key)) return undefined;
    const v = fields[key];
    delete fields[key];
    return v;
  };
  const nameField = "nameField" in caps ? caps.nameField : undefined;
  const named = take(nameField);
  const name = typeof named === "string" && named.trim() ? named.trim() : fileName;
  for (const [k, v] of Object.entries(("fixed" in caps && caps.fixed) || {}))
    if (take(k) !== v) return `its ${k} is not ${JSON.stringify(v)}`;
  const string = (
    neutral: string,
    support: { support: string; name?: string },
  ): string | undefined | Error => {
    const v = support.support === "native" ? take(support.name) : undefined;
    if (v === undefined || v === null) return undefined;
    return typeof v === "string" ? v.trim() || undefined : new Error(`its ${neutral} is not a string`);
  };
  const description = string("description", caps.fields.description);
  if (description instanceof Error) return description.message;
  const body = neutralArguments(
    native.body,
    kind === "command" ? (caps as CommandCapabilities).arguments : NO_ARGUMENTS,
  );
  if ("problem" in body) return body.problem;
  const base = { name, ...(description ? { description } : {}), body: body.text };
  let item: Found;
  if (kind === "command") {
    const hint = string("argument-hint", (caps as CommandCapabilities).fields["argument-hint"]);
    if (hint instanceof Error) return hint.message;
    item = { kind, ...base, ...(hint ? { argumentHint: hint } : {}) };
  } else {
    const sub = caps as SubagentCapabilities;
    const tools = neutralTools(
      take(sub.fields.tools.support === "native" ? sub.fields.tools.name : undefined),
      sub,
    );
    if (tools instanceof Error) return tools.message;
    const model = string("model", sub.fields.model);
    if (model instanceof Error) return model.message;
    const inherit = model === sub.inherit ? "inherit" : model;
    if (!description) return "it has no description, which kanon requires of a subagent";
    if (!body.text.trim()) return "its system prompt is empty";
    item = { kind, ...base, ...(tools ? { tools } : {}), ...(inherit ? { model: inherit } : {}) };
  }
  for (const key of Object.keys(fields))
    warnings.push(`skipped unsupported ${m.id} ${kind} field ${JSON.stringify(key)} in ${path}`);
  return item;
}

/** A subagent's body has no placeholders. */
const NO_ARGUMENTS = { all: null, positional: null, unplaced: "" } as const;

/** The tool list in neutral names (a name the table does not map stays as the agent wrote it). */
function neutralTools(value: unknown, caps: SubagentCapabilities): string[] | undefined | Error {
  if (value === undefined || value === null) return undefined;
  let names: string[];
  if (typeof value === "string")
    names = value
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
  else if (Array.isArray(value) && value.every((t) => typeof t === "string"))
    names = value.map((t) => t.trim());
  else if (isPlainObject(value) && typeof caps.toolList === "object") {
    // A map switches tools off and on: the list is what it leaves on; all of them when it switches
    // nothing off.
    const named = Object.keys(value).filter((t) => t !== "*");
    if (value["*"] !== false && named.every((t) => value[t] !== false)) return undefined;
    const all = value["*"] === false ? named : [...new Set([...caps.toolList.map.builtIn, ...named])];
    names = all.filter((t) => (value[t] ?? value["*"] ?? true) === true);
  } else return new Error("its tools are not a list of names");
  if (names.includes("*")) return undefined;
  if (names.some((n) => n.includes(",") || n === ""))
    return new Error("a tool name in it is empty or holds a comma");
  const neutral: string[] = [];
  for (const n of names) {
    const back = Object.entries(caps.tools).find(([, natives]) => natives.includes(n))?.[0] ?? n;
    if (!neutral.includes(back)) neutral.push(back);
  }
  return neutral;
}

/** Whether the neutral body spells, for the agent, the body it was read from. */
function sameBody(item: Found, caps: CommandCapabilities | SubagentCapabilities, body: string): boolean {
  if (item.kind !== "command") return true;
  const back = translateArguments(item.body, (caps as CommandCapabilities).arguments, "");
  return "text" in back && back.text === body;
}
