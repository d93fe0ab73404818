/**
 * Provider names (reference §2.4) and the names provider skills render under (§4.3).
 */

import { expandEnv } from "../source/env.js";
import type { SkillEntry } from "../source/model.js";

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

/** Codex and Claude: `<provider>:<child>`. */
export const namespacedSkillName = (provider: string, child: string): string => `${provider}:${child}`;

/**
 * OpenCode: slug(`<provider>-<child>`): lower-cased, every run of characters outside [a-z0-9] one `-`,
 * no `-` at either end, at most 64 bytes, `skill` when nothing is left.
 */
export function slugSkillName(provider: string, child: string): string {
  let out = "";
  let lastHyphen = false;
  for (const ch of `${provider}-${child}`) {
    // Go lower-cases rune by rune (U+0130 becomes a plain "i"), so take the first code point.
    const lower = String.fromCodePoint(ch.toLowerCase().codePointAt(0)!);
    if (/^[a-z0-9]$/.test(lower)) {
      out += lower;
      lastHyphen = false;
    } else if (!lastHyphen && out.length > 0) {
      out += "-";
      lastHyphen = true;
    }
  }
  let name = out.replace(/^-+|-+$/g, "");
  if (name.length > 64) name = name.slice(0, 64).replace(/-+$/, "");
  return name === "" ? "skill" : name;
}

/**
 * Go's %q for the strings kanon puts in messages: printable text as is, `"` and `\` escaped, control
 * characters as Go writes them (\n, \t, \x00, \u2028…).
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\x07") out += "\\a";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (ch === "\v") out += "\\v";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (/^[\p{C}\p{Z}]$/u.test(ch) && ch !== " ") {
      out +=
        cp > 0xffff ? `\\U${cp.toString(16).padStart(8, "0")}` : `\\u${cp.toString(16).padStart(4, "0")}`;
    } else out += ch;
  }
  return `${out}"`;
}
