/**
 * A git skill provider as the lock and the cache see it (reference §3.1): its name, owner key and
 * remote source, plus the rules on refs, subdirs and URLs they share.
 */
import { join } from "node:path";
import type { KanonConfig, SkillEntry } from "../model/config.js";
import { sha256Hex } from "../model/crypto.js";
import { envRefs, envValue } from "../model/env.js";
import { goQuote } from "../model/text.js";
import { providerName, providerOwner } from "./name.js";

/** The remote source as declared: URL and ref verbatim (not env-expanded), subdir cleaned, slash form. */
export interface RemoteSource {
  type: string;
  url: string;
  ref: string;
  subdir: string;
}

export interface Provider {
  name: string;
  /** `skill.git.<name>`, the key of its kanon.lock entry. */
  owner: string;
  /** Index of the entry in `config.skills`. */
  entryIndex: number;
  entry: SkillEntry;
  /** The declared source, subdir not yet cleaned. */
  source: RemoteSource;
}

/** Each enabled git entry with a valid name, in config order. */
export function enabledProviders(config: KanonConfig, env: NodeJS.ProcessEnv): Provider[] {
  const out: Provider[] = [];
  config.skills.forEach((entry, entryIndex) => {
    if (entry.enabled === false || !entry.git) return;
    const name = providerName(entry, env);
    if (name.ok) out.push(toProvider(entry, entryIndex, name.name));
  });
  return out;
}

export function toProvider(entry: SkillEntry, entryIndex: number, name: string): Provider {
  const git = entry.git ?? { url: "", ref: "" };
  return {
    name,
    owner: providerOwner(name),
    entryIndex,
    entry,
    source: { type: "git", url: git.url ?? "", ref: git.ref ?? "", subdir: git.subdir ?? "" },
  };
}

export type Cleaned = { ok: true; value: string } | { ok: false; error: string };

/** Go's filepath.Clean on a slash path. */
function cleanPath(p: string): string {
  const rooted = p.startsWith("/");
  const parts: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length > 0 && parts[parts.length - 1] !== "..") parts.pop();
      else if (!rooted) parts.push("..");
      continue;
    }
    parts.push(part);
  }
  const out = (rooted ? "/" : "") + parts.join("/");
  return out === "" ? "." : out;
}

/**
 * A subdir inside the repository: blank and `.` mean the root; the rest is cleaned (`./x/` → `x`) and
 * must be relative and stay inside the repository. kanon also refuses `.git` (the repository metadata,
 * never a provider) and control characters.
 */
export function cleanSubdir(subdir: string | undefined): Cleaned {
  if (subdir === undefined || subdir.trim() === "") return { ok: true, value: "" };
  const clean = cleanPath(subdir);
  if (clean === ".") return { ok: true, value: "" };
  if (clean.startsWith("/")) return { ok: false, error: "must be relative" };
  const parts = clean.split("/");
  if (parts.includes("..")) return { ok: false, error: "must not escape the repository" };
  if (parts.includes(".git")) return { ok: false, error: "must not be inside .git" };
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters
  if (/[\x00-\x1f\x7f]/.test(clean)) return { ok: false, error: "must not contain control characters" };
  return { ok: true, value: clean };
}

/** A ref git could not read as an option or as more than one argument. */
export function isValidRef(ref: string): boolean {
  return ref.trim() !== "" && !ref.startsWith("-") && !/[\0\r\n]/.test(ref);
}

/** A full SHA-1 or SHA-256 commit name: the only refs that cannot move. */
export function isImmutableRef(ref: string): boolean {
  return /^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$/.test(ref);
}

/**
 * Why an expanded URL cannot be handed to git ("" when it can): it could be read as an option, or it
 * holds control characters.
 */
export function urlProblem(url: string): string {
  if (url.trimStart().startsWith("-")) return 'must not start with "-"';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters
  if (/[\x00-\x1f\x7f]/.test(url)) return "must not contain control characters";
  return "";
}

export interface LockCoordinates {
  owner: string;
  type: string;
  url: string;
  ref: string;
  subdir: string;
}

/** The normalised source a lock entry records and is compared with (subdir cleaned), or the subdir error. */
export function normalizeSource(
  source: RemoteSource,
): { ok: true; source: RemoteSource } | { ok: false; error: string } {
  const subdir = cleanSubdir(source.subdir);
  if (!subdir.ok) return subdir;
  return { ok: true, source: { type: source.type, url: source.url, ref: source.ref, subdir: subdir.value } };
}

/** The reference's mismatch message for a lock entry that no longer matches kanon.yaml, or null. */
export function lockMismatch(entry: LockCoordinates, source: RemoteSource): string | null {
  const result = normalizeSource(source);
  if (!result.ok) return `kanon.yaml subdir ${goQuote(source.subdir)}: ${result.error}`;
  const normalized = result.source;
  const o = goQuote(entry.owner);
  if (entry.type !== normalized.type) {
    return `kanon.lock entry ${o} type is ${goQuote(entry.type)}, but kanon.yaml has ${goQuote(normalized.type)}; run kanon lock`;
  }
  if (entry.url !== normalized.url) return `kanon.lock entry ${o} url is stale; run kanon lock`;
  if (entry.ref !== normalized.ref) {
    return `kanon.lock entry ${o} ref is ${goQuote(entry.ref)}, but kanon.yaml has ${goQuote(normalized.ref)}; run kanon lock`;
  }
  if (entry.subdir !== normalized.subdir) {
    return `kanon.lock entry ${o} subdir is ${goQuote(entry.subdir)}, but kanon.yaml has ${goQuote(normalized.subdir)}; run kanon lock`;
  }
  return null;
}

export const cacheRoot = (home: string): string => join(home, ".kanon", "cache", "sources");

/**
 * `<home>/.kanon/cache/sources/<32 hex>`: the first 32 hex digits of sha256 over
 * "v1", "git", expanded URL, checkout ref and subdir joined with NUL (the Go original's layout, so an
 * existing cache is reused).
 */
export function cachePath(home: string, expandedUrl: string, checkoutRef: string, subdir: string): string {
  const key = ["v1", "git", expandedUrl, checkoutRef, subdir].join("\0");
  return join(cacheRoot(home), sha256Hex(key).slice(0, 32));
}

/** The value is one or more `${NAME}` references without defaults and nothing else. */
function onlyRequiredEnvRefs(value: string): boolean {
  return /^(\$\{[A-Za-z_][A-Za-z0-9_]*\})+$/.test(value);
}

function decode(value: string, plusIsSpace = false): string {
  try {
    return decodeURIComponent(plusIsSpace ? value.replaceAll("+", " ") : value);
  } catch {
    return value;
  }
}

/** The userinfo of a `scheme://` or `//` URL, if it has one. */
export function rawUserinfo(raw: string): string | null {
  let rest: string;
  const scheme = raw.indexOf("://");
  if (scheme >= 0) rest = raw.slice(scheme + 3);
  else if (raw.startsWith("//")) rest = raw.slice(2);
  else return null;
  const end = rest.search(/[/?#]/);
  if (end >= 0) rest = rest.slice(0, end);
  const at = rest.lastIndexOf("@");
  return at < 0 ? null : rest.slice(0, at);
}

/** The query string (without `?`) and fragment (without `#`) of a URL, each null when absent. */
export function queryAndFragment(raw: string): { query: string | null; fragment: string | null } {
  const hash = raw.indexOf("#");
  const fragment = hash >= 0 ? raw.slice(hash + 1) : null;
  const beforeHash = hash >= 0 ? raw.slice(0, hash) : raw;
  const q = beforeHash.indexOf("?");
  return { query: q >= 0 ? beforeHash.slice(q + 1) : null, fragment };
}

/** The decoded values of a query string (Go's url.ParseQuery, `;`-keyed pairs skipped). */
export function queryValues(query: string): string[] {
  const values: string[] = [];
  for (const pair of query.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const key = eq >= 0 ? pair.slice(0, eq) : pair;
    if (key.includes(";")) continue;
    values.push(decode(eq >= 0 ? pair.slice(eq + 1) : "", true));
  }
  return values;
}

/**
 * The declared URL would put a secret into kanon.lock: a user, password, query value or fragment that
 * is not made only of `${VAR}` references without defaults. (The Go original skips the query and
 * fragment checks when its URL parser rejects the URL, e.g. with a `${VAR}` host; kanon always checks.)
 */
export function hasLiteralCredentials(url: string): boolean {
  const literal = (v: string) => v !== "" && !onlyRequiredEnvRefs(v);
  const userinfo = rawUserinfo(url);
  if (userinfo !== null) {
    const colon = userinfo.indexOf(":");
    const parts = colon >= 0 ? [userinfo.slice(0, colon), userinfo.slice(colon + 1)] : [userinfo];
    if (parts.some((p) => literal(decode(p)))) return true;
  }
  const { query, fragment } = queryAndFragment(url);
  if (query !== null && queryValues(query).some(literal)) return true;
  if (fragment !== null && literal(decode(fragment))) return true;
  return false;
}

/** `config.skills[i].git.url references unset environment variable NAME` for each enabled git entry. */
export function gitUrlEnvErrors(config: KanonConfig, env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  config.skills.forEach((entry, i) => {
    if (entry.enabled === false || !entry.git?.url) return;
    for (const ref of envRefs(entry.git.url)) {
      if (ref.fallback === undefined && !envValue(env, ref.name)) {
        out.push(`config.skills[${i}].git.url references unset environment variable ${ref.name}`);
      }
    }
  });
  return out;
}
