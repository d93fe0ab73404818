/**
 * kanon.yaml as import writes it: schema field order, only the fields that are set (the Go tool wrote
 * every MCP field, even `type: ""`), short lists in flow style. `--merge` edits the existing document
 * through the yaml library's Document API, so its comments, key order and layout stay.
 */
import {
  Document,
  isMap,
  isScalar,
  isSeq,
  type Node,
  parseDocument,
  type ToStringOptions,
  visit,
} from "yaml";
import { HANDLER_FIELDS } from "../core/hooks/vocabulary.js";
import { deepEqual } from "../formats/values.js";
import type { HookEntry, InstructionFile, KanonConfig, McpServer, SkillEntry } from "../model/config.js";
import { instructionPath } from "../model/config.js";
import { KanonError } from "../model/types.js";

const SKILL_FIELDS = ["name", "path", "git", "include", "exclude", "targets", "enabled"] as const;
const SERVER_FIELDS = [
  "type",
  "command",
  "args",
  "env",
  "env_vars",
  "url",
  "headers",
  "env_headers",
  "bearer_token_env_var",
  "startup_timeout_sec",
  "tool_timeout_sec",
  "enabled_tools",
  "disabled_tools",
  "default_approval",
  "tools",
  "opencode_enabled",
  "targets",
  "enabled",
] as const;
/** kanon.yaml's order: the handler fields of every type (command, args, …, url, …) in the vocabulary's. */
const HOOK_FIELDS = ["name", "event", "matcher", "type", ...HANDLER_FIELDS, "targets"];
/** Lists that read best on one line. */
const FLOW_KEYS = new Set([
  "targets",
  "args",
  "include",
  "exclude",
  "env_vars",
  "enabled_tools",
  "disabled_tools",
  "allowed_env_vars",
]);

function pick<T extends object>(value: T, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const v = value as Record<string, unknown>;
  for (const f of fields) if (v[f] !== undefined) out[f] = v[f];
  return out;
}

export const plainSkill = (s: SkillEntry) => pick(s, SKILL_FIELDS);
export const plainServer = (s: McpServer) => pick(s, SERVER_FIELDS);
export const plainHook = (h: HookEntry) => pick(h, HOOK_FIELDS);

/** The config as plain data in schema order, empty sections left out (version and metadata stay). */
export function plainConfig(c: KanonConfig): Record<string, unknown> {
  const out: Record<string, unknown> = { version: c.version };
  if (c.instructions.files.length > 0) out.instructions = { files: c.instructions.files };
  if (c.skills.length > 0) out.skills = c.skills.map(plainSkill);
  const names = Object.keys(c.mcp.servers);
  if (names.length > 0)
    out.mcp = { servers: Object.fromEntries(names.map((n) => [n, plainServer(c.mcp.servers[n]!)])) };
  if (c.hooks.length > 0) out.hooks = c.hooks.map(plainHook);
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
  text: string;
  /** The same document as loaded (validated). */
  existing: KanonConfig;
  imported: KanonConfig;
  /** Instruction files the import would add (already checked against the home). */
  instructions: InstructionFile[];
  /** Each imported skill and whether the home's skills/<name>/ is missing, the same or different. */
  skills: SkillMerge[];
  force: boolean;
}

export interface SkillMerge {
  name: string;
  /** undefined: every agent. */
  targets: string[] | undefined;
  home: "missing" | "same" | "differs";
}

/** The agents of both lists (undefined, empty or `all` is every agent). */
function unionTargets(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  const all = (t: string[] | undefined) => !t || t.length === 0 || t.includes("all");
  return all(a) || all(b) ? undefined : [...new Set([...a!, ...b!])];
}

/** Adds what is new to the existing kanon.yaml document, reports what differs; --force replaces it. */
export function mergeConfigYaml(m: MergeInput): MergeResult {
  const doc = parseDocument(m.text, { keepSourceTokens: true });
  if (doc.errors.length > 0) throw new KanonError(`kanon.yaml: ${doc.errors[0]!.message}`);
  const changes: string[] = [];
  const conflicts: string[] = [];
  const node = (value: unknown) => {
    const n = doc.createNode(value);
    flowShortLists(n);
    return n;
  };
  /** The collection at `path`, created (block style) when missing or empty. */
  const collection = (path: string[], empty: unknown) => {
    const current = doc.getIn(path, true);
    if (!isMap(current) && !isSeq(current)) doc.setIn(path, doc.createNode(empty));
    const c = doc.getIn(path, true) as { flow?: boolean; items: unknown[] };
    if (c.items.length === 0) c.flow = false;
    return c;
  };
  const differs = (what: string, ours: unknown, theirs: unknown) =>
    `${what} differs from kanon.yaml${m.force ? "; replaced by the imported one" : "; kept kanon.yaml's (--force replaces it)"}\n  kanon.yaml: ${JSON.stringify(ours)}\n  imported:   ${JSON.stringify(theirs)}`;

  // Instruction files.
  const paths = new Set(m.existing.instructions.files.map(instructionPath));
  for (const f of m.instructions) {
    if (paths.has(instructionPath(f))) continue;
    collection(["instructions", "files"], []);
    doc.addIn(["instructions", "files"], node(f));
    changes.push(`added instruction file ${instructionPath(f)}`);
  }

  // Skills: new ones are added; the same files for more agents widen the targets (as the Go import
  // plan does); different files are a conflict (the caller reports it and writes the files on --force).
  for (const sk of m.skills) {
    const i = m.existing.skills.findIndex((e) => !e.git && e.name === sk.name);
    const ours = i < 0 ? undefined : m.existing.skills[i]!;
    // A home folder without an entry renders for every agent.
    const oursTargets = ours ? ours.targets : sk.home === "missing" ? [] : undefined;
    const targets =
      sk.home === "same"
        ? unionTargets(oursTargets, sk.targets)
        : sk.home === "missing"
          ? sk.targets
          : sk.targets;
    if (sk.home === "differs" && !m.force) continue;
    if (deepEqual(targets ?? null, oursTargets ?? null) && (ours || !targets)) continue;
    if (!ours) {
      if (!targets) continue;
      collection(["skills"], []);
      doc.addIn(["skills"], node(plainSkill({ name: sk.name, targets })));
      changes.push(`added skill entry ${JSON.stringify(sk.name)}`);
    } else if (targets) {
      const list = doc.createNode(targets);
      list.flow = true;
      doc.setIn(["skills", i, "targets"], list);
      changes.push(`set skill ${JSON.stringify(sk.name)} targets to ${targets.join(", ")}`);
    } else {
      doc.deleteIn(["skills", i, "targets"]);
      changes.push(`skill ${JSON.stringify(sk.name)} now renders for every agent`);
    }
  }

  // MCP servers.
  for (const [name, s] of Object.entries(m.imported.mcp.servers)) {
    const plain = plainServer(s);
    const ours = m.existing.mcp.servers[name];
    if (!ours) {
      collection(["mcp", "servers"], {});
      doc.setIn(["mcp", "servers", name], node(plain));
      changes.push(`added mcp server ${JSON.stringify(name)}`);
    } else if (
      !deepEqual({ ...plainServer(ours), targets: undefined }, { ...plain, targets: undefined }) ||
      !covers(ours.targets, s.targets)
    ) {
      conflicts.push(differs(`mcp server ${JSON.stringify(name)}`, plainServer(ours), plain));
      if (m.force) {
        doc.setIn(["mcp", "servers", name], node(plain));
        changes.push(`replaced mcp server ${JSON.stringify(name)}`);
      }
    }
  }

  // Hooks: an equal hook under any name, for at least the same agents, is already there.
  const bare = (h: HookEntry) => ({ ...plainHook(h), name: undefined, targets: undefined });
  for (const h of m.imported.hooks) {
    if (m.existing.hooks.some((e) => deepEqual(bare(e), bare(h)) && covers(e.targets, h.targets))) continue;
    const i = m.existing.hooks.findIndex((e) => e.name === h.name);
    const plain = plainHook(h);
    if (i < 0) {
      collection(["hooks"], []);
      doc.addIn(["hooks"], node(plain));
      changes.push(`added hook ${JSON.stringify(h.name)}`);
    } else {
      conflicts.push(differs(`hook ${JSON.stringify(h.name)}`, plainHook(m.existing.hooks[i]!), plain));
      if (m.force) {
        doc.setIn(["hooks", i], node(plain));
        changes.push(`replaced hook ${JSON.stringify(h.name)}`);
      }
    }
  }
  return { text: changes.length > 0 ? doc.toString(inferOptions(m.text)) : m.text, changes, conflicts };
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
