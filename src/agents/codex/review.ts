/**
 * Which rendered Codex hooks Codex will skip until the user reviews them in `/hooks`: the trust
 * hashes Codex computes for them (trust.ts), compared with those recorded in the user's Codex
 * config. Read only: kanon never writes trust entries.
 */
import { READ_LIMIT, readBounded } from "../../model/bounded-read.js";
import type { GateCheckInput, GatedHook } from "../../model/manifest.js";

const STATE_TEXT = {
  new: "new: not reviewed yet",
  changed: "changed since it was trusted",
  disabled: "disabled in /hooks",
} as const;

export async function codexGatedHooks(
  input: GateCheckInput,
): Promise<{ hooks: GatedHook[]; warnings: string[] }> {
  // Codex reads trust only from the user config, for project hooks too.
  const configPath = input.userPath(".codex/config.toml");
  let configToml: string | null = null;
  try {
    configToml = readBounded(configPath, { limit: READ_LIMIT.destination }).bytes.toString("utf8");
  } catch {}
  const { codexHookTrust } = await import("./trust.js");
  const report = codexHookTrust({ hooks: input.content, hooksPath: input.path, configToml });
  const warnings: string[] = [];
  if (report.configError)
    warnings.push(`cannot read Codex hook trust from ${configPath}: ${report.configError}`);
  if (report.hooksError) warnings.push(`Codex would reject ${input.path}: ${report.hooksError}`);
  // kanon writes one group per hook, in kanon.yaml order within each event.
  const byEvent = new Map<string, string[]>();
  for (const h of input.hooks) byEvent.set(h.event, [...(byEvent.get(h.event) ?? []), h.name]);
  const hooks: GatedHook[] = [];
  for (const e of report.entries) {
    if (e.state === "trusted") continue;
    hooks.push({
      gate: "codex-hook-review",
      hook: byEvent.get(e.event)?.[e.groupIndex] ?? `${e.event}[${e.groupIndex}]`,
      event: e.event,
      state: STATE_TEXT[e.state],
    });
  }
  return { hooks, warnings };
}
