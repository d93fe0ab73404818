/**
 * `kanon mcp`: every MCP server × agent, as its manifest decided it: rendered as written, translated
 * (and how), left out (and why), the fields left out or dropped, and the values kanon resolved at apply.
 */

import type { McpDecision } from "../../core/mcp.js";
import { type GlobalFlags, type Io, out } from "../context.js";
import { jsonText } from "./render.js";
import { failIfNotAsWritten, loadReport, reportText } from "./report.js";

const LABEL: Record<McpDecision["outcome"], string> = {
  "as-written": "as written",
  translated: "translated",
  omitted: "left out",
};

export async function mcpCommand(
  flags: GlobalFlags,
  opts: { json?: boolean; strict?: boolean },
  io: Io,
): Promise<void> {
  const { v, ids } = await loadReport(flags, io);
  const decisions = v.validation.mcp.filter((d) => ids.includes(d.agent));
  const servers = Object.entries(v.loaded.config.mcp.servers);
  if (opts.json) {
    out(
      io,
      jsonText({
        scope: v.scope.kind,
        servers: decisions.map((d) => ({
          server: d.server,
          agent: d.agent,
          outcome: d.outcome,
          explicit: d.explicit,
          translations: d.translations,
          notes: d.notes,
          left: d.left,
          resolved: d.resolved,
          ...(d.omitted ? { omitted: d.omitted } : {}),
        })),
      }),
    );
  } else if (servers.length === 0) {
    out(io, "No MCP servers.\n");
  } else {
    const byServerAndAgent = new Map(decisions.map((d) => [`${d.server}\u0000${d.agent}`, d]));
    const rows = [["SERVER", ...ids.map((i) => i.toUpperCase())]];
    for (const [name, server] of servers.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      rows.push([
        name,
        ...ids.map((id) => {
          if (server.enabled === false) return "disabled";
          const d = byServerAndAgent.get(`${name}\u0000${id}`);
          if (!d) return "-";
          return `${LABEL[d.outcome]}${d.left.length > 0 ? " (fields left out)" : ""}`;
        }),
      ]);
    }
    const details: string[] = [];
    for (const d of decisions) {
      const who = `${d.server} → ${d.agent}`;
      if (d.omitted) details.push(`${who}: left out: ${d.omitted.why}`);
      for (const l of d.left) details.push(`${who}: ${l.field} left out: ${l.why}`);
      for (const r of d.resolved) details.push(`${who}: ${r} resolved by kanon at apply (resolve_env)`);
      for (const t of d.translations) details.push(`${who}: translated: ${t}`);
      for (const n of d.notes) details.push(`${who}: dropped: ${n}`);
    }
    out(io, reportText(rows, details));
  }
  if (opts.strict) failIfNotAsWritten(decisions, "MCP server", "kanon.yaml");
}
