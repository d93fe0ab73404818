/**
 * `kanon hooks`: every hook × agent, as the support check decided it: rendered as written,
 * translated (and how), left out (and why), and the gates that still stand between the file and the
 * agent running it.
 */

import { CONTINUITY_BUILTINS } from "../../core/hooks/continuity.js";
import { BUILTIN_PREFIX } from "../../core/hooks/envelope.js";
import type { HookDecision } from "../../core/hooks/support.js";
import { hookEvent } from "../../core/hooks/support.js";
import type { HookEntry } from "../../model/config.js";
import { type GlobalFlags, type Io, out } from "../context.js";
import { jsonText } from "./render.js";
import { decisionLines, failIfNotAsWritten, loadReport, reportText } from "./report.js";

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
  const { v, ids } = await loadReport(flags, io);
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
          envelope: d.envelope,
          context: d.delivery.context,
          context_channel: d.delivery.channel,
          ...(d.delivery.limit ? { context_limit: d.delivery.limit } : {}),
          block: d.delivery.block,
          ...(d.hook.builtin !== undefined ? { builtin: d.hook.builtin } : {}),
          ...(d.native ? { native: { event: d.native.event, matcher: d.native.matcherText ?? null } } : {}),
        })),
      }),
    );
  } else if (hooks.length === 0 && !decisions.some((d) => d.hook.builtin !== undefined)) {
    out(io, "No hooks.\n");
  } else {
    out(io, hooksTable(hooks, decisions, ids));
  }
  if (opts.strict) failIfNotAsWritten(decisions, "hook", "kanon.yaml");
}

/**
 * One row per hook and agent: how it is rendered, its envelope, where its output reaches the model
 * (`at event`, `next prompt`, `not delivered`) and whether it can block; then one line per detail.
 * kanon's own hooks (`kanon/carry`) come last.
 */
function hooksTable(hooks: readonly HookEntry[], decisions: readonly HookDecision[], ids: string[]): string {
  const rows = [["HOOK", "EVENT", "AGENT", "RENDERED", "ENVELOPE", "CONTEXT", "BLOCKS"]];
  const row = (hook: HookEntry, agent: string, d: HookDecision | undefined) =>
    rows.push([
      hook.name,
      hookEvent(hook),
      agent,
      d ? `${LABEL[d.outcome]}${d.gates.length > 0 ? " (gated)" : ""}` : "disabled",
      d?.envelope ?? "-",
      d ? d.delivery.context : "-",
      d ? (d.delivery.block ? "yes" : "no") : "-",
    ]);
  hooks.forEach((hook, index) => {
    if (hook.enabled === false) {
      row(hook, "-", undefined);
      return;
    }
    for (const id of ids) {
      const d = decisions.find((x) => x.index === index && x.agent === id);
      if (d) row(hook, id, d);
    }
  });
  for (const d of decisions) if (d.hook.builtin !== undefined) row(d.hook, d.agent, d);
  const details: string[] = [];
  for (const d of decisions) {
    const who = `${d.hook.name} → ${d.agent}`;
    details.push(...decisionLines(who, d));
    const quiet = d.hook.builtin !== undefined && CONTINUITY_BUILTINS[d.hook.builtin]?.context === false;
    if (d.envelope === "neutral" && d.native && d.delivery.context !== "at event" && !quiet)
      details.push(`${who}: context: ${deliveryNote(d)}`);
    if (d.hook.builtin !== undefined) details.push(`${who}: kanon's own hook: ${builtinText(d.hook)}`);
  }
  return reportText(rows, details);
}

function builtinText(hook: HookEntry): string {
  const name = hook.name.slice(BUILTIN_PREFIX.length);
  return CONTINUITY_BUILTINS[name]?.does ?? "delivers the context kept for the next prompt";
}

function deliveryNote(d: HookDecision): string {
  if (d.delivery.context === "next prompt")
    return d.hook.async
      ? `the agent does not wait for an async hook; its context is ${d.delivery.channel}`
      : `${d.agent} takes no context at ${hookEvent(d.hook)}; it is ${d.delivery.channel}`;
  return `not delivered: ${d.agent} takes no context at ${hookEvent(d.hook)} and cannot carry it to a later prompt`;
}
