/**
 * The ownership record: what kanon wrote into one destination root (the home directory, or a
 * project). Pure data and hashing; reading and writing it is src/destination/state.ts.
 */
import { basename, isAbsolute } from "node:path";
import type { DeclaredMerge } from "../core/merges.js";
import { isPlainObject, sortedKeys } from "../formats/values.js";
import { sha256Hex } from "../model/crypto.js";
import type { AgentId, MergeSpec } from "../model/types.js";

/** Bumped when a kanon could misread a newer record; an older kanon refuses a newer one. */
export const RECORD_VERSION = 1;

/**
 * Why a change needs a backup: it overwrites or deletes content kanon did not write ("foreign"), or
 * content kanon wrote that was changed since ("edited").
 */
export type Replaces = "foreign" | "edited";

/** A file kanon owns whole (instructions, skill files, the OpenCode plugin). */
export interface OwnedFile {
  agent: AgentId;
  /**
   * Every agent that renders the file, when several do (project AGENTS.md): it is deleted only once
   * none of them renders it, whichever agents a command manages. Absent: `agent` alone.
   */
  agents?: AgentId[];
  /** sha256 of the bytes kanon wrote (hex). */
  sha256: string;
  /** Permission bits as an octal string, e.g. "0644". */
  mode: string;
}

/** kanon's entries inside a file it shares with the user and the agent. */
export interface OwnedEntries {
  agent: AgentId;
  merge: MergeSpec;
  /** `entries` merges: entry name → sha256 of the value kanon wrote. */
  names?: Record<string, string>;
  /** `handlers` merges: the handler keys (see handlerKey) kanon wrote, sorted (a set with repeats). */
  handlers?: string[];
  /**
   * `hook-groups` and `tables` merges (Gemini `hooks`, Kimi `[[hooks]]`): the names of the hooks kanon
   * wrote. Those entries name themselves in the file (`kanon:<hook>`, `# kanon: <hook>`); the record
   * says that kanon has some there, so they are taken out once kanon renders none.
   */
  labels?: string[];
  /** `regions` merges: what kanon owns in each region, by the region's key. */
  regions?: Record<string, OwnedRegion>;
  /**
   * kanon created the file: once kanon's last entry is taken out and nothing else is left in it
   * (no key, no comment of the user's), the file is deleted rather than left as `{"hooks": {}}`.
   */
  created?: true;
}

/** kanon's entries in one region of a co-owned file. */
export type OwnedRegion = Pick<OwnedEntries, "names" | "handlers" | "labels">;

export interface OwnershipRecord {
  version: number;
  /** The destination root this record is for. */
  root: string;
  files: Record<string, OwnedFile>;
  entries: Record<string, OwnedEntries>;
  /** Directories kanon created (removed again once empty and no longer needed). */
  dirs: string[];
  /** Id of the apply that wrote this record (the history entry under applies/). */
  lastApply: string | null;
}

export function emptyRecord(root: string): OwnershipRecord {
  return { version: RECORD_VERSION, root, files: {}, entries: {}, dirs: [], lastApply: null };
}

export function sha256(data: Uint8Array | string): string {
  return sha256Hex(data);
}

const contentHashes = new WeakMap<Uint8Array, string>();

/**
 * sha256 of file content that kanon holds and never changes (rendered, or read from disk), made once
 * per buffer: agents share a skill's contents, and an update hashes each file's old bytes in its plan
 * and both old and new ones in its history entry (15,009 files: 30,000 hashes fewer, ~100 ms).
 */
export function contentHash(bytes: Uint8Array): string {
  let h = contentHashes.get(bytes);
  if (h === undefined) {
    h = sha256(bytes);
    contentHashes.set(bytes, h);
  }
  return h;
}

/** JSON with object keys sorted: equal values give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += `${i > 0 ? "," : ""}${canonicalJson(value[i])}`;
    return `${out}]`;
  }
  if (isPlainObject(value)) {
    const keys = sortedKeys(value);
    let out = "{";
    for (let i = 0; i < keys.length; i++)
      out += `${i > 0 ? "," : ""}${JSON.stringify(keys[i])}:${canonicalJson(value[keys[i]!])}`;
    return `${out}}`;
  }
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  return JSON.stringify(value) ?? "null";
}

export const valueHash = (value: unknown): string => sha256(canonicalJson(value));

/** The identity of one hook handler in a Claude-shaped hook document: its event, matcher and fields. */
export function handlerKey(event: string, matcher: unknown, handler: unknown): string {
  return sha256(canonicalJson([event, typeof matcher === "string" ? matcher : "", handler]));
}

/** The agents that own a recorded file. */
export const fileOwners = (f: OwnedFile): AgentId[] => f.agents ?? [f.agent];

/** A file's record entry for `owners` (the first is the agent that renders it, or that owned it first). */
export function ownedFile(owners: readonly AgentId[], sha: string, mode: string): OwnedFile {
  const agents = [...new Set(owners)];
  return { agent: agents[0]!, ...(agents.length > 1 ? { agents: agents.sort() } : {}), sha256: sha, mode };
}

export const octalMode = (mode: number): string => `0${mode.toString(8).padStart(3, "0")}`;

/** Record text as written to disk: stable, so an unchanged record is not rewritten. */
export function recordText(record: OwnershipRecord): string {
  const files: Record<string, OwnedFile> = {};
  for (const p of Object.keys(record.files).sort()) files[p] = record.files[p]!;
  const entries: Record<string, OwnedEntries> = {};
  // Handlers sorted: a new file lists them in render order, an edited one in file order.
  for (const p of Object.keys(record.entries).sort()) {
    const e = record.entries[p]!;
    entries[p] = e.handlers ? { ...e, handlers: [...e.handlers].sort() } : e;
  }
  return `${JSON.stringify({ ...record, files, entries, dirs: [...new Set(record.dirs)].sort() }, null, 1)}\n`;
}

/**
 * Checks the shape of a parsed record, all the way down: a record is read on every command, and one
 * edited by hand or written half by another tool must be a warning, never a crash. Returns the
 * record, "newer" for a record of a later format, or an error text for anything else.
 */
export function parseRecord(value: unknown, root: string): OwnershipRecord | "newer" | string {
  if (!isPlainObject(value)) return "not a JSON object";
  if (typeof value.version !== "number" || !Number.isInteger(value.version)) return "no format version";
  if (value.version > RECORD_VERSION) return "newer";
  if (value.version !== RECORD_VERSION) return `unknown format version ${value.version}`;
  if (value.root !== root) return `it is for ${String(value.root)}`;
  if (!isPlainObject(value.files) || !isPlainObject(value.entries) || !Array.isArray(value.dirs))
    return "files, entries or dirs missing";
  // for…in, not Object.entries: a record can name hundreds of thousands of files.
  for (const path in value.files) {
    const why = fileProblem(value.files[path]);
    if (why) return `the file entry ${JSON.stringify(path)} is malformed (${why})`;
    if (!isAbsolute(path)) return `the file entry ${JSON.stringify(path)} is not an absolute path`;
  }
  for (const [path, e] of Object.entries(value.entries)) {
    const why = entriesProblem(e);
    if (why) return `the co-owned file entry ${JSON.stringify(path)} is malformed (${why})`;
    if (!isAbsolute(path)) return `the co-owned file entry ${JSON.stringify(path)} is not an absolute path`;
  }
  if (!value.dirs.every((d) => typeof d === "string" && isAbsolute(d))) return "dirs holds a malformed path";
  if (value.lastApply !== undefined && value.lastApply !== null && typeof value.lastApply !== "string")
    return "lastApply is malformed";
  return {
    version: RECORD_VERSION,
    root,
    files: value.files as Record<string, OwnedFile>,
    entries: value.entries as Record<string, OwnedEntries>,
    dirs: value.dirs as string[],
    lastApply: typeof value.lastApply === "string" ? value.lastApply : null,
  };
}

const SHA256 = /^[0-9a-f]{64}$/;
const MODE = /^0[0-7]{3,4}$/;
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const isStringMap = (v: unknown): boolean =>
  isPlainObject(v) && Object.values(v).every((x) => typeof x === "string");

/** Why a file entry is malformed, or null. */
function fileProblem(f: unknown): string | null {
  if (!isPlainObject(f)) return "not an object";
  if (typeof f.agent !== "string") return "agent";
  if (f.agents !== undefined && !isStrings(f.agents)) return "agents";
  if (typeof f.sha256 !== "string" || !SHA256.test(f.sha256)) return "sha256";
  if (typeof f.mode !== "string" || !MODE.test(f.mode)) return "mode";
  return null;
}

/** Why a co-owned file entry is malformed, or null. */
function entriesProblem(e: unknown): string | null {
  if (!isPlainObject(e)) return "not an object";
  if (typeof e.agent !== "string") return "agent";
  const merge = mergeProblem(e.merge);
  if (merge) return merge;
  const region = regionProblem(e);
  if (region) return region;
  if (e.regions !== undefined) {
    if (!isPlainObject(e.regions)) return "regions";
    for (const r of Object.values(e.regions)) {
      if (!isPlainObject(r)) return "regions";
      const why = regionProblem(r);
      if (why) return `regions: ${why}`;
    }
  }
  if (e.created !== undefined && e.created !== true) return "created";
  return null;
}

function regionProblem(r: Record<string, unknown>): string | null {
  if (r.names !== undefined && !isStringMap(r.names)) return "names";
  if (r.handlers !== undefined && !isStrings(r.handlers)) return "handlers";
  if (r.labels !== undefined && !isStrings(r.labels)) return "labels";
  return null;
}

const FORMATS: Record<MergeSpec["kind"], readonly string[]> = {
  entries: ["json", "jsonc", "toml"],
  value: ["json", "jsonc", "toml"],
  "hook-groups": ["json", "jsonc"],
  tables: ["toml"],
  regions: ["json", "jsonc", "toml"],
  handlers: ["json", "jsonc"],
};

/** Why a recorded merge spec is malformed, or null. */
function mergeProblem(m: unknown, nested = false): string | null {
  if (!isPlainObject(m) || typeof m.kind !== "string" || !Object.hasOwn(FORMATS, m.kind)) return "merge";
  const kind = m.kind as MergeSpec["kind"];
  if (typeof m.format !== "string" || !FORMATS[kind].includes(m.format)) return "merge format";
  if (kind === "regions") {
    if (nested || !Array.isArray(m.regions)) return "merge regions";
    for (const r of m.regions) {
      const why = mergeProblem(r, true);
      if (why) return why;
    }
    return null;
  }
  if (typeof m.key !== "string") return "merge key";
  if (kind === "hook-groups" && typeof m.namePrefix !== "string") return "merge namePrefix";
  if (kind === "tables" && (typeof m.marker !== "string" || !isStrings(m.labels))) return "merge marker";
  return null;
}

/** The same region, up to what varies with what is rendered (a `tables` merge's labels). */
function sameRegion(a: Exclude<MergeSpec, { kind: "regions" }>, b: Exclude<MergeSpec, { kind: "regions" }>) {
  return canonicalJson({ ...a, labels: null }) === canonicalJson({ ...b, labels: null });
}

/**
 * Why the record's co-owned entries claim something no manifest declares (another key, another kind
 * of merge, another file), or null when every one matches a declared merge of its agent.
 */
export function undeclaredMerge(record: OwnershipRecord, declared: readonly DeclaredMerge[]): string | null {
  for (const [path, e] of Object.entries(record.entries)) {
    const name = basename(path);
    for (const region of mergeRegions(e.merge)) {
      const ok = declared.some(
        (d) => d.agent === e.agent && d.files.includes(name) && sameRegion(d.region, region),
      );
      if (!ok)
        return `its entry for ${path} (${e.agent}) merges ${JSON.stringify(region.key)} as ${region.kind}, which kanon does not write there`;
    }
  }
  return null;
}

/**
 * The hook names of kanon's `hook-groups` or `tables` entries in `value` (what the merge writes for
 * `spec.key`): handler names without the prefix, or the tables' labels.
 */
export function ownedLabels(spec: MergeSpec, value: unknown): string[] {
  if (spec.kind === "tables") return Array.isArray(value) && value.length > 0 ? [...spec.labels] : [];
  if (spec.kind !== "hook-groups" || !isPlainObject(value)) return [];
  const labels = new Set<string>();
  for (const groups of Object.values(value)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isPlainObject(group) || !Array.isArray(group.hooks)) continue;
      for (const h of group.hooks)
        if (isPlainObject(h) && typeof h.name === "string" && h.name.startsWith(spec.namePrefix))
          labels.add(h.name.slice(spec.namePrefix.length));
    }
  }
  return [...labels];
}

/** The regions of a merge: its own regions, or the merge itself. */
export function mergeRegions(spec: MergeSpec): Exclude<MergeSpec, { kind: "regions" }>[] {
  return spec.kind === "regions" ? spec.regions : [spec];
}

/** kanon's entries in each region of a recorded co-owned file, by the region's key. */
export function ownedRegions(owned: OwnedEntries | undefined): Map<string, OwnedRegion> {
  const out = new Map<string, OwnedRegion>();
  if (!owned) return out;
  if (owned.merge.kind === "regions") {
    for (const [key, region] of Object.entries(owned.regions ?? {})) out.set(key, region);
  } else out.set(owned.merge.key, owned);
  return out;
}

/** Whether a region holds anything of kanon's (worth a record entry). */
export function ownsSomething(owned: OwnedRegion & { regions?: Record<string, OwnedRegion> }): boolean {
  return (
    (owned.names !== undefined && Object.keys(owned.names).length > 0) ||
    (owned.handlers?.length ?? 0) > 0 ||
    (owned.labels?.length ?? 0) > 0 ||
    (owned.regions !== undefined && Object.keys(owned.regions).length > 0)
  );
}

/** What a region holds when kanon renders nothing there (a merge of it takes kanon's entries out). */
export function emptyManaged(spec: MergeSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const region of mergeRegions(spec)) out[region.key] = region.kind === "tables" ? [] : {};
  return out;
}
