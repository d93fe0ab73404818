/**
 * Docs sections generated from the capability manifests, so the docs cannot disagree with what
 * validate and render do. `npm run docs` rewrites them in README.md and docs/*.md, wherever a page
 * holds a block's markers; a test fails when one is stale.
 */

import { basename } from "node:path";
import {
  type Delivery,
  limitText,
  nativeDelivery,
  neutralDelivery,
  RUNNER_ENVIRONMENT,
} from "../core/hooks/envelope.js";
import { NEUTRAL_EVENTS, NEUTRAL_HANDLERS } from "../core/hooks/vocabulary.js";
import {
  type Agent,
  type AgentManifest,
  type CommandCapabilities,
  type EventSupport,
  type FieldSupport,
  type HomeVariable,
  type HookCapabilities,
  type HookEnvironment,
  type ItemFieldSupport,
  MCP_FIELDS,
  type McpFieldSupport,
  type ScopedPath,
  type SubagentCapabilities,
  type Verified,
} from "../model/manifest.js";
import { continuityHooksTable } from "./continuity.js";

const BEGIN = (name: string) => `<!-- BEGIN GENERATED: ${name} (npm run docs) -->`;

const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");
const code = (s: string) => `\`${s}\``;

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ].join("\n");
}

function eventCell(e: EventSupport | undefined): string {
  // Every event in this table is one kanon knows, so a missing one is left out even for Claude.
  if (!e) return "—";
  const parts = [code(e.native)];
  if (e.block.can) parts.push("can block");
  else if (e.observeOnly) parts.push("observe only");
  if (e.context)
    parts.push(`output reaches the model${e.context.limit ? ` (≤ ${limitText(e.context.limit)})` : ""}`);
  if (e.maxTimeoutSec) parts.push(`timeout ≤ ${e.maxTimeoutSec} s`);
  return parts.join(", ");
}

/**
 * The support table, plus one footnote per event row that was verified differently from its agent's
 * manifest (e.g. read in the code but not run).
 */
export function hookSupportTable(agents: readonly Agent[]): string {
  const header = [
    "Neutral event",
    ...agents.map((a) => `${a.manifest.displayName} ${a.manifest.hooks.verified.version}`),
  ];
  const notes: { id: string; agent: string; verified: Verified; events: string[] }[] = [];
  const footnote = (agent: Agent, event: string, verified: Verified): string => {
    const name = agent.manifest.displayName;
    let note = notes.find((n) => n.agent === name && JSON.stringify(n.verified) === JSON.stringify(verified));
    if (!note) {
      const nth = notes.filter((n) => n.agent === name).length + 1;
      note = { id: `${agent.manifest.id}-${nth}`, agent: name, verified, events: [] };
      notes.push(note);
    }
    note.events.push(event);
    return ` [^${note.id}]`;
  };
  const rows = NEUTRAL_EVENTS.map((ev) => [
    `${code(ev.name)}: ${ev.purpose}`,
    ...agents.map((a) => {
      const e = a.manifest.hooks.events[ev.name];
      return eventCell(e) + (e?.verified ? footnote(a, ev.name, e.verified) : "");
    }),
  ]);
  const lines = notes.map(
    (n) =>
      `[^${n.id}]: ${n.agent} ${n.events.map(code).join(", ")}: ${n.verified.version}, ${n.verified.date}: ${n.verified.how}.`,
  );
  return [table(header, rows), ...(lines.length > 0 ? ["", ...lines] : [])].join("\n");
}

/** "Where files go": every destination of every agent, user · project, from the manifests. */
export function whereFilesTable(agents: readonly Agent[]): string {
  const place = (p: ScopedPath, dir = false) => {
    const slash = dir ? "/" : "";
    const user = p.user ? code(`~/${p.user}${slash}`) : "—";
    const project = p.project ? code(`P/${p.project}${slash}`) : "—";
    return `${user} · ${project}`;
  };
  const rows = agents.map((a) => {
    const m = a.manifest;
    const alternatives = (m.mcp.alternatives ?? [])
      .map((alt) => (alt.user ? ` (or ${code(basename(alt.user))})` : ""))
      .join("");
    const items = (caps: AgentManifest["commands" | "subagents"]) =>
      "lacks" in caps ? "—" : place(caps.root, true);
    return [
      m.displayName,
      place(m.instructions),
      `${place(m.mcp.file)}${alternatives} (${code(m.mcp.key)})`,
      place(m.hooks.file),
      place(m.skills.root, true),
      items(m.commands),
      items(m.subagents),
      homeCell(m.home),
      m.defaultOn ? "yes" : "no: list it in `agents:`",
    ];
  });
  return table(
    [
      "agent",
      "instructions",
      "MCP servers",
      "hooks",
      "skills",
      "commands",
      "subagents",
      "user files moved by",
      "on by default",
    ],
    rows,
  );
}

/** The variable that moves an agent's user-scope files, and what it stands for. */
function homeCell(home: HomeVariable | undefined): string {
  if (!home) return "—";
  const also = Object.entries(home.alsoMoves ?? {}).map(
    ([from, to]) => `, and ${code(`~/${from}`)} to ${code(`$${home.name}/${to}`)}`,
  );
  const replaces = home.replaces === "" ? "~" : `~/${home.replaces}`;
  return `${code(home.name)} for ${code(replaces)}${also.join("")}${home.notes ? ` (${home.notes})` : ""}`;
}

export function hookDetailsTable(agents: readonly Agent[]): string {
  const header = ["", ...agents.map((a) => a.manifest.displayName)];
  const by = (f: (h: HookCapabilities) => string) => agents.map((a) => f(a.manifest.hooks));
  const rows = [
    [
      "Hook file (user · project)",
      ...by(
        (h) =>
          `${h.file.user ? code(`~/${h.file.user}`) : "—"} · ${h.file.project ? code(h.file.project) : "—"}`,
      ),
    ],
    ["How commands run", ...by((h) => Object.values(h.handlers)[0]?.runs ?? "—")],
    [
      `Variables set for every hook (a neutral hook's command also gets ${RUNNER_ENVIRONMENT.map(code).join(" and ")})`,
      ...by((h) => environmentCell(h.environment)),
    ],
    ["Matcher", ...by((h) => h.matcher.notes)],
    [
      "Timeout",
      ...by(
        (h) =>
          `${h.timeouts.unit === "s" ? "seconds" : "milliseconds"} (kanon.yaml's seconds are converted), default ${h.timeouts.defaultSec} s${
            h.timeouts.maxSec !== undefined ? `, ${h.timeouts.minSec ?? 0}–${h.timeouts.maxSec} s` : ""
          }`,
      ),
    ],
    [
      "Tools (neutral → native)",
      ...by((h) =>
        Object.entries(h.tools)
          .map(([n, ids]) => (ids.length === 1 && ids[0] === n ? n : `${n} → ${ids.join("/")}`))
          .join(", "),
      ),
    ],
    [
      "Gates",
      ...by((h) =>
        h.gates.length ? h.gates.map((g) => `${g.description} (${g.scopes.join(", ")})`).join("; ") : "none",
      ),
    ],
    ["Verified", ...by((h) => `${h.verified.version}, ${h.verified.date}: ${h.verified.how}`)],
  ];
  return table(header, rows);
}

/** The variables an agent sets for its hooks, what else it gives them, and how that was checked. */
function environmentCell(env: HookEnvironment): string {
  const names = env.names.length > 0 ? env.names.map(code).join(", ") : "none";
  const v = env.verified;
  return `${names}${env.notes ? `; ${env.notes}` : ""} (${v.version}, ${v.date}: ${v.how})`;
}

/** How one agent takes one neutral field: its native name, translated, dropped, or not at all. */
function fieldCell(name: string, f: FieldSupport | undefined): string | null {
  if (!f || f.support === "none") return null;
  if (f.support === "translated") return `${name} (translated: ${f.how})`;
  if (f.support === "dropped") return `${name} (dropped: ${f.why})`;
  const named = f.name ? `${name} → ${code(f.name)}` : name;
  return f.events ? `${named} (on ${f.events.join(", ")} only)` : named;
}

/** Neutral handler types × agents: the fields each type needs and which of them each agent takes. */
export function hookHandlerTable(agents: readonly Agent[]): string {
  const header = ["Type", "Required", "Optional", ...agents.map((a) => a.manifest.displayName)];
  const rows = NEUTRAL_HANDLERS.map((h) => [
    `${code(h.type)}: ${h.purpose}`,
    h.required.join(", "),
    h.optional.join(", "),
    ...agents.map((a) => {
      const handler = a.manifest.hooks.handlers[h.type];
      if (!handler) return "—";
      const fields = [...h.required, ...h.optional]
        .map((f) => fieldCell(f, handler.fields[f]))
        .filter((c): c is string => c !== null);
      return fields.join(", ");
    }),
  ]);
  return table(header, rows);
}

export function runtimeNotes(agents: readonly Agent[]): string {
  return agents
    .map((a) =>
      [`**${a.manifest.displayName}**`, ...a.manifest.hooks.runtime.map((r) => `- ${r}`)].join("\n"),
    )
    .join("\n\n");
}

const BLOCK_HOW = { exit2: "exit 2", json: "a JSON decision" } as const;

/** Per agent and event: how a hook blocks and what that does, where its output goes, and notes. */
function eventDetails(agents: readonly Agent[]): string {
  return agents
    .map((a) => {
      const { events, handlers } = a.manifest.hooks;
      // Events with the same details share a line.
      const byText = new Map<string, string[]>();
      for (const e of Object.values(events)) {
        const parts = [
          e.block.can
            ? `blocks with ${e.block.how.map((h) => BLOCK_HOW[h]).join(" or ")}: ${e.block.effect}`
            : "cannot block",
        ];
        if (e.context) {
          const limit = e.context.limit;
          parts.push(
            `output: ${e.context.channel}${limit ? `, ≤ ${limitText(limit)}; above that, ${limit.over}` : ""}`,
          );
        }
        if (e.notes) parts.push(e.notes);
        const text = parts.join("; ");
        byText.set(text, [...(byText.get(text) ?? []), code(e.native)]);
      }
      const lines = [...byText].map(([text, names]) => `- ${names.join(", ")}: ${text}`);
      const fieldNotes = Object.entries(handlers).flatMap(([type, h]) =>
        Object.entries(h.fields).flatMap(([name, f]) =>
          f.support === "native" && f.notes ? [`- ${code(type)} ${code(name)}: ${f.notes}`] : [],
        ),
      );
      return [`**${a.manifest.displayName}**`, ...lines, ...fieldNotes].join("\n");
    })
    .join("\n\n");
}

const SHORT_CHANNEL: Record<string, string> = {
  additionalContext: "additionalContext",
  stdout: "stdout",
  plugin: "system prompt",
};

function deliveryText(d: Delivery, how: string | undefined): string {
  if (d.context !== "at event") return d.context;
  return how ? `at event (${SHORT_CHANNEL[how] ?? how})` : "at event";
}

/**
 * Neutral events × agents: where a hook's output reaches the model with each envelope, from the
 * same functions as `kanon hooks`, and whether a neutral hook with `blocking: true` can block.
 */
export function hookDeliveryTable(agents: readonly Agent[]): string {
  const header = ["Neutral event", ...agents.map((a) => a.manifest.displayName)];
  const rows = NEUTRAL_EVENTS.map((ev) => [
    code(ev.name),
    ...agents.map((a) => {
      const m = a.manifest;
      const e = Object.hasOwn(m.hooks.events, ev.name) ? m.hooks.events[ev.name] : undefined;
      if (!e) return "—";
      const native = nativeDelivery(e, false);
      const neutral = neutralDelivery(m, ev.name, { blocking: true, async: false });
      const as = e.envelope?.as;
      const target = as ? Object.values(m.hooks.events).find((t) => t.native === as.event) : e;
      const parts = [
        `native: ${native.context}`,
        `neutral: ${deliveryText(neutral, target?.envelope?.context)}${as ? ` as ${code(as.event)} (${as.matcher})` : ""}`,
      ];
      if (neutral.block) parts.push("can block");
      return parts.join("; ");
    }),
  ]);
  return table(header, rows);
}

function mcpFieldCell(f: McpFieldSupport): string {
  switch (f.support) {
    case "native":
      return f.name ? `as ${code(f.name)}` : "as written";
    case "translated":
      return f.how;
    case "dropped":
      return `not written: ${f.why}`;
    case "none":
      return `left out, with a warning: ${f.why}`;
  }
}

/** Each neutral MCP server field × agent, from the manifests' MCP tables (what `kanon mcp` reports). */
export function mcpSupportTable(agents: readonly Agent[]): string {
  const header = [
    "field",
    ...agents.map((a) => `${a.manifest.displayName} ${a.manifest.mcp.verified.version}`),
  ];
  const rows: string[][] = [
    [
      "tool names",
      ...agents.map((a) =>
        code(a.manifest.mcp.toolName.replace("{server}", "<server>").replace("{tool}", "<tool>")),
      ),
    ],
    [
      "`${VAR}` in values",
      ...agents.map((a) =>
        a.manifest.mcp.variables === "as-written"
          ? "passed as text: translated where the agent has a field for it, else resolved by kanon (`resolve_env`) or the server is left out"
          : "expanded by the agent, `${VAR:-default}` too",
      ),
    ],
    [
      "environment of a stdio server",
      ...agents.map((a) =>
        a.manifest.mcp.inheritsEnvironment
          ? "the agent's, plus `env`"
          : "`env` and the names forwarded, only",
      ),
    ],
    ...MCP_FIELDS.map((field) => [
      code(field),
      ...agents.map((a) => mcpFieldCell(a.manifest.mcp.fields[field])),
    ]),
    ["project servers", ...agents.map((a) => a.manifest.mcp.projectGate ?? "start with the project")],
  ];
  return table(header, rows);
}

function itemFieldCell(f: ItemFieldSupport): string {
  if (f.support === "native") return `as ${code(f.name)}`;
  if (f.support === "dropped") return `not written: ${f.why}`;
  return `the item is left out, with a warning: ${f.why}`;
}

/** The rows every section has: where, the file, names, gates, how it is used, notes, verified. */
function itemRows(
  agents: readonly Agent[],
  of: (m: AgentManifest) => CommandCapabilities | SubagentCapabilities | { lacks: string },
  rows: [string, (c: CommandCapabilities & SubagentCapabilities, m: AgentManifest) => string][],
): string[][] {
  const cells = (f: (c: CommandCapabilities & SubagentCapabilities, m: AgentManifest) => string) =>
    agents.map((a) => {
      const caps = of(a.manifest);
      return "lacks" in caps ? "—" : f(caps as CommandCapabilities & SubagentCapabilities, a.manifest);
    });
  const place = (p: ScopedPath) =>
    `${p.user ? code(`~/${p.user}/`) : "—"} · ${p.project ? code(`P/${p.project}/`) : "—"}`;
  return [
    [
      "has them",
      ...agents.map((a) => {
        const caps = of(a.manifest);
        return "lacks" in caps ? `no: ${a.manifest.displayName} ${caps.lacks}` : "yes";
      }),
    ],
    ["folder (user · project)", ...cells((c) => place(c.root))],
    [
      "file",
      ...cells((c) =>
        c.format.kind === "toml"
          ? `${code(`<name>${c.extension}`)}, TOML, the body under ${code(c.format.prompt)}`
          : `${code(`<name>${c.extension}`)}, Markdown with front matter`,
      ),
    ],
    ["names", ...cells((c) => (c.names ? c.names.say : "any name kanon takes"))],
    ...rows.map(([label, f]) => [label, ...cells(f)]),
    ["text it acts on", ...cells((c) => (c.bodyNotes ?? []).map((n) => n.note).join("; ") || "—")],
    [
      "gates",
      ...cells(
        (c) => (c.gates ?? []).map((g) => `${g.description} (${g.scopes.join(", ")})`).join("; ") || "none",
      ),
    ],
    ["used by", ...cells((c) => c.invoke)],
    ["notes", ...cells((c) => (c.notes ?? []).join("; ") || "—")],
    [
      "verified",
      ...agents.map((a) => {
        const v = of(a.manifest) as { verified: Verified };
        return `${v.verified.version}, ${v.verified.date}: ${v.verified.how}`;
      }),
    ],
  ];
}

/** Each agent's slash commands, from the manifests (what `kanon commands` reports). */
export function commandSupportTable(agents: readonly Agent[]): string {
  const header = [
    "",
    ...agents.map((a) => `${a.manifest.displayName} ${a.manifest.commands.verified.version}`),
  ];
  const spelling = (c: CommandCapabilities) => {
    const p = c.arguments.positional;
    if (!p) return "none: a command using one is left out";
    const n = (form: string, i: number) => code(form.replace("{n}", String(i - 1 + p.base)));
    const word = p.beforeWord
      ? `; right before a letter, digit or _, ${n(p.beforeWord, 1)} … ${n(p.beforeWord, 9)}`
      : "";
    return `${n(p.spelling, 1)} … ${n(p.spelling, 9)}${p.restToLast ? " (the last one also takes the rest)" : ""}${word}`;
  };
  const all = ({ arguments: a }: CommandCapabilities, m: AgentManifest) => {
    if (!a.all) return "none: a command using it is left out";
    const readsOn =
      a.allReadsOn && ` (${m.displayName} ${a.allReadsOn.does}: a command with one is left out)`;
    return `${code(a.all)}${readsOn || ""}`;
  };
  const rows = itemRows(agents, (m) => m.commands, [
    ["`description`", (c) => itemFieldCell(c.fields.description)],
    ["`argument-hint`", (c) => itemFieldCell(c.fields["argument-hint"])],
    ["`$ARGUMENTS`", all],
    ["`$1` … `$9`", spelling],
    [
      "text it would replace",
      (c) => {
        const r = c.arguments.reserved;
        if (!r) return "—";
        const escaped = r.escape
          ? `written with ${code(r.escape)} before it (a command with ${code(r.escape)} already before a placeholder or one of them is left out)`
          : "a command holding it is left out";
        return `${r.say}: ${r.does}; ${escaped}`;
      },
    ],
    ["arguments without a placeholder", (c) => c.arguments.unplaced],
    [
      "a skill of the command's name",
      (c, m) => (c.skillNamesWin ? `an error: ${m.displayName} ${c.skillNamesWin}` : "—"),
    ],
  ]);
  return table(header, rows);
}

/** Each agent's subagents, from the manifests (what `kanon agents` reports). */
export function subagentSupportTable(agents: readonly Agent[]): string {
  const header = [
    "",
    ...agents.map((a) => `${a.manifest.displayName} ${a.manifest.subagents.verified.version}`),
  ];
  const toolCell = (c: SubagentCapabilities) => {
    if (c.fields.tools.support !== "native") return itemFieldCell(c.fields.tools);
    const form =
      c.toolList === "comma"
        ? "one comma-separated string"
        : c.toolList === "list"
          ? "a list"
          : 'a map that switches every tool off (`"*": false`) and each listed one on';
    const names = Object.entries(c.tools)
      .map(([n, ids]) => (ids.length === 1 && ids[0] === n ? n : `${n} → ${ids.join("/")}`))
      .join(", ");
    return `${itemFieldCell(c.fields.tools)}, ${form}: ${names}`;
  };
  const modelCell = (c: SubagentCapabilities) => {
    if (c.fields.model.support !== "native") return itemFieldCell(c.fields.model);
    const inherit = c.inherit
      ? `${code("inherit")} as ${code(c.inherit)}`
      : `${code("inherit")}: no model written`;
    return `${itemFieldCell(c.fields.model)}: ${c.models ? c.models.say : "any name"}; ${inherit}`;
  };
  const rows = itemRows(agents, (m) => m.subagents, [
    ["the name", (c) => (c.nameField ? `written as ${code(c.nameField)}` : "the file's name")],
    ["`description`", (c) => itemFieldCell(c.fields.description)],
    ["`tools`", toolCell],
    ["`model`", modelCell],
    [
      "also written",
      (c) =>
        Object.entries(c.fixed ?? {})
          .map(([k, v]) => code(`${k}: ${v}`))
          .join(", ") || "—",
    ],
  ]);
  return table(header, rows);
}

export function generatedSections(agents: readonly Agent[]): Record<string, string> {
  const continuity = continuityHooksTable(agents);
  return {
    "hook-delivery": hookDeliveryTable(agents),
    "mcp-support": mcpSupportTable(agents),
    "hook-support": hookSupportTable(agents),
    "hook-handlers": hookHandlerTable(agents),
    "hook-details": hookDetailsTable(agents),
    "hook-runtime": runtimeNotes(agents),
    "where-files": whereFilesTable(agents),
    "hook-events": eventDetails(agents),
    "continuity-hooks": table(continuity.header, continuity.rows),
    "command-support": commandSupportTable(agents),
    "subagent-support": subagentSupportTable(agents),
  };
}

/** A marker is a line of its own (so that a page may quote one in its text). */
const MARKER = /^<!-- (BEGIN|END) GENERATED: (\S+?)(?: \(npm run docs\))? -->$/gm;

/**
 * One page with each generated block replaced by the section of its name, and the names of the
 * blocks it holds. Throws, naming the page, on a block of an unknown name or one whose END marker is
 * missing or misplaced.
 */
function updatePage(file: string, text: string, sections: Record<string, string>): [string, string[]] {
  const found: string[] = [];
  let out = "";
  let at = 0;
  let open: string | undefined;
  for (const m of text.matchAll(MARKER)) {
    const [marker, edge, name = ""] = m;
    if (edge === "BEGIN") {
      if (open) throw new Error(`${file}: generated section "${open}" has no END marker`);
      if (!Object.hasOwn(sections, name)) throw new Error(`${file}: unknown generated section "${name}"`);
      if (marker !== BEGIN(name)) throw new Error(`${file}: write the marker as ${BEGIN(name)}`);
      out += `${text.slice(at, m.index)}${BEGIN(name)}\n${sections[name]}\n`;
      open = name;
    } else {
      if (name !== open) throw new Error(`${file}: END marker of "${name}" without its BEGIN`);
      at = m.index;
      found.push(name);
      open = undefined;
    }
  }
  if (open) throw new Error(`${file}: generated section "${open}" has no END marker`);
  return [out + text.slice(at), found];
}

/**
 * The docs pages (file name → text) with every generated block replaced, wherever a page holds it:
 * moving a block to another page is moving its two markers. Throws when a section is on no page.
 */
export function updateGenerated(
  pages: Record<string, string>,
  sections: Record<string, string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  const placed = new Set<string>();
  for (const [file, text] of Object.entries(pages)) {
    const [next, found] = updatePage(file, text, sections);
    out[file] = next;
    for (const name of found) placed.add(name);
  }
  const missing = Object.keys(sections).filter((name) => !placed.has(name));
  if (missing.length > 0) throw new Error(`no docs page has the generated section "${missing.join('", "')}"`);
  return out;
}
