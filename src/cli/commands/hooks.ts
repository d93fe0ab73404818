/**
 * `kanon hooks`: every hook × agent, as the support check decided it: rendered as written,
 * translated (and how), left out (and why), and the gates that still stand between the file and the
 * agent running it.
 */

import type { HookDecision } from "../../core/hooks/support.js";
import { hookEvent } from "../../core/hooks/support.js";
import { KanonError } from "../../model/types.js";
import { type GlobalFlags, type Io, out, warn } from "../context.js";
import { loadValidated } from "../pipeline.js";
import { jsonText } from "./render.js";

const LABEL: Record<HookDecision["outcome"], string> = {
  "as-written": "as written",
  translated: "translated",
  "passed-through": "passed through",
  omitted: "left out",
};

export async function hooksCommand(
  flags: GlobalFlags,
  opts: { json?: boolean; strict?: boolean },
  io: Io,
): Promise<void> {
  const v = await loadValidated(flags, io, { checkAgent: true });
  warn(io, v.validation.warnings);
  const ids = v.agents.map((a) => a.manifest.id);
  const decisions = v.validation.decisions.filter((d) => ids.includes(d.agent));
  const hooks = v.loaded.config.hooks;
  if (opts.json) {
    out(
      io,
      jsonText({
        scope: v.scope.kind,
        hooks: decisions.map((d) => ({
          hook: d.hook.name,
          index: d.index,
          event: hookEvent(d.hook),
          agent: d.agent,
          outcome: d.outcome,
          explicit: d.explicit,
          ...(d.missing ? { missing: d.missing } : {}),
          translations: d.translations,
          notes: d.notes,
          gates: d.gates.map((g) => ({ id: g.id, description: g.description })),
          ...(d.native ? { native: { event: d.native.event, matcher: d.native.matcherText ?? null } } : {}),
        })),
      }),
    );
  } else if (hooks.length === 0) {
    out(io, "No hooks.\n");
  } else {
    const byHookAndAgent = new Map(decisions.map((d) => [`${d.index}:${d.agent}`, d]));
    const rows = [["HOOK", "EVENT", ...ids.map((i) => i.toUpperCase())]];
    hooks.forEach((hook, index) => {
      const cells = ids.map((id) => {
        if (hook.enabled === false) return "disabled";
        const d = byHookAndAgent.get(`${index}:${id}`);
        if (!d) return "-";
        return `${LABEL[d.outcome]}${d.gates.length > 0 ? " (gated)" : ""}`;
      });
      rows.push([hook.name, hookEvent(hook), ...cells]);
    });
    const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
    const table = rows.map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join("  ")
        .trimEnd(),
    );
    const details: string[] = [];
    for (const d of decisions) {
      const who = `${d.hook.name} → ${d.agent}`;
      if (d.missing) {
        details.push(
          `${who}: left out: ${d.missing.capability} is not supported${d.missing.detail ? ` (${d.missing.detail})` : ""}`,
        );
      }
      for (const t of d.translations) details.push(`${who}: translated: ${t}`);
      for (const n of d.notes) details.push(`${who}: note: ${n}`);
      for (const g of d.gates) details.push(`${who}: gated: ${g.description}`);
    }
    out(io, `${table.join("\n")}\n${details.length > 0 ? `\n${details.join("\n")}\n` : ""}`);
  }
  if (opts.strict) {
    const off = decisions.filter((d) => d.outcome !== "as-written");
    if (off.length > 0)
      throw new KanonError(`${off.length} hook rendering(s) differ from kanon.yaml as written`);
  }
}
