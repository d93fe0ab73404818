/**
 * kanon.lock (reference §3.4–§3.5): one entry per enabled git skill provider pinning its declared
 * source to a commit and a content hash. `kanon lock` pins what is not pinned yet (it never advances an
 * existing pin), `kanon lock update` re-resolves named providers or all of them, `kanon lock check`
 * verifies that the lock matches kanon.yaml, the cached content and the remote.
 *
 * Stale entries (providers no longer enabled) are dropped by every command that writes the lock, not
 * only the named one in `lock update <name>` (as in the Go original, §7.12): `lock check` rejects stale
 * entries, so a written lock must not keep any.
 */
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { KanonConfig } from "../model/config.js";
import { randomHex } from "../model/crypto.js";
import { goQuote } from "../model/text.js";
import { KanonError } from "../model/types.js";
import { encodeGoYaml, type GoMap } from "./goyaml.js";
import { loadLock, lockPath, sortEntries, validateLock } from "./lock-file.js";
import { FIELDS, LOCK_VERSION, type Lock, type LockEntry } from "./lock-types.js";
import { materializeProvider, type ProviderIo, resolveProvider } from "./materialize.js";
import {
  enabledProviders,
  hasLiteralCredentials,
  isImmutableRef,
  lockMismatch,
  normalizeSource,
  type Provider,
} from "./source.js";

/** Owner prefixes of skill entries, current and legacy. */
const SKILL_OWNER_PREFIXES = ["skill.git.", "skill_source.", "skill."];

/** The kanon.lock text: the Go original's YAML (2-space indentation, every key present). */
export function formatLock(lock: Lock): string {
  const doc: GoMap = {
    kind: "map",
    ordered: true,
    entries: [
      ["version", { kind: "int", value: BigInt(lock.version) }],
      [
        "sources",
        lock.sources.map(
          (e): GoMap => ({ kind: "map", ordered: true, entries: FIELDS.map((f) => [f, e[f]]) }),
        ),
      ],
    ],
  };
  return encodeGoYaml(doc, 2);
}

/**
 * Write `<home>/kanon.lock` (version 1, entries sorted by owner then url) atomically: a temp file in the
 * same directory, renamed over the old one. Returns the path.
 */
export async function writeLock(home: string, lock: Lock): Promise<string> {
  const next: Lock = { version: LOCK_VERSION, sources: sortEntries(lock.sources) };
  const errors = validateLock(next);
  if (errors.length > 0) throw new KanonError(errors.join("\n"));
  const path = lockPath(home);
  await mkdir(home, { recursive: true });
  const tmp = join(home, `.kanon.lock.${process.pid}.${randomHex(4)}.tmp`);
  try {
    await writeFile(tmp, formatLock(next), { mode: 0o644 });
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  return path;
}

function rejectLiteralCredentials(p: Provider): void {
  if (hasLiteralCredentials(p.source.url)) {
    throw new KanonError(
      `git skill provider ${goQuote(p.name)} url: contains literal credentials; use environment references instead`,
    );
  }
}

/** Resolve the provider's declared ref afresh into a lock entry. */
async function resolveEntry(
  home: string,
  p: Provider,
  env: NodeJS.ProcessEnv,
  io: ProviderIo,
): Promise<LockEntry> {
  rejectLiteralCredentials(p);
  const normalized = normalizeSource(p.source);
  if (!normalized.ok) {
    throw new KanonError(`git skill provider ${goQuote(p.name)} source subdir: ${normalized.error}`);
  }
  const { resolved, hash } = await resolveProvider(home, p, env, io);
  const s = normalized.source;
  return {
    owner: p.owner,
    type: s.type,
    url: s.url,
    ref: s.ref,
    subdir: s.subdir,
    resolved_ref: resolved,
    content_sha256: hash,
  };
}

/** The existing entry when it still matches the provider's declared source. */
function keepable(p: Provider, existing: Map<string, LockEntry>): LockEntry | undefined {
  const entry = existing.get(p.owner);
  if (!entry || lockMismatch(entry, p.source) !== null) return undefined;
  rejectLiteralCredentials(p);
  return entry;
}

const byOwner = (lock: Lock | null) => new Map((lock?.sources ?? []).map((e) => [e.owner, e]));

/** The lock `kanon lock` writes: matching entries kept, missing or changed ones resolved, stale ones dropped. */
export async function computeLock(
  home: string,
  config: KanonConfig,
  env: NodeJS.ProcessEnv,
  io: ProviderIo = {},
): Promise<Lock> {
  const existing = byOwner(await loadLock(home));
  const entries: LockEntry[] = [];
  for (const p of enabledProviders(config, env)) {
    entries.push(keepable(p, existing) ?? (await resolveEntry(home, p, env, io)));
  }
  return { version: LOCK_VERSION, sources: sortEntries(entries) };
}

/** `kanon lock`: returns the line to print. */
export async function lock(
  home: string,
  config: KanonConfig,
  env: NodeJS.ProcessEnv,
  io: ProviderIo = {},
): Promise<string> {
  const next = await computeLock(home, config, env, io);
  const path = await writeLock(home, next);
  return `Locked ${next.sources.length} git skill provider(s) in ${path}`;
}

/** The provider names a lock entry's owner answers to (`skill.git.foo` → `foo` and `git.foo`). */
function ownerNames(owner: string): string[] {
  const names: string[] = [];
  for (const prefix of SKILL_OWNER_PREFIXES) {
    if (!owner.startsWith(prefix)) continue;
    const name = owner.slice(prefix.length);
    if (name !== "" && !names.includes(name)) names.push(name);
  }
  return names;
}

/** The lock `kanon lock update` writes. */
export async function computeUpdate(
  home: string,
  config: KanonConfig,
  env: NodeJS.ProcessEnv,
  names: readonly string[] | "all",
  io: ProviderIo = {},
): Promise<Lock> {
  const providers = enabledProviders(config, env);
  if (names === "all") {
    const entries: LockEntry[] = [];
    for (const p of providers) entries.push(await resolveEntry(home, p, env, io));
    return { version: LOCK_VERSION, sources: sortEntries(entries) };
  }
  if (names.length === 0) throw new KanonError("lock update requires a git skill provider name or --all");
  const current = new Map<string, Provider>();
  for (const p of providers) {
    if (current.has(p.name)) throw new KanonError(`git skill provider name ${goQuote(p.name)} is ambiguous`);
    current.set(p.name, p);
  }
  const currentOwners = new Set(providers.map((p) => p.owner));
  const existing = byOwner(await loadLock(home));
  const stale = new Set<string>();
  for (const entry of existing.values()) {
    if (!currentOwners.has(entry.owner)) for (const n of ownerNames(entry.owner)) stale.add(n);
  }
  const named = [...new Set(names)];
  for (const name of named) {
    if (!current.has(name) && !stale.has(name)) {
      throw new KanonError(`git skill provider ${goQuote(name)} not found in enabled config or kanon.lock`);
    }
  }
  const entries = new Map<string, LockEntry>();
  for (const p of providers) {
    if (named.includes(p.name)) continue;
    entries.set(p.owner, keepable(p, existing) ?? (await resolveEntry(home, p, env, io)));
  }
  for (const name of named) {
    const p = current.get(name);
    if (p) entries.set(p.owner, await resolveEntry(home, p, env, io));
  }
  return { version: LOCK_VERSION, sources: sortEntries([...entries.values()]) };
}

/** `kanon lock update <names…>` / `--all` (names = "all"): returns the line to print. */
export async function updateLock(
  home: string,
  config: KanonConfig,
  env: NodeJS.ProcessEnv,
  names: readonly string[] | "all",
  io: ProviderIo = {},
): Promise<string> {
  const next = await computeUpdate(home, config, env, names, io);
  return `Updated ${await writeLock(home, next)}`;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The `lock check` errors (§3.5), in the reference's order: a missing lock (when required), stale
 * entries, then per provider a missing entry (when required), a coordinate mismatch, the pinned
 * content (cache or fetch, hash-checked), and the declared ref re-resolved against the pin.
 */
export async function lockErrors(
  home: string,
  config: KanonConfig,
  env: NodeJS.ProcessEnv,
  options: { requireLocked: boolean },
  io: ProviderIo = {},
): Promise<string[]> {
  const providers = enabledProviders(config, env);
  let lock: Lock | null;
  try {
    lock = await loadLock(home);
  } catch (e) {
    return [message(e)];
  }
  if (!lock) {
    return options.requireLocked && providers.length > 0
      ? [`${lockPath(home)} is required for git skill providers; run kanon lock`]
      : [];
  }
  const errors: string[] = [];
  const owners = new Set(providers.map((p) => p.owner));
  for (const entry of lock.sources) {
    if (SKILL_OWNER_PREFIXES.some((prefix) => entry.owner.startsWith(prefix)) && !owners.has(entry.owner)) {
      errors.push(`kanon.lock has stale entry ${goQuote(entry.owner)}`);
    }
  }
  const existing = byOwner(lock);
  for (const p of providers) {
    const n = goQuote(p.name);
    const entry = existing.get(p.owner);
    if (!entry) {
      if (options.requireLocked) errors.push(`git skill provider ${n} is missing from kanon.lock`);
      continue;
    }
    const mismatch = lockMismatch(entry, p.source);
    if (mismatch) {
      errors.push(mismatch);
      continue;
    }
    try {
      await materializeProvider(home, p, entry, env, io);
    } catch (e) {
      errors.push(message(e));
      continue;
    }
    let resolved: Awaited<ReturnType<typeof resolveProvider>>;
    try {
      resolved = await resolveProvider(home, p, env, io);
    } catch (e) {
      errors.push(message(e));
      continue;
    }
    if (resolved.resolved !== entry.resolved_ref) {
      errors.push(
        `git skill provider ${n} resolves to ${resolved.resolved}, but kanon.lock pins ${entry.resolved_ref}`,
      );
    }
    if (resolved.hash !== entry.content_sha256) {
      errors.push(
        `git skill provider ${n} content hash is ${resolved.hash}, but kanon.lock pins ${entry.content_sha256}`,
      );
    }
  }
  return errors;
}

/** `kanon lock check`: returns `kanon.lock is valid.` or throws the errors, one per line. */
export async function checkLock(
  home: string,
  config: KanonConfig,
  env: NodeJS.ProcessEnv,
  options: { requireLocked: boolean },
  io: ProviderIo = {},
): Promise<string> {
  const errors = await lockErrors(home, config, env, options, io);
  if (errors.length > 0) throw new KanonError(errors.join("\n"));
  return "kanon.lock is valid.";
}

/**
 * `validate` warnings (§3.6, without the `warning: ` prefix): a provider whose ref is not a full commit
 * SHA and that has no matching lock entry.
 */
export function mutableRefWarnings(config: KanonConfig, lock: Lock | null, env: NodeJS.ProcessEnv): string[] {
  const existing = byOwner(lock);
  const out: string[] = [];
  for (const p of enabledProviders(config, env)) {
    if (isImmutableRef(p.source.ref)) continue;
    const entry = existing.get(p.owner);
    if (!entry || lockMismatch(entry, p.source) !== null) {
      out.push(
        `git skill provider ${goQuote(p.name)} ref ${goQuote(p.source.ref)} is mutable without a matching kanon.lock entry`,
      );
    }
  }
  return out;
}
