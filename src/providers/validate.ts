/**
 * Validation of `skills:` git entries (reference §2.4, git part). Nothing here touches the network or
 * the disk, and nothing here loads the provider machinery (lock.ts, materialize.ts): every command
 * validates, few fetch.
 */
import type { SkillEntry } from "../model/config.js";
import { expandEnv } from "../model/env.js";
import { goQuote } from "../model/text.js";
import { providerName } from "./name.js";
import { cleanSubdir, urlProblem } from "./source.js";

export { gitUrlEnvErrors } from "./source.js";

/** A skill name in include/exclude: one directory name, nothing that could walk out of the provider. */
function badSkillName(name: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters
  return name === "." || name === ".." || /[/\\\x00-\x1f\x7f]/.test(name);
}

function selectionErrors(
  label: string,
  include: string[] | undefined,
  exclude: string[] | undefined,
): string[] {
  const out: string[] = [];
  const included = new Set<string>();
  for (const name of include ?? []) {
    if (name.trim() === "") {
      out.push(`${label} include cannot contain an empty skill name`);
      continue;
    }
    if (badSkillName(name)) out.push(`${label} include has invalid skill name ${goQuote(name)}`);
    if (included.has(name)) out.push(`${label} include has duplicate skill ${goQuote(name)}`);
    included.add(name);
  }
  const excluded = new Set<string>();
  for (const name of exclude ?? []) {
    if (name.trim() === "") {
      out.push(`${label} exclude cannot contain an empty skill name`);
      continue;
    }
    if (badSkillName(name)) out.push(`${label} exclude has invalid skill name ${goQuote(name)}`);
    if (excluded.has(name)) out.push(`${label} exclude has duplicate skill ${goQuote(name)}`);
    if (included.has(name)) out.push(`${label} cannot both include and exclude skill ${goQuote(name)}`);
    excluded.add(name);
  }
  return out;
}

/**
 * The messages for one enabled git entry, in the reference's order. `seen` collects valid provider
 * names across entries for the `is duplicated` check.
 */
export function gitSkillEntryErrors(
  entry: SkillEntry,
  env: NodeJS.ProcessEnv,
  seen: Set<string>,
  agentIds: readonly string[],
): string[] {
  const git = entry.git;
  if (!git) return [];
  const out: string[] = [];
  const named = providerName(entry, env);
  const explicit = (entry.name ?? "").trim();
  const label = named.ok
    ? `git skill provider ${goQuote(named.name)}`
    : explicit
      ? `git skill provider ${goQuote(explicit)}`
      : "git skill provider";
  if (entry.path) out.push("git skill provider cannot be used with path");
  const targets = new Set(["all", ...agentIds]);
  for (const t of entry.targets ?? [])
    if (!targets.has(t)) out.push(`${label} has unsupported target ${goQuote(t)}`);
  if (!named.ok) out.push(`${label} ${named.error}`);
  const url = git.url ?? "";
  if (url.trim() === "") out.push(`${label} requires url`);
  else {
    const problem = urlProblem(expandEnv(url, env));
    if (problem) out.push(`${label} has invalid url: ${problem}`);
  }
  const ref = git.ref ?? "";
  if (ref.trim() === "") out.push(`${label} requires ref`);
  else if (ref.startsWith("-") || /[\0\r\n]/.test(ref)) out.push(`${label} has invalid ref ${goQuote(ref)}`);
  const subdir = cleanSubdir(git.subdir);
  if (!subdir.ok) out.push(`${label} has invalid subdir ${goQuote(git.subdir ?? "")}: ${subdir.error}`);
  out.push(...selectionErrors(label, entry.include, entry.exclude));
  if (named.ok) {
    if (seen.has(named.name)) out.push(`git skill provider ${goQuote(named.name)} is duplicated`);
    seen.add(named.name);
  }
  return out;
}
