/**
 * `kanon commands` and `kanon agents`: every slash command (subagent) × agent, as the support check
 * decided it (core/items.ts, the decisions render writes): rendered as written, translated (and how),
 * left out (and why), the fields dropped, and the file each agent gets.
 */

import { agentPath } from "../../core/homes.js";
import { type ItemDecision, itemCapabilities } from "../../core/items.js";
import type { Item } from "../../model/source.js";
import { compareBytes } from "../../model/text.js";
import { SECTIONS } from "../../source/items.js";
import { type GlobalFlags, type Io, out } from "../context.js";
import type { Validated } from "../pipeline.js";
import { jsonText } from "./render.js";
import { decisionLines, failIfNotAsWritten, loadReport, reportText } from "./report.js";

const LABEL: Record<ItemDecision["outcome"], string> = {
  "as-written": "as written",
  translated: "translated",
  omitted: "left out",
};

export async function itemsCommand(
  kind: Item["kind"],
  flags: GlobalFlags,
  opts: { json?: boolean; strict?: boolean },
  io: Io,
): Promise<void> {
  const { v, ids } = await loadReport(flags, io);
  const decisions = v.validation.items.filter((d) => d.item.kind === kind && ids.includes(d.agent));
  const items = v.validation.sections.items.filter((i) => i.kind === kind);
  const disabled = v.validation.sections.disabled[kind];
  // `commands` / `subagents`: the JSON key, as kanon.yaml's section is named.
  const { key } = SECTIONS[kind];
  if (opts.json) out(io, jsonText({ scope: v.scope.kind, [key]: decisions.map((d) => asJson(d, v)) }));
  else if (items.length === 0 && disabled.length === 0) out(io, `No ${key}.\n`);
  else out(io, itemsTable(kind, items, disabled, decisions, ids));
  if (opts.strict) failIfNotAsWritten(decisions, kind, "the home");
}

function asJson(d: ItemDecision, v: Validated) {
  return {
    [d.item.kind]: d.item.name,
    file: d.item.file,
    agent: d.agent,
    outcome: d.outcome,
    explicit: d.explicit,
    ...(d.missing
      ? {
          missing: {
            capability: d.missing.capability,
            ...(d.missing.detail ? { detail: d.missing.detail } : {}),
          },
        }
      : {}),
    translations: d.translations,
    notes: d.notes,
    gates: d.gates.map((g) => ({ id: g.id, description: g.description })),
    ...(d.native ? { native: destination(d, v) } : {}),
  };
}

/** Where the agent's file of the item goes in this scope. */
function destination(d: ItemDecision, v: Validated): string | null {
  const agent = v.agents.find((a) => a.manifest.id === d.agent)?.manifest;
  const caps = agent && itemCapabilities(agent, d.item.kind);
  const root = caps && agentPath(agent, caps.root, v.scope);
  return root ? `${root}/${d.native!.file}` : null;
}

/** One row per item, a column per agent; then one line per detail. */
function itemsTable(
  kind: Item["kind"],
  items: readonly Item[],
  disabled: readonly string[],
  decisions: readonly ItemDecision[],
  ids: readonly string[],
): string {
  const byItemAndAgent = new Map(decisions.map((d) => [`${d.item.name}\u0000${d.agent}`, d]));
  const rows = [[kind.toUpperCase(), ...ids.map((i) => i.toUpperCase())]];
  const names = [...items.map((i) => i.name), ...disabled].sort(compareBytes);
  for (const name of names) {
    const off = disabled.includes(name);
    rows.push([
      name,
      ...ids.map((id) => {
        if (off) return "disabled";
        const d = byItemAndAgent.get(`${name}\u0000${id}`);
        if (!d) return "-";
        return `${LABEL[d.outcome]}${d.gates.length > 0 ? " (gated)" : ""}`;
      }),
    ]);
  }
  return reportText(
    rows,
    decisions.flatMap((d) => decisionLines(`${d.item.name} → ${d.agent}`, d)),
  );
}
