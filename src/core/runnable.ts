/**
 * What a Kanon home makes the agents run: its hooks, its MCP servers (each starts a command or
 * connects to a URL), the hooks a skill declares in its SKILL.md front matter (Claude Code runs
 * those while the skill is active), its commands and subagents (prompts the agent follows, a
 * subagent with tools of its own), and the files it reads from outside the home (their text goes
 * into every agent's context). `kanon update` (and `kanon apply` after a pull) shows each one that is
 * new or changed since the last apply on this machine before anything is written (cli/hook-review.ts).
 * Pure: each item has a key that changes whenever what runs (or where) changes.
 */
import { isAbsolute, relative, resolve, sep } from "node:path";
import { isPlainObject } from "../formats/values.js";
import type { McpServer } from "../model/config.js";
import { sha256Hex } from "../model/crypto.js";
import type { Agent, NativeHook } from "../model/manifest.js";
import type { Item, Source } from "../model/source.js";
import type { AgentId, Scope } from "../model/types.js";
import { agentPath } from "./homes.js";
import { shellQuote } from "./hooks/quote.js";
import { type HookDecision, hookEvent, targetsAgent } from "./hooks/support.js";
import type { ItemDecision } from "./items.js";
import type { McpDecision } from "./mcp.js";
import { maskSecrets } from "./secrets.js";

export interface Runnable {
  agent: AgentId;
  kind: "hook" | "mcp server" | "skill hooks" | "command" | "subagent" | "read";
  name: string;
  /** What runs (or is read), one line, for the review: `PreToolUse Bash: curl … | sh`. */
  what: string;
  /**
   * The agent and a sha256 of what the agent is given: its native hook or MCP entry (whatever
   * kanon.yaml calls it or however it spells it), a skill's hooks, a path read.
   */
  key: string;
  /** From a git skill provider: someone else's, whatever the home's history says. */
  foreign?: true;
  /**
   * The words of the command line it starts (a hook's command and args, a server's command, args
   * and environment values): the files of the Kanon home it names run too (homePathsNamed).
   */
  runs?: readonly string[];
}

/** JSON with sorted keys: equal values, equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isPlainObject(value))
    return `{${Object.keys(value)
      .sort()
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

const hashOf = (...parts: unknown[]) => sha256Hex(canonical(parts));

/**
 * One hash per thing (a hook, a server, a skill's hooks), made once however many agents get it: a
 * large home has a thousand hooks for five agents, and this runs on every apply.
 */
function memo<K>(make: (k: K) => string): (k: K) => string {
  const known = new Map<K, string>();
  return (k) => {
    let v = known.get(k);
    if (v === undefined) {
      v = make(k);
      known.set(k, v);
    }
    return v;
  };
}

export interface RunnableInput {
  source: Source;
  agents: readonly Agent[];
  scope: Scope;
  decisions: readonly HookDecision[];
  /** MCP decisions from validation: a server is run by the agents it is not left out for. */
  mcp: readonly McpDecision[];
  /**
   * Command and subagent decisions from validation: what each agent gets is a prompt it follows (a
   * subagent with its own tools), so a new or changed one is listed too.
   */
  items: readonly ItemDecision[];
  /** Whether a path named in kanon.yaml (already resolved) lies outside the Kanon home. */
  outside: (path: string) => boolean;
  /** The resolved paths of kanon.yaml's instruction files and local skill folders, with their labels. */
  reads: readonly { label: string; path: string; targets: string[] | undefined }[];
}

/** Every runnable item of the source, per agent rendered. */
export function runnables(input: RunnableInput): Runnable[] {
  const out: Runnable[] = [];
  const ids = new Set(input.agents.map((a) => a.manifest.id));
  const hookText = memo(hookWhat);
  for (const d of input.decisions) {
    if (d.outcome === "omitted" || !ids.has(d.agent)) continue;
    // kanon's own hooks (continuity, kanon/carry) run kanon's built-in handlers, nothing of the home.
    if (d.hook.builtin !== undefined) continue;
    out.push({
      agent: d.agent,
      kind: "hook",
      name: d.hook.name,
      what: hookText(d.hook),
      // What the agent runs (its native hook), not what kanon.yaml calls it: a hook renamed, or
      // written another way that renders the same, is the same change.
      key: `${d.agent}:${hashOf("hook", { ...d.native, name: undefined } satisfies Partial<NativeHook>)}`,
      ...((d.hook.type || "command") === "command"
        ? { runs: [d.hook.command ?? "", ...(d.hook.args ?? [])] }
        : {}),
    });
  }
  out.push(...itemRunnables(input.items, ids));
  const servers = input.source.config.mcp.servers;
  const rendered = new Map(
    input.mcp.filter((d) => !d.omitted && d.render).map((d) => [`${d.agent}\u0000${d.server}`, d]),
  );
  const serverText = memo((name: string) => serverWhat(servers[name]!));
  const skillHooks = memo((files: readonly { rel: string; content: Uint8Array }[]) => {
    const md = files.find((f) => f.rel === "SKILL.md");
    return md ? frontMatterHooks(Buffer.from(md.content).toString("utf8")).join("\n") : "";
  });
  for (const agent of input.agents) {
    const m = agent.manifest;
    const hasMcp = agentPath(m, m.mcp.file, input.scope) !== null;
    for (const [name, server] of Object.entries(servers)) {
      const decision = rendered.get(`${m.id}\u0000${name}`);
      if (!hasMcp || server.enabled === false || decision === undefined) continue;
      out.push({
        agent: m.id,
        kind: "mcp server",
        name,
        what: serverText(name),
        key: `${m.id}:${hashOf("mcp", agent.mcpServer(unresolved(server, decision)))}`,
        ...(server.command
          ? { runs: [server.command, ...(server.args ?? []), ...Object.values(server.env ?? {})] }
          : {}),
      });
    }
    for (const skill of skillsWithHooks(input.source, m.id, skillHooks)) {
      out.push({
        agent: m.id,
        kind: "skill hooks",
        name: skill.name,
        what: maskSecrets(`SKILL.md front matter: ${skill.hooks.replaceAll("\n", " ")}`),
        key: `${m.id}:${hashOf("skill hooks", skill.name, skill.hooks)}`,
        ...(skill.provider ? { foreign: true as const } : {}),
      });
    }
    for (const r of input.reads) {
      if (!targetsAgent(r.targets, m.id) || !input.outside(r.path)) continue;
      out.push({
        agent: m.id,
        kind: "read",
        name: r.label,
        what: `reads ${r.path}, outside the Kanon home`,
        key: `${m.id}:${hashOf("read", r.label, r.path)}`,
      });
    }
  }
  return out;
}

/** The commands and subagents each agent gets, keyed by the file it gets (whatever the home calls it). */
function itemRunnables(items: readonly ItemDecision[], ids: ReadonlySet<string>): Runnable[] {
  const whatOf = memo(itemWhat);
  return items
    .filter((d) => d.native && ids.has(d.agent))
    .map((d) => ({
      agent: d.agent,
      kind: d.item.kind,
      name: d.item.name,
      what: whatOf(d.item),
      key: `${d.agent}:${hashOf(d.item.kind, d.native)}`,
    }));
}

/** One line: a command's prompt, a subagent's tools and prompt (its first line, secrets masked). */
function itemWhat(item: Item): string {
  const first =
    item.body
      .split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? "";
  const prompt = first.length > 100 ? `${first.slice(0, 99)}…` : first;
  if (item.kind === "command") return maskSecrets(`prompt: ${prompt}`);
  const tools = item.tools ? item.tools.join(", ") : "every tool";
  return maskSecrets(`tools: ${tools}; prompt: ${prompt}`);
}

/**
 * The server as the agent's entry is rendered from it, before kanon fills in `${VAR}`s at apply
 * (resolve_env): the key follows what the agent starts, whatever the server is called or however
 * kanon.yaml spells it, but not an environment value (a rotated token is not a new server, and its
 * hash stays out of reviewed.json).
 */
function unresolved(server: McpServer, d: McpDecision): McpServer {
  if (d.resolved.length === 0) return d.render!;
  const s: Record<string, unknown> = { ...server };
  for (const { field } of d.left) delete s[field];
  return s as McpServer;
}

/**
 * The paths inside the Kanon home that command-line words name, relative to the home (`/`-separated):
 * each word is cut at shell syntax, quotes, `=`, `,` and `:`, and a piece names a path when it is
 * absolute, starts with `~/`, `$HOME/` or `$KANON_HOME/` (`${…}` too), or is relative (read against
 * the home: `hooks/guard.sh`). A piece with any other variable names nothing kanon can know.
 */
export function homePathsNamed(
  words: readonly string[],
  where: { home: string; userHome: string },
): string[] {
  const found = new Set<string>();
  for (const word of words)
    for (let piece of word.split(/[\s"'`;&|()<>=,:]+/)) {
      if (piece === "") continue;
      const named = /^\$(?:\{(HOME|KANON_HOME)\}|(HOME|KANON_HOME)\b)/.exec(piece);
      if (named)
        piece = `${(named[1] ?? named[2]) === "HOME" ? where.userHome : where.home}${piece.slice(named[0].length)}`;
      else if (piece === "~" || piece.startsWith("~/")) piece = `${where.userHome}${piece.slice(1)}`;
      if (piece.includes("$")) continue;
      const rel = relative(where.home, isAbsolute(piece) ? resolve(piece) : resolve(where.home, piece));
      if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) continue;
      const slashed = rel.split(sep).join("/");
      if (slashed === ".git" || slashed.startsWith(".git/")) continue;
      found.add(slashed);
    }
  return [...found].sort();
}

/** An argv as a shell would read it back, quoting only the words that need it. */
const commandLine = (argv: readonly string[]) =>
  argv.map((w) => (/^[A-Za-z0-9_/.:=@%+,-]+$/.test(w) ? w : shellQuote(w))).join(" ");

function hookWhat(h: HookDecision["hook"]): string {
  const on = [hookEvent(h), h.matcher].filter(Boolean).join(" ");
  const type = h.type || "command";
  let what: string;
  if (type === "command")
    what = h.args?.length ? commandLine([h.command ?? "", ...h.args]) : (h.command ?? "");
  else if (type === "http") what = `POST ${h.url ?? ""}`;
  else if (type === "mcp_tool") what = `MCP tool ${h.server ?? ""} ${h.tool ?? ""}`;
  else what = `${type} ${JSON.stringify(h.prompt ?? "")}`;
  return maskSecrets(`${on}: ${what}`);
}

function serverWhat(s: Source["config"]["mcp"]["servers"][string]): string {
  const env = Object.entries(s.env ?? {}).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const run = s.command ? commandLine([s.command, ...(s.args ?? [])]) : (s.url ?? "");
  return maskSecrets(env.length > 0 ? `${run} (env: ${env.join(" ")})` : run);
}

/** Local and provider skills rendered for this agent whose SKILL.md front matter declares hooks. */
function skillsWithHooks(
  source: Source,
  agent: AgentId,
  hooksOf: (files: readonly { rel: string; content: Uint8Array }[]) => string,
): { name: string; hooks: string; provider: boolean }[] {
  const out: { name: string; hooks: string; provider: boolean }[] = [];
  const check = (name: string, files: readonly { rel: string; content: Uint8Array }[], provider: boolean) => {
    const hooks = hooksOf(files);
    if (hooks !== "") out.push({ name, hooks, provider });
  };
  for (const s of source.localSkills) if (targetsAgent(s.targets, agent)) check(s.name, s.files, false);
  for (const p of source.providers)
    if (targetsAgent(p.targets, agent))
      for (const c of p.children) check(`${p.name}:${c.name}`, c.files, true);
  return out;
}

/** The lines of a `hooks:` block in YAML front matter (trimmed), or none. */
function frontMatterHooks(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trim() !== "---") return [];
  const out: string[] = [];
  let inHooks = false;
  for (const line of lines.slice(1)) {
    if (line.trim() === "---" || line.trim() === "...") break;
    if (/^\S/.test(line)) inHooks = /^hooks\s*:/.test(line);
    if (inHooks && line.trim() !== "") out.push(line.trim());
  }
  return out;
}
