/**
 * The home's slash commands (`commands/<name>.md`) and subagents (`agents/<name>.md`), discovered like
 * local skills: every such file of the folder, in name order, not hidden, read as the home's files
 * (home-files.ts); kanon.yaml's `commands:` and `subagents:` entries of the same name target or
 * disable it, and an entry with a `path` renames the file it names. The front matter is decoded
 * against its schema (schema.ts), so that every mistake is one line with `FILE:LINE:COL`.
 */
import { type Dirent, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { itemNameProblem } from "../core/names.js";
import { decodeBytes, ESCAPED_BYTE } from "../formats/utf8.js";
import { ReadRefused } from "../model/bounded-read.js";
import type { ItemEntry, KanonConfig } from "../model/config.js";
import { statError } from "../model/fs-errors.js";
import type { Item, Paths } from "../model/source.js";
import { compareBytes, conflictMarkerLine, newlines } from "../model/text.js";
import { homeRead, readHomeFile } from "./home-files.js";
import { conflictError, resolveHomePath } from "./load.js";
import { commandFrontMatter, type Schema, subagentFrontMatter } from "./schema.js";

/** Where a value of kanon.yaml is, as a message prefix (`kanon.yaml:LINE:COL: `), or "". */
type At = (...path: (string | number)[]) => string;

export interface LoadedItems {
  /** Commands, then subagents, each in name order. */
  items: Item[];
  /** Names a kanon.yaml entry disables, per kind. */
  disabled: { command: string[]; subagent: string[] };
  errors: string[];
  warnings: string[];
}

interface Section {
  kind: Item["kind"];
  /** kanon.yaml's section. */
  key: "commands" | "subagents";
  /** The home's folder. */
  folder: "commands" | "agents";
}

/** Each kind's section, commands first (the order items load and are decided in). */
export const SECTIONS: Readonly<Record<Item["kind"], Section>> = {
  command: { kind: "command", key: "commands", folder: "commands" },
  subagent: { kind: "subagent", key: "subagents", folder: "agents" },
};

/** One item to read: its name, its file, and kanon.yaml's entry for it (if any). */
interface Planned {
  name: string;
  path: string;
  /** The file as messages name it. */
  file: string;
  entry?: { value: ItemEntry; index: number };
}

/** What every step of loading a section reads and adds to. */
interface Loading {
  section: Section;
  paths: Paths;
  agentIds: readonly string[];
  at: At;
  out: LoadedItems;
}

export async function loadItems(
  config: KanonConfig,
  paths: Paths,
  agentIds: readonly string[],
  at: At,
): Promise<LoadedItems> {
  const out: LoadedItems = { items: [], disabled: { command: [], subagent: [] }, errors: [], warnings: [] };
  for (const section of Object.values(SECTIONS)) {
    const l: Loading = { section, paths, agentIds, at, out };
    for (const p of planSection(l, config[section.key] ?? [])) await readItem(l, p);
  }
  return out;
}

const q = (s: string) => JSON.stringify(s);

/** The section's entries checked, then its folder's files with them: what to read, in name order. */
function planSection(l: Loading, entries: readonly ItemEntry[]): Planned[] {
  const { section, paths, at, out } = l;
  const { kind, key, folder } = section;
  const byName = new Map<string, { value: ItemEntry; index: number }>();
  // A file an entry names by path is that entry's item, whatever the file is called (the entry's index).
  const claimed = new Map<string, number>();
  entries.forEach((value, index) => {
    const name = (value.name ?? "").trim();
    if (!name) {
      if (value.enabled !== false) out.errors.push(`${at(key, index)}${kind} name cannot be empty`);
      return;
    }
    const problem = itemNameProblem(name);
    if (problem) {
      out.errors.push(`${at(key, index, "name")}${kind} ${q(name)}: the name ${problem}`);
      return;
    }
    const first = byName.get(name);
    if (first) {
      const firstAt = at(key, first.index).replace(/: $/, "");
      out.errors.push(
        `${at(key, index, "name")}${kind} ${q(name)}: duplicate name${firstAt ? ` (first at ${firstAt})` : ""}`,
      );
      return;
    }
    (value.targets ?? []).forEach((t, i) => {
      if (t !== "all" && !l.agentIds.includes(t))
        out.errors.push(`${at(key, index, "targets", i)}${kind} ${q(name)} has unsupported target ${q(t)}`);
    });
    byName.set(name, { value, index });
    if (value.path) claimed.set(resolveHomePath(value.path, paths.home, paths.userHome), index);
  });

  const planned: Planned[] = [];
  const dir = join(paths.home, folder);
  for (const fileName of folderFiles(dir, out.errors)) {
    const path = join(dir, fileName);
    if (claimed.has(path)) continue;
    const name = fileName.slice(0, -".md".length);
    const entry = byName.get(name);
    if (entry?.value.path) {
      out.errors.push(
        `${at(key, entry.index, "path")}${kind} ${q(name)}: ${folder}/${fileName} has this name too; rename one of them`,
      );
      continue;
    }
    byName.delete(name);
    if (entry?.value.enabled === false) {
      out.disabled[kind].push(name);
      continue;
    }
    const problem = itemNameProblem(name);
    if (problem) out.errors.push(`${folder}/${fileName}: ${kind} ${q(name)}: the file name ${problem}`);
    else planned.push({ name, path, file: `${folder}/${fileName}`, ...(entry ? { entry } : {}) });
  }
  // Entries without a file of their name in the folder: their path, or a file that must exist.
  for (const [name, entry] of byName) {
    if (entry.value.enabled === false) {
      out.disabled[kind].push(name);
      continue;
    }
    const rel = entry.value.path ?? `${folder}/${name}.md`;
    const path = resolveHomePath(rel, paths.home, paths.userHome);
    const renamedBy = entry.value.path ? undefined : claimed.get(path);
    if (renamedBy !== undefined) {
      const by = at(key, renamedBy, "path").replace(/: $/, "");
      out.errors.push(
        `${at(key, entry.index, "name")}${kind} ${q(name)}: ${rel} renders as ${q(entries[renamedBy]!.name!.trim())}${by ? ` (${by})` : ""}; remove this entry or that path`,
      );
      continue;
    }
    planned.push({ name, path, file: rel, entry });
  }
  return planned.sort((a, b) => compareBytes(a.name, b.name));
}

/** The `<name>.md` files of a folder of the home (not hidden), sorted; none when it is missing. */
function folderFiles(dir: string, errors: string[]): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") errors.push(statError(dir, e).replace(/^stat/, "read"));
    return [];
  }
  return entries
    .filter((d) => !d.name.startsWith(".") && d.name.endsWith(".md") && !d.isDirectory())
    .map((d) => d.name)
    .sort(compareBytes);
}

/** One item's file read and decoded into `l.out` (its errors and warnings too). */
async function readItem(l: Loading, p: Planned): Promise<void> {
  const { kind, key } = l.section;
  const { errors } = l.out;
  const who = `${kind} ${q(p.name)}`;
  const entryAt = p.entry ? l.at(key, p.entry.index) : "";
  let bytes: Buffer;
  try {
    bytes = readHomeFile(homeRead(p.path, l.paths.home, false));
  } catch (e) {
    if (e instanceof ReadRefused) errors.push(`${entryAt}${who}: ${e.message}`);
    else errors.push(`${entryAt}${who}: ${statError(p.path, e).replace(/^stat/, "open")}`);
    return;
  }
  const text = decodeBytes(bytes);
  const invalid = text.search(ESCAPED_BYTE);
  if (invalid >= 0) {
    const byte = text.charCodeAt(invalid) - 0xdc00;
    errors.push(
      `${p.file}:${newlines(text, invalid) + 1}: byte 0x${byte.toString(16).toUpperCase()} is not valid UTF-8; save ${basename(p.file)} as UTF-8`,
    );
    return;
  }
  const nul = text.indexOf("\u0000");
  if (nul >= 0) {
    errors.push(
      `${p.file}:${newlines(text, nul) + 1}: ${who}: contains a NUL character, which no agent can take`,
    );
    return;
  }
  const conflict = conflictMarkerLine(text);
  if (conflict !== null) {
    errors.push(conflictError(`${p.file}:${conflict}`).message);
    return;
  }
  const parts = splitFrontMatter(text);
  if ("unclosed" in parts) {
    errors.push(`${p.file}:1: ${who}: the front matter has no closing --- line`);
    return;
  }
  const front = parts.front === null ? null : await decodeFrontMatter(l, p, parts.front);
  if (front === undefined) return;
  l.out.items.push(itemOf(l, p, front ?? { value: {}, at: () => `${p.file}:1: ` }, parts));
}

/** The YAML between a first line `---` and the next `---` (or `...`) line, and the body after it. */
export function splitFrontMatter(
  text: string,
): { front: string | null; body: string; bodyLine: number } | { unclosed: true } {
  const start = text.startsWith("\uFEFF") ? 1 : 0;
  const firstEnd = text.indexOf("\n", start);
  const first = text.slice(start, firstEnd < 0 ? text.length : firstEnd);
  if (first.trimEnd() !== "---") return { front: null, body: text.slice(start), bodyLine: 1 };
  let line = 2;
  for (let at = firstEnd + 1; at > 0 && at <= text.length; line++) {
    const end = text.indexOf("\n", at);
    const content = text.slice(at, end < 0 ? text.length : end).trimEnd();
    if (content === "---" || content === "...") {
      const front = text.slice(firstEnd + 1, at);
      return { front, body: end < 0 ? "" : text.slice(end + 1), bodyLine: line + 1 };
    }
    if (end < 0) break;
    at = end + 1;
  }
  return { unclosed: true };
}

interface FrontMatter {
  value: Record<string, unknown>;
  /** The position of a value in the file, as a message prefix. */
  at: (...path: (string | number)[]) => string;
}

/**
 * The front matter decoded against the kind's schema; undefined when it has errors (added to `l.out`).
 * Positions count the file's lines: the decoded text starts with the `---` line's newline. They are
 * found only for a message (a second parse), so a valid file is parsed once.
 */
async function decodeFrontMatter(l: Loading, p: Planned, front: string): Promise<FrontMatter | undefined> {
  const text = `\n${front}`;
  const { decodeYaml, locator } = await import("./decode.js");
  const decoded = decodeYaml(text, p.file, frontMatterSchema(l.section.kind, l.agentIds));
  l.out.warnings.push(...decoded.warnings);
  if (decoded.errors.length > 0) {
    l.out.errors.push(...decoded.errors);
    return undefined;
  }
  let locate: ReturnType<typeof locator> | undefined;
  const at = (...path: (string | number)[]) => {
    locate ??= locator(text, p.file);
    return `${locate(path)}: `;
  };
  return { value: (decoded.value ?? {}) as Record<string, unknown>, at };
}

const schemas = new Map<string, Schema>();
function frontMatterSchema(kind: Item["kind"], agentIds: readonly string[]): Schema {
  let s = schemas.get(kind);
  if (!s) {
    s = (kind === "command" ? commandFrontMatter : subagentFrontMatter)([...agentIds]);
    schemas.set(kind, s);
  }
  return s;
}

/** The item from its decoded front matter and body; what is wrong in them goes to `l.out.errors`. */
function itemOf(l: Loading, p: Planned, front: FrontMatter, parts: { body: string; bodyLine: number }): Item {
  const { kind, key } = l.section;
  const who = `${kind} ${q(p.name)}`;
  const v = front.value;
  const entryTargets = p.entry?.value.targets;
  const ownTargets = v.targets as string[] | undefined;
  ownTargets?.forEach((t, i) => {
    if (t !== "all" && !l.agentIds.includes(t))
      l.out.errors.push(`${front.at("targets", i)}${who} has unsupported target ${q(t)}`);
  });
  const at: Record<string, string> & { file: string } = { file: `${p.file}:1: ` };
  for (const field of Object.keys(v)) at[field] = front.at(field);
  if (entryTargets) at.targets = l.at(key, p.entry!.index, "targets");
  const description = (v.description as string | undefined)?.trim() || undefined;
  const base = {
    name: p.name,
    file: p.file,
    targets: entryTargets ?? ownTargets,
    at,
    ...(description ? { description } : {}),
    body: parts.body,
    bodyLine: parts.bodyLine,
  };
  if (kind === "command") {
    const hint = (v["argument-hint"] as string | undefined)?.trim();
    return { kind, ...base, ...(hint ? { argumentHint: hint } : {}) };
  }
  if (!description)
    l.out.errors.push(
      `${at.description ?? at.file}${who}: description is required (agents choose a subagent by it)`,
    );
  const tools = v.tools as string[] | undefined;
  tools?.forEach((t, i) => {
    if (!t.trim()) l.out.errors.push(`${front.at("tools", i)}${who}: a tool name cannot be empty`);
    // Claude Code and Kimi Code take the list as one string, split at commas.
    else if (t.includes(","))
      l.out.errors.push(`${front.at("tools", i)}${who}: a tool name cannot hold a comma (one name per item)`);
  });
  if (!parts.body.trim())
    l.out.errors.push(
      `${p.file}:${parts.bodyLine}: ${who}: the system prompt (the text after the front matter) is empty`,
    );
  const model = modelOf(v.model);
  return {
    kind,
    ...base,
    ...(tools ? { tools: tools.map((t) => t.trim()) } : {}),
    ...(model ? { model } : {}),
  };
}

/** One model name, or one per agent (blank ones left out); undefined when none is left. */
function modelOf(value: unknown): string | Record<string, string> | undefined {
  if (typeof value === "string") return value.trim() || undefined;
  if (!value || typeof value !== "object") return undefined;
  const models = Object.fromEntries(
    Object.entries(value as Record<string, string>)
      .map(([agent, m]) => [agent, m.trim()])
      .filter(([, m]) => m !== ""),
  );
  return Object.keys(models).length > 0 ? models : undefined;
}
