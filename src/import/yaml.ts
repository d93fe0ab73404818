/**
 * kanon.yaml as import writes it: schema field order, only the fields that are set (the Go tool wrote
 * every MCP field, even `type: ""`), short lists in flow style. `--merge` edits the existing document
 * through the yaml library's Document API, so its comments, key order and layout stay.
 */
import {
  Document,
  isMap,
  isNode,
  isScalar,
  isSeq,
  type Node,
  parseDocument,
  type ToStringOptions,
  visit,
} from "yaml";
import { AGENTS } from "../agents/index.js";
import { HANDLER_FIELDS } from "../core/hooks/vocabulary.js";
import { OVERRIDABLE } from "../core/mcp-overrides.js";
import { deepEqual } from "../formats/values.js";
import type {
  HookEntry,
  InstructionFile,
  ItemEntry,
  KanonConfig,
  McpServer,
  SkillEntry,
} from "../model/config.js";
import { instructionPath } from "../model/config.js";
import { MCP_FIELDS } from "../model/manifest.js";
import { KanonError } from "../model/types.js";
import { providerName } from "../providers/name.js";
import { readYaml } from "../source/read-yaml.js";

const SKILL_FIELDS = ["name", "path", "git", "include", "exclude", "targets", "enabled"] as const;
const SERVER_FIELDS = [...MCP_FIELDS, "targets", "enabled", "resolve_env", "overrides"] as const;
/** kanon.yaml's order: the handler fields of every type (command, args, …, url, …) in the vocabulary's. */
const HOOK_FIELDS = [
  "name",
  "event",
  "matcher",
  "type",
  ...HANDLER_FIELDS,
  "envelope",
  "blocking",
  "max_output_chars",
  "targets",
];
/** Lists that read best on one line. */
const FLOW_KEYS = new Set([
  "agents",
  "targets",
  "args",
  "include",
  "exclude",
  "env_vars",
  "enabled_tools",
  "disabled_tools",
  "allowed_env_vars",
  "unset",
]);

function pick<T extends object>(value: T, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const v = value as Record<string, unknown>;
  for (const f of fields) if (v[f] !== undefined) out[f] = v[f];
  return out;
}

export const plainSkill = (s: SkillEntry) => pick(s, SKILL_FIELDS);
const plainItem = (e: ItemEntry) => pick(e, ["name", "path", "targets", "enabled"]);
export function plainServer(s: McpServer): Record<string, unknown> {
  const out = pick(s, SERVER_FIELDS);
  if (s.overrides)
    out.overrides = Object.fromEntries(
      Object.entries(s.overrides).map(([agent, o]) => [agent, pick(o, [...OVERRIDABLE, "unset"])]),
    );
  return out;
}
export const plainHook = (h: HookEntry) => pick(h, HOOK_FIELDS);

/** The config as plain data in schema order, empty sections left out (version and metadata stay). */
export function plainConfig(c: KanonConfig): Record<string, unknown> {
  const out: Record<string, unknown> = { version: c.version };
  if (c.agents) out.agents = c.agents;
  if (c.instructions.files.length > 0) out.instructions = { files: c.instructions.files };
  if (c.skills.length > 0) out.skills = c.skills.map(plainSkill);
  if (c.commands?.length) out.commands = c.commands.map(plainItem);
  if (c.subagents?.length) out.subagents = c.subagents.map(plainItem);
  const names = Object.keys(c.mcp.servers);
  if (names.length > 0)
    out.mcp = { servers: Object.fromEntries(names.map((n) => [n, plainServer(c.mcp.servers[n]!)])) };
  if (c.hooks.length > 0) out.hooks = c.hooks.map(plainHook);
  if (c.hooks_envelope) out.hooks_envelope = c.hooks_envelope;
  out.metadata = c.metadata;
  return out;
}

const STRING_OPTIONS: ToStringOptions = {
  indent: 2,
  indentSeq: true,
  lineWidth: 0,
  flowCollectionPadding: false,
};

function flowShortLists(doc: Document | Node): void {
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && FLOW_KEYS.has(String(pair.key.value)) && isSeq(pair.value))
        pair.value.flow = true;
    },
  });
}

export function configYaml(c: KanonConfig): string {
  const doc = new Document(plainConfig(c));
  flowShortLists(doc);
  return doc.toString(STRING_OPTIONS);
}

export interface MergeResult {
  text: string;
  /** Entries added or (with --force) replaced, one line each for the report. */
  changes: string[];
  /** Entries that differ and were left as they are. */
  conflicts: string[];
}

export interface MergeInput {
  /** The same document as loaded (validated). */
  existing: KanonConfig;
  imported: KanonConfig;
  /** Instruction files the import would add (already checked against the home). */
  instructions: InstructionFile[];
  /** Each imported skill and whether the home's skills/<name>/ is missing, the same or different. */
  skills: SkillMerge[];
  /** Each imported command and subagent, likewise against commands/<name>.md and agents/<name>.md. */
  items?: ItemMerge[];
  force: boolean;
}

/** A command or subagent the import found, against the home's file of its name. */
export interface ItemMerge extends SkillMerge {
  kind: "command" | "subagent";
}

export interface SkillMerge {
  name: string;
  /** undefined: every agent. */
  targets: string[] | undefined;
  home: "missing" | "same" | "differs";
}

/** What an import entry is: an instruction file, a skill, a git skill provider, an MCP server or a hook. */
export type EntryKind =
  | "agents"
  | "instructions"
  | "skill"
  | "command"
  | "subagent"
  | "provider"
  | "mcp"
  | "hook";

/** One change to the kanon.yaml document, decided from the configs alone (no parsing). */
export interface MergeEdit {
  kind: EntryKind;
  /** The instruction file's path, or the skill's, provider's, server's or hook's name. */
  name: string;
  /** One line for the report: `added mcp server "docs"`. */
  change: string;
  /** Whether it replaces a different entry of kanon.yaml's. */
  replaces: boolean;
  /** What it writes (with the document it edits, all the edit depends on). */
  value: unknown;
  apply(doc: Document): void;
}

export interface MergeConflict {
  kind: EntryKind;
  name: string;
  text: string;
}

/** The agents of both lists (undefined, empty or `all` is every agent). */
function unionTargets(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  const all = (t: string[] | undefined) => !t || t.length === 0 || t.includes("all");
  return all(a) || all(b) ? undefined : [...new Set([...a!, ...b!])];
}

function node(doc: Document, value: unknown): Node {
  const n = doc.createNode(value);
  flowShortLists(n);
  return n;
}

/** The collection at `path`, created (block style) when missing or empty. */
function collection(doc: Document, path: string[], empty: unknown): void {
  const current = doc.getIn(path, true);
  if (!isMap(current) && !isSeq(current)) doc.setIn(path, doc.createNode(empty));
  const c = doc.getIn(path, true) as { flow?: boolean; items: unknown[] };
  if (c.items.length === 0) c.flow = false;
}

/** Adds what is new to the existing kanon.yaml document, reports what differs; --force replaces it. */
export function mergeConfigYaml(m: MergeInput & { text: string }): MergeResult {
  const { edits, conflicts } = mergeEdits(m);
  return {
    text: applyEdits(m.text, edits),
    changes: edits.map((e) => e.change),
    conflicts: conflicts.map((c) => c.text),
  };
}

/** The document with `edits` made, its comments, key order and layout kept (unchanged when none). */
export function applyEdits(text: string, edits: readonly MergeEdit[]): string {
  if (edits.length === 0) return text;
  const doc = parseDocument(text, { keepSourceTokens: true });
  if (doc.errors.length > 0) throw new KanonError(`kanon.yaml: ${doc.errors[0]!.message}`);
  for (const e of edits) e.apply(doc);
  return doc.toString(inferOptions(text));
}

/**
 * The edits that bring the imported entries into kanon.yaml, each tagged with its entry, and the
 * entries that differ from kanon.yaml's (replaced only with `force`), section by section in the
 * schema's order.
 */
export function mergeEdits(m: MergeInput): { edits: MergeEdit[]; conflicts: MergeConflict[] } {
  const conflicts: MergeConflict[] = [];
  const differs: Differs = (kind, name, ours, theirs) =>
    conflicts.push({
      kind,
      name,
      text: `${kind === "mcp" ? "mcp server" : kind} ${JSON.stringify(name)} differs from kanon.yaml${m.force ? "; replaced by the imported one" : "; kept kanon.yaml's (--force replaces it)"}\n  kanon.yaml: ${JSON.stringify(ours)}\n  imported:   ${JSON.stringify(theirs)}`,
    });
  const edits = [
    ...agentEdits(m),
    ...instructionEdits(m),
    ...skillEdits(m),
    ...(m.items ?? []).flatMap((item) => itemEdits(m, item)),
    ...providerEdits(m),
    ...serverEdits(m, differs),
    ...hookEdits(m, differs),
  ];
  return { edits, conflicts };
}

/** Reports an entry that differs from kanon.yaml's. */
type Differs = (kind: EntryKind, name: string, ours: unknown, theirs: unknown) => void;

/** Agents found on this machine that the home does not render for join its `agents:` list. */
function agentEdits(m: MergeInput): MergeEdit[] {
  const edits: MergeEdit[] = [];
  const homeAgents =
    m.existing.agents ?? AGENTS.filter((a) => a.manifest.defaultOn).map((a) => a.manifest.id);
  const newAgents = (m.imported.agents ?? []).filter((a) => !homeAgents.includes(a));
  if (newAgents.length > 0) {
    const agents = [...homeAgents, ...newAgents];
    edits.push({
      kind: "agents",
      name: "agents",
      change: `added ${newAgents.join(", ")} to agents (entries without targets render for ${newAgents.length > 1 ? "them" : "it"} too)`,
      replaces: false,
      value: agents,
      apply(doc) {
        const list = doc.createNode(agents);
        list.flow = true;
        const top = doc.contents;
        if (doc.has("agents") || !isMap(top)) doc.set("agents", list);
        else {
          // Right after `version:`, where the schema has it.
          const at = top.items.findIndex((p) => isScalar(p.key) && p.key.value === "version") + 1;
          top.items.splice(at, 0, doc.createPair("agents", list) as (typeof top.items)[number]);
        }
      },
    });
  }
  return edits;
}

/** Instruction files kanon.yaml does not list yet. */
function instructionEdits(m: MergeInput): MergeEdit[] {
  const edits: MergeEdit[] = [];
  const paths = new Set(m.existing.instructions.files.map(instructionPath));
  for (const f of m.instructions) {
    if (paths.has(instructionPath(f))) continue;
    edits.push({
      kind: "instructions",
      name: instructionPath(f),
      change: `added instruction file ${instructionPath(f)}`,
      replaces: false,
      value: f,
      apply(doc) {
        collection(doc, ["instructions", "files"], []);
        doc.addIn(["instructions", "files"], node(doc, f));
      },
    });
  }
  return edits;
}

/**
 * Skills: new ones are added; the same files for more agents widen the targets (as the Go import
 * plan does); different files are a conflict (the caller reports it and writes the files on --force).
 */
function skillEdits(m: MergeInput): MergeEdit[] {
  const edits: MergeEdit[] = [];
  for (const sk of m.skills) {
    const i = m.existing.skills.findIndex((e) => !e.git && e.name === sk.name);
    const ours = i < 0 ? undefined : m.existing.skills[i]!;
    // A home folder without an entry renders for every agent.
    const oursTargets = ours ? ours.targets : sk.home === "missing" ? [] : undefined;
    const targets = sk.home === "same" ? unionTargets(oursTargets, sk.targets) : sk.targets;
    if (sk.home === "differs" && !m.force) continue;
    if (deepEqual(targets ?? null, oursTargets ?? null) && (ours || !targets)) continue;
    const edit = (change: string, apply: (doc: Document) => void) =>
      edits.push({ kind: "skill", name: sk.name, change, replaces: false, value: targets ?? null, apply });
    if (!ours) {
      if (!targets) continue;
      edit(`added skill entry ${JSON.stringify(sk.name)}`, (doc) => {
        collection(doc, ["skills"], []);
        doc.addIn(["skills"], node(doc, plainSkill({ name: sk.name, targets })));
      });
    } else if (targets) {
      edit(`set skill ${JSON.stringify(sk.name)} targets to ${targets.join(", ")}`, (doc) =>
        setTargets(doc, "skills", i, targets),
      );
    } else {
      edit(`skill ${JSON.stringify(sk.name)} now renders for every agent`, (doc) =>
        doc.deleteIn(["skills", i, "targets"]),
      );
    }
  }
  return edits;
}

/**
 * A command or subagent, as a skill: one the home lacks or differs in (with --force) takes the
 * imported targets; the same file for more agents widens the entry's targets. The file itself is the
 * caller's to write.
 */
function itemEdits(m: MergeInput, item: ItemMerge): MergeEdit[] {
  const key = item.kind === "command" ? "commands" : "subagents";
  const entries = m.existing[key] ?? [];
  const i = entries.findIndex((e) => (e.name ?? "").trim() === item.name);
  const ours = i < 0 ? undefined : entries[i]!;
  // A file of the home without an entry renders for every agent.
  const oursTargets = ours ? ours.targets : item.home === "missing" ? [] : undefined;
  const targets = item.home === "same" ? unionTargets(oursTargets, item.targets) : item.targets;
  if (item.home === "differs" && !m.force) return [];
  if (deepEqual(targets ?? null, oursTargets ?? null) && (ours || !targets)) return [];
  const what = `${item.kind} ${JSON.stringify(item.name)}`;
  const edit = (change: string, apply: (doc: Document) => void): MergeEdit[] => [
    { kind: item.kind, name: item.name, change, replaces: false, value: targets ?? null, apply },
  ];
  if (!ours) {
    if (!targets) return [];
    return edit(`added ${item.kind} entry ${JSON.stringify(item.name)}`, (doc) => {
      collection(doc, [key], []);
      doc.addIn([key], node(doc, plainItem({ name: item.name, targets })));
    });
  }
  if (targets)
    return edit(`set ${what} targets to ${targets.join(", ")}`, (doc) => setTargets(doc, key, i, targets));
  return edit(`${what} now renders for every agent`, (doc) => doc.deleteIn([key, i, "targets"]));
}

/**
 * Git skill providers: the home's own entries (import only finds those), found for more agents
 * than they target, widen their targets like a skill with the same files.
 */
function providerEdits(m: MergeInput): MergeEdit[] {
  const edits: MergeEdit[] = [];
  for (const sk of m.imported.skills) {
    if (!sk.git) continue;
    const same = (e: SkillEntry) =>
      deepEqual(plainSkill({ ...e, targets: [] }), plainSkill({ ...sk, targets: [] }));
    const i = m.existing.skills.findIndex((e) => e.git && same(e));
    if (i < 0) continue;
    const ours = m.existing.skills[i]!.targets;
    if (covers(ours, sk.targets)) continue;
    const targets = unionTargets(ours, sk.targets);
    // The home's providers all have valid names (import found this one); the URL may hold credentials.
    const named = providerName(sk, process.env);
    const name = named.ok ? named.name : `skills[${i}]`;
    const edit = (change: string, apply: (doc: Document) => void) =>
      edits.push({ kind: "provider", name, change, replaces: false, value: targets ?? null, apply });
    if (targets)
      edit(`set skill provider ${JSON.stringify(name)} targets to ${targets.join(", ")}`, (doc) =>
        setTargets(doc, "skills", i, targets),
      );
    else
      edit(`skill provider ${JSON.stringify(name)} now renders for every agent`, (doc) =>
        doc.deleteIn(["skills", i, "targets"]),
      );
  }
  return edits;
}

/** MCP servers: new ones are added; a different one is a conflict, replaced with --force. */
function serverEdits(m: MergeInput, differs: Differs): MergeEdit[] {
  const edits: MergeEdit[] = [];
  for (const [name, s] of Object.entries(m.imported.mcp.servers)) {
    const plain = plainServer(s);
    const ours = m.existing.mcp.servers[name];
    const set = (change: string, replaces: boolean) =>
      edits.push({
        kind: "mcp",
        name,
        change,
        replaces,
        value: plain,
        apply(doc) {
          if (!replaces) collection(doc, ["mcp", "servers"], {});
          doc.setIn(["mcp", "servers", name], node(doc, plain));
        },
      });
    if (!ours) set(`added mcp server ${JSON.stringify(name)}`, false);
    else if (
      !deepEqual({ ...plainServer(ours), targets: undefined }, { ...plain, targets: undefined }) ||
      !covers(ours.targets, s.targets)
    ) {
      differs("mcp", name, plainServer(ours), plain);
      if (m.force) set(`replaced mcp server ${JSON.stringify(name)}`, true);
    }
  }
  return edits;
}

/** Hooks: an equal hook under any name, for at least the same agents, is already there. */
function hookEdits(m: MergeInput, differs: Differs): MergeEdit[] {
  const edits: MergeEdit[] = [];
  const bare = (h: HookEntry) => ({ ...plainHook(h), name: undefined, targets: undefined });
  for (const h of m.imported.hooks) {
    if (m.existing.hooks.some((e) => deepEqual(bare(e), bare(h)) && covers(e.targets, h.targets))) continue;
    const i = m.existing.hooks.findIndex((e) => e.name === h.name);
    const plain = plainHook(h);
    const hookEdit = (change: string, replaces: boolean, apply: (doc: Document) => void) =>
      edits.push({ kind: "hook", name: h.name, change, replaces, value: plain, apply });
    if (i < 0) {
      hookEdit(`added hook ${JSON.stringify(h.name)}`, false, (doc) => {
        collection(doc, ["hooks"], []);
        doc.addIn(["hooks"], node(doc, plain));
      });
    } else {
      differs("hook", h.name, plainHook(m.existing.hooks[i]!), plain);
      if (m.force)
        hookEdit(`replaced hook ${JSON.stringify(h.name)}`, true, (doc) =>
          doc.setIn(["hooks", i], node(doc, plain)),
        );
    }
  }
  return edits;
}

/** Entry `i`'s targets in a section, as a flow list that keeps the comments of the one it replaces. */
function setTargets(doc: Document, section: string, i: number, targets: string[]): void {
  const list = doc.createNode(targets);
  list.flow = true;
  const old = doc.getIn([section, i, "targets"], true);
  if (isNode(old)) {
    list.comment = old.comment;
    list.commentBefore = old.commentBefore;
  }
  doc.setIn([section, i, "targets"], list);
}

/** Whether an entry for `ours` agents already renders for every agent in `theirs`. */
function covers(ours: string[] | undefined, theirs: string[] | undefined): boolean {
  const all = (t: string[] | undefined) => !t || t.length === 0 || t.includes("all");
  return all(ours) || (!all(theirs) && theirs!.every((a) => ours!.includes(a)));
}

/** Serialisation options that match the existing text's indentation and sequence style. */
function inferOptions(text: string): ToStringOptions {
  const indent = /^( +)\S/m.exec(text)?.[1]?.length ?? 2;
  const flushSeq = /^(\s*)[^\s#-][^\n]*:\s*\n\1- /m.test(text);
  return { ...STRING_OPTIONS, indent, indentSeq: !flushSeq };
}

/**
 * kanon never writes a kanon.yaml it would refuse to read: the text import would write, or a
 * KanonError naming the file and the limit it crosses (a value of megabytes in an agent's file would
 * take it past the characters kanon reads, source/limits.ts). Nothing is written then.
 */
export function readableHome(text: string, file: string): string {
  const { errors, lineCounter } = readYaml(text, "kanon.yaml");
  const first = errors[0];
  if (first === undefined) return text;
  const { line, col } = lineCounter.linePos(first.offset);
  throw new KanonError(
    `cannot write ${file}: kanon would not read it back (kanon.yaml:${line}:${col}: ${first.message}); nothing was written`,
  );
}
