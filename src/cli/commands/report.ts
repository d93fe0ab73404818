/**
 * What the report commands (`kanon hooks`, `kanon mcp`, `kanon commands`, `kanon agents`) share: the
 * home validated for the selected agents with its warnings printed, the lines each decision has,
 * the table with its details, and `--strict`.
 */

import { type Missing, missingText } from "../../core/items.js";
import type { Gate } from "../../model/manifest.js";
import { KanonError } from "../../model/types.js";
import { alignColumns } from "../columns.js";
import { type GlobalFlags, type Io, warn } from "../context.js";
import { loadValidated, type Validated } from "../pipeline.js";

/** The home validated, its warnings printed, and the ids of the agents the report shows. */
export async function loadReport(flags: GlobalFlags, io: Io): Promise<{ v: Validated; ids: string[] }> {
  const v = await loadValidated(flags, io, { checkAgent: true });
  warn(io, v.validation.warnings);
  return { v, ids: v.agents.map((a) => a.manifest.id) };
}

/** `<who>: left out: …`, then one line per translation, note and gate of a decision. */
export function decisionLines(
  who: string,
  d: {
    missing?: Pick<Missing, "capability" | "plural" | "detail"> | undefined;
    translations: readonly string[];
    notes: readonly string[];
    gates: readonly Gate[];
  },
): string[] {
  return [
    ...(d.missing ? [`${who}: left out: ${missingText(d.missing)}`] : []),
    ...d.translations.map((t) => `${who}: translated: ${t}`),
    ...d.notes.map((n) => `${who}: note: ${n}`),
    ...d.gates.map((g) => `${who}: gated: ${g.description}`),
  ];
}

/** The table, then (after a blank line) one line per detail. */
export function reportText(rows: string[][], details: readonly string[]): string {
  return `${alignColumns(rows).join("\n")}\n${details.length > 0 ? `\n${details.join("\n")}\n` : ""}`;
}

/** `--strict`: exit 1 when a decision is not the home as written (`what`: "hook", "MCP server", …). */
export function failIfNotAsWritten(
  decisions: readonly { outcome: string }[],
  what: string,
  source: string,
): void {
  const off = decisions.filter((d) => d.outcome !== "as-written").length;
  if (off > 0) throw new KanonError(`${off} ${what} rendering(s) differ from ${source} as written`);
}
