/**
 * Target state + ownership record → plan: what would change on disk. Each rendered file is compared
 * with its destination (co-owned files are merged first: only kanon's entries change); what the record
 * says kanon wrote and no longer renders is deleted (files) or taken out (entries in co-owned files).
 * A change that overwrites or deletes content kanon did not write, or that was edited since kanon
 * wrote it, is marked so that apply backs it up and every command can say so.
 */
import type { Stats } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { unwritableToml } from "../formats/toml-limits.js";
import { decodeBytes, encodeText } from "../formats/utf8.js";
import type { PlainObject } from "../formats/values.js";
import { ReadRefused } from "../model/bounded-read.js";
import { osErrorText } from "../model/fs-errors.js";
import { type AgentId, KanonError, type MergeSpec, type TargetFile } from "../model/types.js";
import { renderedHandlers } from "./edit/handlers.js";
import { normaliseManaged } from "./edit/intended.js";
import { type DestinationFs, realFs } from "./fs.js";
import {
  contentHash,
  emptyManaged,
  emptyRecord,
  fileOwners,
  mergeRegions,
  type OwnedEntries,
  type OwnedFile,
  type OwnedRegion,
  type OwnershipRecord,
  octalMode,
  ownedFile,
  ownedLabels,
  ownsSomething,
  type Replaces,
  valueHash,
} from "./record.js";
import { tempOwner } from "./temp-name.js";

/** The layout-preserving editors, loaded on first use. */
type CoOwned = typeof import("./edit/index.js");

export interface Change {
  file: TargetFile;
  /** The destination written: `file.path`, an existing alternative of it, or a symlink's target. */
  path: string;
  action: "create" | "update" | "delete";
  before: Uint8Array | null;
  /** null for a deletion. */
  after: Uint8Array | null;
  /** Mode the file will have (an existing file keeps its own unless kanon owns it whole). */
  mode: number;
  beforeMode: number | null;
  /**
   * "foreign": the change overwrites or deletes content kanon did not write; "edited": content kanon
   * wrote and someone changed since. Apply saves the old bytes first.
   */
  replaces?: Replaces;
  /** kanon's entries taken out of a co-owned file (`mcpServers.github`, `PreToolUse Bash: guard`). */
  removed?: string[];
  /**
   * The user's own bytes, as in a co-owned file (a Kanon home file that an import writes): flushed
   * before its rename and renamed first, its old bytes copied into the history (see apply.ts).
   */
  guard?: true;
  /**
   * The other rendered paths that are this same file on disk (a symlink leads from one to the other,
   * or to a folder above it): their identical content is written once, by this change.
   */
  aliases?: string[];
}

export interface Plan {
  changes: Change[];
  /** The ownership record as it stands once every change is written. */
  record: OwnershipRecord;
  /** Directories kanon created that no longer hold anything of kanon's (deepest first). */
  emptyDirs: string[];
  /** Files the user added inside such directories: kept (so is the directory), with a warning. */
  warnings: string[];
}

export interface PlanOptions {
  /** What kanon wrote here before; null on a machine it has never seen. */
  record: OwnershipRecord | null;
  /** The destination root (the home directory or the project). */
  root: string;
  /** Agents this command manages: the record's entries of other agents are left alone. */
  agents: readonly AgentId[];
  /**
   * The paths an interrupted apply was writing: the directories it created for them go too once
   * nothing needs them (it may have been killed before any file landed in them).
   */
  interrupted?: readonly string[];
  /**
   * kanon's own folders that other destination roots write into too (its data folder, which holds
   * the user's hook runner and each project's): once nothing of this root's is left in one, it is
   * removed if empty and otherwise kept without a warning, since what is left there is kanon's.
   */
  sharedDirs?: readonly string[];
  /** Where the destination is read (the real disk unless a test says otherwise). */
  fs?: DestinationFs;
}

/**
 * What the steps of planChanges share: the disk, the old record and the new one it builds, and the
 * changes found so far.
 */
interface Planning {
  fs: DestinationFs;
  previous: OwnershipRecord;
  /** The agents this command manages: the record's entries of other agents are left alone. */
  selected: ReadonlySet<string>;
  record: OwnershipRecord;
  changes: Change[];
  /** Co-owned paths kanon renders. */
  merged: Set<string>;
  /** Paths kanon deletes: the directories it created for them may go too. */
  deleted: string[];
  /**
   * The hashes of what kanon writes are for the new record, which only apply reads: they are made
   * when the record is first read (diff and status never do).
   */
  pending: (() => void)[];
  /** Whether each directory is one (folderCache). */
  isDir: (dir: string) => boolean | null;
  /** The layout-preserving editors, once a co-owned file that exists needs them. */
  coOwned?: CoOwned;
  /** The file a path is on disk, symlinked folders resolved: its folder's identity (folderCache), then its name. */
  identity: (path: string) => string;
  /** Each file on disk that a rendered path leads to, by identity: what is planned for it. */
  claimed: Map<string, Claim>;
}

/** A rendered destination, as planned, for the file on disk it leads to. */
interface Claim {
  path: string;
  file: TargetFile;
  change: Change | null;
}

/**
 * Synchronous reads: thousands of small files are read several times faster than with promises. The
 * layout-preserving editors (and their parsers) load only when a co-owned file already exists.
 * Three passes: the files kanon renders; co-owned files where it renders nothing any more; files it
 * wrote and no longer renders. Then the directories it created that nothing needs.
 */
export async function planChanges(files: readonly TargetFile[], options?: PlanOptions): Promise<Plan> {
  const root = options?.root ?? "/";
  const fs = options?.fs ?? realFs;
  const previous = options?.record ?? emptyRecord(root);
  const selected = new Set(options?.agents ?? files.map((f) => f.agent));
  const folder = folderCache(fs);
  const p: Planning = {
    fs,
    previous,
    selected,
    record: keptRecord(root, previous, selected),
    changes: [],
    merged: new Set(),
    deleted: [],
    pending: [],
    isDir: (dir) => folder(dir).isDir,
    identity: (path) => `${folder(dirname(path)).id}/${basename(path)}`,
    claimed: new Map(),
  };
  await planRendered(p, files);
  await planLeftEntries(p);
  planLeftFiles(p);

  const { emptyDirs, kept, warnings } = unneededDirs(
    previous.dirs,
    [...p.deleted, ...(options?.interrupted ?? [])],
    new Set(p.deleted),
    p.record,
    fs,
    new Set(options?.sharedDirs),
  );
  p.record.dirs = [...kept];
  const { record, pending } = p;
  return {
    changes: p.changes,
    get record() {
      for (const make of pending.splice(0)) make();
      return record;
    },
    emptyDirs,
    warnings,
  };
}

/** Whether a file of the record is (partly) one of the selected agents'. */
const mine = (selected: ReadonlySet<string>, owned: OwnedFile) =>
  fileOwners(owned).some((a) => selected.has(a));

/** The agents outside this command keep their share of a file several agents render. */
const others = (selected: ReadonlySet<string>, owned: OwnedFile | undefined) =>
  owned ? fileOwners(owned).filter((a) => !selected.has(a)) : [];

function exists(fs: DestinationFs, path: string): boolean {
  try {
    return fs.stat(path) !== null;
  } catch {
    return false;
  }
}

async function loadCoOwned(p: Planning): Promise<CoOwned> {
  p.coOwned ??= await import("./edit/index.js");
  return p.coOwned;
}

/** The new record starts with what the old one says of the agents this command leaves alone. */
function keptRecord(root: string, previous: OwnershipRecord, selected: ReadonlySet<string>): OwnershipRecord {
  const record: OwnershipRecord = { ...emptyRecord(root), lastApply: previous.lastApply };
  // for…in, not Object.entries: a record can name hundreds of thousands of files (a large provider),
  // and a pair array for each of them was a third of a diff's time with a 100 MB record.
  for (const path in previous.files)
    if (!mine(selected, previous.files[path]!)) record.files[path] = previous.files[path]!;
  for (const [path, e] of Object.entries(previous.entries))
    if (!selected.has(e.agent)) record.entries[path] = e;
  return record;
}

/** Each rendered file against its destination: merged into a co-owned file, or compared whole. */
async function planRendered(p: Planning, files: readonly TargetFile[]): Promise<void> {
  const probe = destinationProbe(p.fs, p.isDir);
  for (const file of files) {
    // The record keys the path kanon renders; a symlink there is read and written at its target.
    const path = chooseDestination(file, p.fs);
    const { target, stat } = probe(path);
    if (file.merge) {
      p.merged.add(path);
      if (exists(p.fs, target)) await loadCoOwned(p);
      const previous = p.previous.entries[path];
      const change = claim(
        p,
        path,
        target,
        file,
        planMerged(file, path, target, previous, p.coOwned, p.record, p.pending, p.fs),
      );
      if (change) p.changes.push(change);
      if (change?.action === "delete") p.deleted.push(path);
    } else {
      const owned = p.previous.files[path];
      const change = claim(p, path, target, file, planWhole(file, target, stat, owned?.sha256, p.fs));
      const owners = [file.agent, ...(file.sharedWith ?? []), ...others(p.selected, owned)];
      const entry = ownedFile(owners, "", octalMode(file.mode));
      p.record.files[path] = entry;
      p.pending.push(() => {
        entry.sha256 = contentHash(file.content);
      });
      if (change) p.changes.push(change);
    }
  }
}

/** Co-owned files where kanon no longer renders anything: its entries there are taken out. */
async function planLeftEntries(p: Planning): Promise<void> {
  for (const [path, owned] of Object.entries(p.previous.entries)) {
    if (!p.selected.has(owned.agent) || p.merged.has(path) || !exists(p.fs, path)) continue;
    const file: TargetFile = {
      agent: owned.agent,
      path,
      content: new Uint8Array(),
      mode: 0o644,
      merge: owned.merge,
      managed: emptyManaged(owned.merge),
    };
    const target = symlinkTarget(path, p.fs);
    const coOwned = await loadCoOwned(p);
    const change = claim(
      p,
      path,
      target,
      file,
      planMerged(file, path, target, owned, coOwned, p.record, p.pending, p.fs),
    );
    if (change) p.changes.push(change);
    if (change?.action === "delete") p.deleted.push(path);
  }
}

/** Files kanon wrote and no longer renders are deleted. */
function planLeftFiles(p: Planning): void {
  for (const path in p.previous.files) {
    const owned = p.previous.files[path]!;
    if (!mine(p.selected, owned) || p.record.files[path] || p.merged.has(path)) continue;
    // Still rendered by an agent this command does not manage (`--agent codex` and a shared AGENTS.md).
    const keep = others(p.selected, owned);
    if (keep.length > 0) {
      p.record.files[path] = ownedFile(keep, owned.sha256, owned.mode);
      continue;
    }
    // Nothing to delete in a folder that is gone (a provider's skills removed by hand).
    if (p.isDir(dirname(path)) === false) continue;
    // Still rendered under another name (a symlinked folder leads there): it stays.
    if (p.claimed.has(p.identity(path))) continue;
    let st: Stats | null;
    try {
      st = p.fs.lstat(path);
    } catch {
      continue; // a parent is a file, or unreadable: nothing kanon can delete there
    }
    if (!st || st.isDirectory()) continue;
    const before = readDestinationBytes(path, p.fs);
    const file: TargetFile = { agent: owned.agent, path, content: new Uint8Array(), mode: st.mode & 0o777 };
    p.changes.push({
      file,
      path,
      action: "delete",
      before,
      after: null,
      mode: st.mode & 0o777,
      beforeMode: st.mode & 0o777,
      ...(contentHash(before) !== owned.sha256 ? { replaces: "edited" as const } : {}),
    });
    p.deleted.push(path);
  }
}

/**
 * Two rendered paths can lead to one file on disk (`CLAUDE.md -> AGENTS.md`, or `~/.claude/skills`
 * a symlink to `~/.agents/skills`): it is written once. The same bytes and mode are one change (the
 * first path's, naming the other); anything else would make each apply undo the other, or write the
 * file twice, so it is refused before anything is written. Returns the change to make, if any.
 */
function claim(
  p: Planning,
  path: string,
  target: string,
  file: TargetFile,
  change: Change | null,
): Change | null {
  const key = p.identity(target);
  const earlier = p.claimed.get(key);
  if (!earlier) {
    p.claimed.set(key, { path, file, change });
    return change;
  }
  const same =
    !file.merge &&
    !earlier.file.merge &&
    file.mode === earlier.file.mode &&
    Buffer.from(file.content).equals(earlier.file.content);
  const bothMerge = file.merge && earlier.file.merge;
  if (same) {
    if (earlier.change) earlier.change.aliases = [...(earlier.change.aliases ?? []), path];
    return null;
  }
  if (bothMerge && !(change && earlier.change)) return change;
  throw new KanonError(
    `${earlier.path} (${earlier.file.agent}) and ${path} (${file.agent}) are one file on disk, ${target} (a symlink leads from one to the other), and kanon renders different content for them: make one of them a file of its own, or render it for one agent only; nothing was written`,
  );
}

function planWhole(
  file: TargetFile,
  path: string,
  stat: Stats | null | undefined,
  recorded: string | undefined,
  fs: DestinationFs,
): Change | null {
  const disk = readDestination(path, fs, stat);
  if (!disk) {
    return {
      file,
      path,
      action: "create",
      before: null,
      after: file.content,
      mode: file.mode,
      beforeMode: null,
    };
  }
  const sameContent = disk.before.equals(file.content);
  if (disk.mode === file.mode && sameContent) return null;
  const replaces: Replaces | undefined = sameContent
    ? undefined
    : recorded === undefined
      ? "foreign"
      : recorded !== contentHash(disk.before)
        ? "edited"
        : undefined;
  return {
    file,
    path,
    action: "update",
    before: disk.before,
    after: file.content,
    mode: file.mode,
    beforeMode: disk.mode,
    ...(replaces ? { replaces } : {}),
  };
}

/**
 * A co-owned file: merged (only kanon's entries change); its record entry goes into `record` (for a
 * file kanon creates, once `pending` runs).
 */
function planMerged(
  file: TargetFile,
  path: string,
  target: string,
  previous: OwnedEntries | undefined,
  coOwned: CoOwned | undefined,
  record: OwnershipRecord,
  pending: (() => void)[],
  fs: DestinationFs,
): Change | null {
  const spec = file.merge!;
  const disk = readDestination(target, fs);
  if (!disk) {
    if (isEmptyManaged(file)) return null;
    // kanon never writes a file it could not edit again (formats/toml-syntax.ts).
    const problem =
      spec.format === "toml" ? unwritableToml(decodeBytes(file.content), spec, file.managed ?? {}) : null;
    if (problem !== null) throw new KanonError(`cannot write ${path}: ${problem}`);
    record.entries[path] = { agent: file.agent, merge: spec, created: true };
    pending.push(() => {
      record.entries[path] = { agent: file.agent, merge: spec, ...freshOwned(file), created: true };
    });
    return {
      file,
      path: target,
      action: "create",
      before: null,
      after: file.content,
      mode: file.mode,
      beforeMode: null,
    };
  }
  if (!coOwned) throw new KanonError(`${path} appeared while kanon was planning; run the command again`);
  const plan = coOwned.planCoOwned(
    decodeBytes(disk.before),
    spec,
    file.managed ?? {},
    path,
    previous,
    file.implied,
  );
  const created = previous?.created ? { created: true as const } : {};
  if (ownsSomething(plan.owned))
    record.entries[path] = { agent: file.agent, merge: spec, ...plan.owned, ...created };
  else if (previous?.created && coOwned.holdsNothing(plan.text, spec, path)) {
    // kanon created the file and its last entry goes: the file goes too, not an empty shell.
    return {
      file,
      path: target,
      action: "delete",
      before: disk.before,
      after: null,
      mode: disk.mode,
      beforeMode: disk.mode,
      ...(plan.replaces ? { replaces: plan.replaces } : {}),
      ...(plan.removed.length > 0 ? { removed: plan.removed } : {}),
    };
  }
  const after = encodeText(plan.text);
  if (disk.before.equals(after)) return null;
  return {
    file,
    path: target,
    action: "update",
    before: disk.before,
    after,
    mode: disk.mode,
    beforeMode: disk.mode,
    ...(plan.replaces ? { replaces: plan.replaces } : {}),
    ...(plan.removed.length > 0 ? { removed: plan.removed } : {}),
  };
}

/** A synthesised co-owned target that only takes kanon's entries out. */
function isEmptyManaged(file: TargetFile): boolean {
  return mergeRegions(file.merge!).every((region) => {
    const value = file.managed?.[region.key];
    return typeof value === "object" && value !== null && Object.keys(value).length === 0;
  });
}

/** kanon's entries in a co-owned file it creates (the editors are not loaded for a new file). */
function freshOwned(file: TargetFile): Pick<OwnedEntries, "names" | "handlers" | "labels" | "regions"> {
  const spec = file.merge!;
  if (spec.kind !== "regions") return freshRegion(spec, file.managed?.[spec.key]);
  const regions: Record<string, OwnedRegion> = {};
  for (const region of spec.regions) {
    const owned = freshRegion(region, file.managed?.[region.key]);
    if (ownsSomething(owned)) regions[region.key] = owned;
  }
  return { regions };
}

function freshRegion(spec: Exclude<MergeSpec, { kind: "regions" }>, value: unknown): OwnedRegion {
  if (spec.kind === "handlers") return { handlers: renderedHandlers(value as PlainObject).map((h) => h.key) };
  if (spec.kind === "hook-groups" || spec.kind === "tables") {
    const labels = ownedLabels(spec, value);
    return labels.length > 0 ? { labels } : {};
  }
  if (spec.kind !== "entries") return {};
  const entries = normaliseManaged(value, spec.format === "toml") as PlainObject;
  return { names: Object.fromEntries(Object.entries(entries).map(([n, v]) => [n, valueHash(v)])) };
}

/** `stat`: what destinationProbe found at `path` (null: nothing there), when it knows. */
function readDestination(
  path: string,
  fs: DestinationFs,
  stat?: Stats | null,
): { before: Buffer; mode: number } | null {
  if (stat === null) return null;
  try {
    const st = stat ?? fs.stat(path);
    if (!st) return null;
    if (st.isDirectory()) throw new KanonError(`cannot write ${path}: a directory is in the way`);
    return { before: readDestinationBytes(path, fs), mode: st.mode & 0o777 };
  } catch (e) {
    if (e instanceof KanonError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ENOTDIR")
      throw new KanonError(`cannot write ${path}: a parent of it is a file, not a directory`);
    throw new KanonError(`read ${path}: ${osErrorText(e)}`);
  }
}

/** A destination file's bytes, through the bounded reader (a FIFO or a device there is refused at once). */
function readDestinationBytes(path: string, fs: DestinationFs): Buffer {
  try {
    return fs.readFile(path);
  } catch (e) {
    if (e instanceof ReadRefused) throw new KanonError(`read ${e.message}`);
    throw e;
  }
}

/**
 * Directories kanon created above `touched` paths (deleted, or written by an interrupted apply) that
 * hold nothing of kanon's once `gone` are deleted: removed deepest first, unless the user put files in
 * them (those are named in a warning, and their directories stay). kanon's own temporary files are no
 * reason to keep one: the apply removes those of an interrupted run before it removes directories.
 */
function unneededDirs(
  dirs: readonly string[],
  touchedPaths: readonly string[],
  gone: ReadonlySet<string>,
  record: OwnershipRecord,
  fs: DestinationFs,
  shared: ReadonlySet<string>,
): { emptyDirs: string[]; kept: string[]; warnings: string[] } {
  if (touchedPaths.length === 0 || dirs.length === 0) return { emptyDirs: [], kept: [...dirs], warnings: [] };
  const needed = ancestors([...Object.keys(record.files), ...Object.keys(record.entries)]);
  const touched = ancestors(touchedPaths);
  const candidates = dirs.filter((d) => touched.has(d) && !needed.has(d)).sort((a, b) => b.length - a.length);
  const removable = new Set<string>();
  const warnings: string[] = [];
  for (const dir of candidates) {
    let entries: string[];
    try {
      entries = fs.readdir(dir);
    } catch {
      continue;
    }
    const foreign = entries
      .filter((e) => tempOwner(e) === null)
      .map((e) => join(dir, e))
      .filter((p) => !gone.has(p) && !removable.has(p));
    if (foreign.length === 0) removable.add(dir);
    else if (!shared.has(dir))
      for (const p of foreign)
        if (!candidates.includes(p)) warnings.push(`kept ${p}: kanon did not write it (so ${dir} stays)`);
  }
  return {
    emptyDirs: [...removable],
    kept: dirs.filter((d) => !removable.has(d)),
    warnings,
  };
}

function ancestors(paths: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const p of paths) {
    for (let d = dirname(p); !out.has(d); d = dirname(d)) {
      out.add(d);
      if (dirname(d) === d) break;
    }
  }
  return out;
}

/** For co-owned documents with alternative names (opencode.json / opencode.jsonc): the first that exists. */
function chooseDestination(file: TargetFile, fs: DestinationFs): string {
  if (!file.alternatives) return file.path;
  return [file.path, ...file.alternatives].find((p) => fs.lstat(p)) ?? file.path;
}

/**
 * A destination that is a symlink is written at its final target, which need not exist yet (a
 * dangling link stays a link and its target is created); anything else is written where it is.
 */
export function symlinkTarget(path: string, fs: DestinationFs = realFs): string {
  return followLinks(path, fs, (p) => fs.lstat(p)).target;
}

/**
 * `stat`: the target's lstat (never a symlink), null when nothing is there, undefined when lstat
 * failed otherwise (readDestination then says why).
 */
interface Probed {
  target: string;
  stat: Stats | null | undefined;
}

function followLinks(path: string, fs: DestinationFs, lstat: (p: string) => Stats | null): Probed {
  let p = path;
  for (let hops = 0; hops < 40; hops++) {
    let st: Stats | null;
    let link: string;
    try {
      st = lstat(p);
      if (!st?.isSymbolicLink()) return { target: p, stat: st };
      link = fs.readlink(p);
    } catch {
      return { target: p, stat: undefined };
    }
    p = resolve(dirname(p), link);
  }
  throw new KanonError(`cannot write ${path}: too many levels of symbolic links`);
}

/**
 * symlinkTarget with the lstat it made, for one plan. A large home renders thousands of files into
 * a few hundred directories, most of them missing on a new machine: each directory is looked at
 * once, and nothing in a missing one is. No exceptions either (they cost more than the system call).
 */
function destinationProbe(
  fs: DestinationFs,
  isDir: (dir: string) => boolean | null,
): (path: string) => Probed {
  return (path) =>
    followLinks(path, fs, (p) => {
      const inDir = isDir(dirname(p));
      if (inDir === false) return null;
      return fs.lstat(p);
    });
}

/**
 * What a plan knows of each folder, looked at once: whether it is one (true; false, missing; null,
 * something else, or unreadable: the file's own lstat then says why), and which folder it is on
 * disk (by device and inode, symlinked folders resolved; a folder that does not exist yet by its
 * parent's).
 */
interface Folder {
  isDir: boolean | null;
  id: string;
}

function folderCache(fs: DestinationFs): (dir: string) => Folder {
  const known = new Map<string, Folder>();
  const folder = (dir: string): Folder => {
    let f = known.get(dir);
    if (f !== undefined) return f;
    let st: Stats | null | undefined;
    try {
      st = fs.stat(dir);
    } catch {
      st = undefined;
    }
    if (st) f = { isDir: st.isDirectory() || null, id: `${st.dev}:${st.ino}` };
    else if (dirname(dir) === dir) f = { isDir: null, id: dir };
    else {
      // Missing (its parent is a directory, or missing too), or a parent is not a directory.
      const parent = folder(dirname(dir));
      f = { isDir: st === null && parent.isDir !== null ? false : null, id: `${parent.id}/${basename(dir)}` };
    }
    known.set(dir, f);
    return f;
  };
  return folder;
}
