/** The names provider skills render under (reference §4.3); the manifest's `providerNaming` picks one. */
import type { SkillCapabilities } from "../model/manifest.js";

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

/** The name a provider's child skill renders under for an agent with this naming. */
export function providerSkillName(
  naming: SkillCapabilities["providerNaming"],
  provider: string,
  child: string,
): string {
  return naming === "slug" ? slugSkillName(provider, child) : namespacedSkillName(provider, child);
}
