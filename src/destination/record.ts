/**
 * The ownership record: what kanon wrote into one destination root (the home directory, or a
 * project). Pure data and hashing; reading and writing it is src/destination/state.ts.
 */
import { createHash } from "node:crypto";
import { isPlainObject, sortedKeys } from "../formats/values.js";
import type { AgentId, MergeSpec } from "../model/types.js";

/** Bumped when a kanon could misread a newer record; an older kanon refuses a newer one. */
export const RECORD_VERSION = 1;

/**
 * Why a change needs a backup: it overwrites or deletes content kanon did not write ("foreign"), or
 * content kanon wrote that was changed since ("edited").
 */
export type Replaces = "foreign" | "edited";

/** A file kanon owns whole (instructions, skill files, Codex hooks, the OpenCode plugin). */
export interface OwnedFile {
  agent: AgentId;
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
  /** `handlers` merges: the handler keys (see handlerKey) kanon wrote, in file order. */
  handlers?: string[];
}

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
  return createHash("sha256").update(data).digest("hex");
}

/** JSON with object keys sorted: equal values give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isPlainObject(value))
    return `{${sortedKeys(value)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(",")}}`;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  return JSON.stringify(value) ?? "null";
}

export const valueHash = (value: unknown): string => sha256(canonicalJson(value));

/** The identity of one hook handler in a Claude-shaped hook document: its event, matcher and fields. */
export function handlerKey(event: string, matcher: unknown, handler: unknown): string {
  return sha256(canonicalJson([event, typeof matcher === "string" ? matcher : "", handler]));
}

export const octalMode = (mode: number): string => `0${mode.toString(8).padStart(3, "0")}`;

/** Record text as written to disk: stable, so an unchanged record is not rewritten. */
export function recordText(record: OwnershipRecord): string {
  const files: Record<string, OwnedFile> = {};
  for (const p of Object.keys(record.files).sort()) files[p] = record.files[p]!;
  const entries: Record<string, OwnedEntries> = {};
  for (const p of Object.keys(record.entries).sort()) entries[p] = record.entries[p]!;
  return `${JSON.stringify({ ...record, files, entries, dirs: [...new Set(record.dirs)].sort() }, null, 1)}\n`;
}

/** Same ownership (ignoring which apply wrote it): nothing to write. */
export function sameOwnership(a: OwnershipRecord, b: OwnershipRecord): boolean {
  return recordText({ ...a, lastApply: null }) === recordText({ ...b, lastApply: null });
}

/**
 * Checks the shape of a parsed record. Returns the record, "newer" for a record of a later format,
 * or an error text for anything else.
 */
export function parseRecord(value: unknown, root: string): OwnershipRecord | "newer" | string {
  if (!isPlainObject(value)) return "not a JSON object";
  if (typeof value.version !== "number") return "no format version";
  if (value.version > RECORD_VERSION) return "newer";
  if (value.version !== RECORD_VERSION) return `unknown format version ${value.version}`;
  if (value.root !== root) return `it is for ${String(value.root)}`;
  if (!isPlainObject(value.files) || !isPlainObject(value.entries) || !Array.isArray(value.dirs))
    return "files, entries or dirs missing";
  for (const f of Object.values(value.files)) {
    if (!isPlainObject(f) || typeof f.sha256 !== "string" || typeof f.agent !== "string")
      return "a file entry is malformed";
  }
  for (const e of Object.values(value.entries)) {
    if (!isPlainObject(e) || typeof e.agent !== "string" || !isPlainObject(e.merge))
      return "a co-owned file entry is malformed";
  }
  return {
    version: RECORD_VERSION,
    root,
    files: value.files as Record<string, OwnedFile>,
    entries: value.entries as Record<string, OwnedEntries>,
    dirs: value.dirs.filter((d): d is string => typeof d === "string"),
    lastApply: typeof value.lastApply === "string" ? value.lastApply : null,
  };
}
