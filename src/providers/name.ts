/**
 * Provider names (reference §2.4).
 */

import type { SkillEntry } from "../model/config.js";
import { expandEnv } from "../model/env.js";
import { goQuote } from "../model/text.js";

/** A provider name: also the namespace of its skills, so it must be one safe path component. */
export const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The lock owner key of a provider. */
export const providerOwner = (name: string): string => `skill.git.${name}`;

/**
 * The name a provider gets from its URL: env references expanded, trimmed, cut at `?` or `#`, trailing
 * slashes dropped, the last `/`-separated segment (or, with no `/`, the text after the last `:`), without
 * `.git`. "" when nothing is left.
 */
export function deriveProviderName(url: string, env: NodeJS.ProcessEnv): string {
  let value = expandEnv(url, env).trim();
  const cut = value.search(/[?#]/);
  if (cut >= 0) value = value.slice(0, cut);
  value = value.replace(/\/+$/, "");
  if (value === "") return "";
  const slash = value.lastIndexOf("/");
  if (slash >= 0) value = value.slice(slash + 1);
  else {
    const colon = value.lastIndexOf(":");
    if (colon >= 0) value = value.slice(colon + 1);
  }
  if (value.endsWith(".git")) value = value.slice(0, -".git".length);
  return value.trim();
}

export type ProviderNameResult = { ok: true; name: string } | { ok: false; error: string };

/**
 * The provider name of a git entry: its trimmed `name`, else the name derived from the URL; the error
 * is the text after the label (`requires name or a git url with a repository name`, `has invalid name "x"`).
 */
export function providerName(entry: SkillEntry, env: NodeJS.ProcessEnv): ProviderNameResult {
  let name = (entry.name ?? "").trim();
  if (name === "") {
    name = deriveProviderName(entry.git?.url ?? "", env);
    if (name === "") return { ok: false, error: "requires name or a git url with a repository name" };
  }
  if (!PROVIDER_NAME.test(name)) return { ok: false, error: `has invalid name ${goQuote(name)}` };
  return { ok: true, name };
}
