/**
 * Materialising git skill providers (reference §3.2): each provider's tree at its locked commit (or its
 * declared ref when unlocked) lives in `<home>/.kanon/cache/sources/<key>`. An existing cache entry is
 * used as it is (so kanon works offline once fetched), checked against the lock's content hash when
 * there is one. A fetch goes into a `.tmp-source-*` directory next to the cache and is renamed into
 * place only after the tree was validated and hashed, so a failed fetch leaves nothing behind.
 *
 * An unlocked branch or tag is not refreshed once cached (as in the Go original, §7.11): rendering never
 * needs the network, and what agents get changes only when the user says so. `kanon lock` pins it and
 * `kanon lock update` advances it; `validate` warns about such refs. `kanon lock check` always asks the
 * remote, since its job is to say whether the pin is still what the ref resolves to.
 */
import { lstat, mkdir, mkdtemp, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { KanonConfig } from "../model/config.js";
import { expandEnv } from "../model/env.js";
import { osErrorText } from "../model/fs-errors.js";
import type { ProviderSkills } from "../model/source.js";
import { goQuote } from "../model/text.js";
import { KanonError } from "../model/types.js";
import { checkoutRef, GitError, redactUrl } from "./git.js";
import type { Lock, LockEntry } from "./lock-types.js";
import { providerName } from "./name.js";
import { type ProviderChild, type ProviderTree, readProviderTree, selectChildren } from "./provider-tree.js";
import {
  cachePath,
  cacheRoot,
  cleanSubdir,
  isValidRef,
  lockMismatch,
  type Provider,
  toProvider,
  urlProblem,
} from "./source.js";

export interface ProviderIo {
  /** Progress lines (which provider, what is happening); pass one only on a terminal. */
  progress?: (line: string) => void;
  /**
   * Whether a provider is needed, given its `targets` (e.g. only when it targets a selected agent);
   * providers not needed are neither fetched nor read. Default: all.
   */
  wanted?: (targets: string[] | undefined) => boolean;
}

const label = (name: string) => `git skill provider ${goQuote(name)}`;

interface Prepared {
  expandedUrl: string;
  subdir: string;
}

/** Check a provider's source before git sees any of it (§3.2 step 1). */
function prepare(p: Provider, env: NodeJS.ProcessEnv): Prepared {
  const l = label(p.name);
  if (p.source.type !== "git")
    throw new KanonError(`${l} source has unsupported type ${goQuote(p.source.type)}`);
  if (!isValidRef(p.source.ref)) throw new KanonError(`${l} source has invalid ref ${goQuote(p.source.ref)}`);
  const expandedUrl = expandEnv(p.source.url, env);
  if (expandedUrl.trim() === "") throw new KanonError(`${l} source requires url`);
  const problem = urlProblem(expandedUrl);
  if (problem) throw new KanonError(`${l} source has invalid url: ${problem}`);
  const subdir = cleanSubdir(p.source.subdir);
  if (!subdir.ok) throw new KanonError(`${l} source subdir: ${subdir.error}`);
  return { expandedUrl, subdir: subdir.value };
}

async function exists(path: string, name: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new KanonError(`${label(name)} cache: stat ${path}: ${osErrorText(e)}`);
  }
}

const STALE_TEMP_MS = 24 * 60 * 60 * 1000;

/** Temp directories of fetches that were killed half-way (best effort; never fails a command). */
async function removeStaleTemps(parent: string): Promise<void> {
  try {
    const now = Date.now();
    for (const name of await readdir(parent)) {
      if (!name.startsWith(".tmp-source-")) continue;
      const path = join(parent, name);
      const st = await lstat(path);
      if (now - st.mtimeMs > STALE_TEMP_MS) await rm(path, { recursive: true, force: true });
    }
  } catch {
    // best effort
  }
}

interface Fetched {
  /** The temp directory to remove once done. */
  tmp: string;
  /** The provider root inside it. */
  path: string;
  resolved: string;
  tree: ProviderTree;
}

/**
 * Fetch `ref` of the provider into a temp dir, take its subdir (checked component by component: no
 * symlink may lead out of the repository), drop `.git`, validate and hash the tree.
 */
async function fetchTree(
  home: string,
  p: Provider,
  prepared: Prepared,
  ref: string,
  env: NodeJS.ProcessEnv,
  io: ProviderIo,
): Promise<Fetched> {
  const l = label(p.name);
  const parent = cacheRoot(home);
  let tmp: string;
  try {
    await mkdir(parent, { recursive: true });
    tmp = await mkdtemp(join(parent, ".tmp-source-"));
  } catch (e) {
    throw new KanonError(`${l} source cache: ${osErrorText(e)}`);
  }
  try {
    await removeStaleTemps(parent);
    // The declared URL: its ${VAR} references stay unexpanded, so no secret from the environment shows.
    io.progress?.(`${l}: fetching ${redactUrl(p.source.url)} at ${ref}`);
    const repo = join(tmp, "repo");
    let resolved: string;
    try {
      resolved = await checkoutRef({ url: prepared.expandedUrl, ref, dir: repo, env });
    } catch (e) {
      if (e instanceof GitError) throw new KanonError(`${l} source: ${e.message}`);
      throw e;
    }
    io.progress?.(`${l}: checked out ${resolved}`);
    let path = repo;
    const s = goQuote(p.source.subdir);
    for (const part of prepared.subdir ? prepared.subdir.split("/") : []) {
      path = join(path, part);
      let st: Awaited<ReturnType<typeof lstat>>;
      try {
        st = await lstat(path);
      } catch (e) {
        throw new KanonError(`${l} source subdir ${s}: ${osErrorText(e)}`);
      }
      if (!st.isDirectory()) throw new KanonError(`${l} source subdir ${s} is not a directory`);
    }
    if (prepared.subdir === "") {
      try {
        await rm(join(repo, ".git"), { recursive: true, force: true });
      } catch (e) {
        throw new KanonError(`${l} source metadata: ${osErrorText(e)}`);
      }
    }
    const tree = await readProviderTree(p.name, path);
    return { tmp, path, resolved, tree };
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
}

/**
 * Move a validated tree into the cache. With `replace`, an existing entry is moved aside first (into
 * `aside`, removed with the temp dir). If the rename fails but a valid cache entry is there now (another
 * kanon won the race), that entry is kept.
 */
export async function installTree(
  provider: string,
  sourcePath: string,
  cache: string,
  options: { replace?: boolean; aside?: string } = {},
): Promise<void> {
  const l = label(provider);
  try {
    await mkdir(dirname(cache), { recursive: true });
    if (options.replace && options.aside) {
      try {
        await rename(cache, options.aside);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
    }
  } catch (e) {
    throw new KanonError(`${l} source cache: ${osErrorText(e)}`);
  }
  try {
    await rename(sourcePath, cache);
  } catch (e) {
    try {
      await stat(cache);
    } catch {
      throw new KanonError(`${l} source cache: rename ${sourcePath} ${cache}: ${osErrorText(e)}`);
    }
    await readProviderTree(provider, cache);
  }
}

export interface Materialized {
  /** The cache directory holding the provider root. */
  path: string;
  tree: ProviderTree;
}

/**
 * The provider's tree: from the cache when present, else fetched. With a lock entry, the locked commit
 * and content hash are required (§3.2 step 2).
 */
export async function materializeProvider(
  home: string,
  p: Provider,
  entry: LockEntry | undefined,
  env: NodeJS.ProcessEnv,
  io: ProviderIo = {},
): Promise<Materialized> {
  const l = label(p.name);
  const prepared = prepare(p, env);
  const ref = entry ? entry.resolved_ref : p.source.ref;
  const want = entry?.content_sha256;
  const cache = cachePath(home, prepared.expandedUrl, ref, prepared.subdir);
  if (await exists(cache, p.name)) {
    const tree = await readProviderTree(p.name, cache);
    if (want !== undefined && tree.hash !== want) {
      throw new KanonError(`${l} cache hash mismatch: got ${tree.hash}, want ${want}`);
    }
    return { path: cache, tree };
  }
  const fetched = await fetchTree(home, p, prepared, ref, env, io);
  try {
    if (entry && fetched.resolved !== entry.resolved_ref) {
      throw new KanonError(`${l} resolved ${fetched.resolved}, want ${entry.resolved_ref}`);
    }
    if (want !== undefined && fetched.tree.hash !== want) {
      throw new KanonError(`${l} hash mismatch: got ${fetched.tree.hash}, want ${want}`);
    }
    await installTree(p.name, fetched.path, cache);
    return { path: cache, tree: fetched.tree };
  } finally {
    await rm(fetched.tmp, { recursive: true, force: true });
  }
}

export interface Resolved {
  resolved: string;
  hash: string;
  tree: ProviderTree;
}

/**
 * Fetch the declared ref afresh (never the cache), and replace the cache entry of the commit it
 * resolves to (used by lock, lock update and lock check).
 */
export async function resolveProvider(
  home: string,
  p: Provider,
  env: NodeJS.ProcessEnv,
  io: ProviderIo = {},
): Promise<Resolved> {
  const prepared = prepare(p, env);
  const fetched = await fetchTree(home, p, prepared, p.source.ref, env, io);
  try {
    const cache = cachePath(home, prepared.expandedUrl, fetched.resolved, prepared.subdir);
    await installTree(p.name, fetched.path, cache, { replace: true, aside: join(fetched.tmp, "previous") });
    return { resolved: fetched.resolved, hash: fetched.tree.hash, tree: fetched.tree };
  } finally {
    await rm(fetched.tmp, { recursive: true, force: true });
  }
}

/**
 * Every enabled git provider (in config order) materialised and its children selected by
 * include/exclude, files read, so rendering needs no I/O. A lock entry that no longer matches the
 * config is an error (`kanon.lock entry … run kanon lock`).
 */
export async function materializeProviders(
  home: string,
  config: KanonConfig,
  lock: Lock | null,
  env: NodeJS.ProcessEnv,
  io: ProviderIo = {},
): Promise<ProviderSkills[]> {
  const out: ProviderSkills[] = [];
  for (const [entryIndex, entry] of config.skills.entries()) {
    if (entry.enabled === false || !entry.git) continue;
    const named = providerName(entry, env);
    if (!named.ok) throw new KanonError(`git skill provider: ${named.error}`);
    if (io.wanted && !io.wanted(entry.targets)) continue;
    const p = toProvider(entry, entryIndex, named.name);
    const locked = lock?.sources.find((e) => e.owner === p.owner);
    if (locked) {
      const mismatch = lockMismatch(locked, p.source);
      if (mismatch) throw new KanonError(mismatch);
    }
    const { tree } = await materializeProvider(home, p, locked, env, io);
    const children: ProviderChild[] = selectChildren(p.name, tree.children, entry.include, entry.exclude);
    out.push({ name: p.name, entryIndex, targets: entry.targets, children });
  }
  return out;
}
