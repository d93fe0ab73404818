/**
 * Native hooks back to neutral ones (kanon import). Each agent's reader gives the hooks as the agent
 * runs them; the manifests give the reverse maps (events, tool names, matcher dialects, exec form).
 * A candidate neutral hook is kept only if rendering it for that agent gives back exactly what was
 * found, so import stays the inverse of render; the same hook found in several agents becomes one
 * hook whose targets lists them, without changing the order any agent runs its hooks in.
 */

import { AGENTS } from "../agents/index.js";
import { DEFAULT_MAX_OUTPUT_CHARS, type HookMachine } from "../core/hooks/envelope.js";
import { toSeconds } from "../core/hooks/groups.js";
import { readNames } from "../core/hooks/matcher.js";
import { commandLine, unprotectExpansion } from "../core/hooks/quote.js";
import { decideHook } from "../core/hooks/support.js";
import { hookVariables } from "../core/hooks/variables.js";
import { NEUTRAL_TOOLS, neutralEvent } from "../core/hooks/vocabulary.js";
import type { HookEntry } from "../model/config.js";
import type { AgentManifest, HookRead, NativeHook } from "../model/manifest.js";
import type { Scope } from "../model/types.js";

export interface FoundHooks {
  manifest: AgentManifest;
  read: HookRead;
}

export type HookNames = "command" | "go";

interface Imported {
  hook: HookEntry;
  /** The name comes from a file that carries names (kanon's OpenCode plugin) and must stay. */
  fixedName: boolean;
  /** Agent → the key of the native hook found there. */
  found: Map<string, string>;
  /** For Go-style names: the first agent and its event index. */
  origin: { agent: string; event: string; index: number };
}

export interface ImportedHooks {
  hooks: HookEntry[];
  warnings: string[];
}

export function importHooks(
  found: readonly FoundHooks[],
  allAgents: readonly string[],
  scope: Scope["kind"],
  names: HookNames = "command",
): ImportedHooks {
  const warnings: string[] = [];
  const result: Imported[] = [];
  // Agents that keep one order across the whole file go first: the others only order hooks within
  // an event, so they can join in wherever the first ones put a hook.
  const ordered = [...found].sort(
    (a, b) => Number(a.read.order === "event") - Number(b.read.order === "event"),
  );
  // Neutral hooks call kanon's runner with this machine's node: render candidates with the same.
  const machine = found
    .flatMap((f) => f.read.hooks.map((n) => runnerCall(f.manifest, n)))
    .find((c) => c !== null && c !== "builtin") as RunnerCall | undefined;
  // A hook that uses a variable its agent does not set is left out, as render would leave it out.
  const variables = hookVariables(AGENTS.map((a) => a.manifest));
  const options = { variables, ...(machine ? { machine: machine.machine } : {}) };
  for (const { manifest, read } of ordered) {
    const agent = manifest.id;
    const last = new Map<string, number>();
    const perEvent = new Map<string, number>();
    for (const n of read.hooks) {
      // kanon's own hooks (kanon/carry) come back by themselves with the neutral hooks that need them.
      const call = runnerCall(manifest, n);
      if (call === "builtin") continue;
      // A context limit's raise is kanon's for a neutral hook; any other hook's is not imported.
      for (const raise of raiseFields(manifest))
        if (call === null && Object.hasOwn(n.fields, raise))
          warnings.push(
            `skipped unsupported ${agent} hook ${JSON.stringify(n.event)} field ${JSON.stringify(raise)}`,
          );
      const orderKey = read.order === "event" ? n.event : "*";
      const index = (perEvent.get(n.event) ?? 0) + 1;
      perEvent.set(n.event, index);
      const want = nativeKey(manifest, n, read.named);
      const render = (h: HookEntry, f: FoundHooks) => {
        const d = decideHook(h, 0, f.manifest, scope, undefined, options);
        if (!d?.native) return null;
        // Rendered timeouts are in the agent's unit; read ones in seconds.
        const t = d.native.timeout;
        const native = t ? { ...d.native, timeout: toSeconds(t, f.manifest.hooks.timeouts.unit) } : d.native;
        return nativeKey(f.manifest, native, f.read.named);
      };
      const self = { manifest, read };
      const valid = candidates(manifest, n).filter((c) => render(c, self) === want);
      if (valid.length === 0) {
        warnings.push(
          `left out ${agent} hook ${JSON.stringify(n.event)} (${describe(n)}): ${whyNot(manifest, n, scope, variables)}`,
        );
        continue;
      }
      const from = (last.get(orderKey) ?? -1) + 1;
      let at = -1;
      for (let j = from; j < result.length && at < 0; j++) {
        const r = result[j]!;
        if (r.found.has(agent) || (read.named && r.fixedName && r.hook.name !== n.name)) continue;
        if (read.named && result.some((o) => o !== r && o.fixedName && o.hook.name === n.name)) continue;
        for (const h of [r.hook, ...valid]) {
          const test: HookEntry = { ...h, name: read.named ? n.name : r.hook.name };
          if (render(test, self) !== want) continue;
          const others = [...r.found].every(
            ([a, key]) => render(test, found.find((f) => f.manifest.id === a)!) === key,
          );
          if (!others) continue;
          r.hook = test;
          r.found.set(agent, want);
          if (read.named) r.fixedName = true;
          at = j;
          break;
        }
      }
      if (at < 0) {
        at = from;
        if (read.order === "event") {
          while (at < result.length && hookEventName(result[at]!.hook) !== n.neutralEvent) at++;
        }
        result.splice(at, 0, {
          hook: valid[0]!,
          // A neutral hook's name is in the runner's command line.
          fixedName: read.named || valid[0]!.envelope === "neutral",
          found: new Map([[agent, want]]),
          origin: { agent, event: n.event, index },
        });
        for (const [k, v] of last) if (v >= at) last.set(k, v + 1);
      }
      last.set(orderKey, at);
    }
  }
  nameHooks(result, names, warnings);
  return {
    hooks: result.map((r) => {
      const targets = allAgents.filter((a) => r.found.has(a));
      return targets.length === allAgents.length ? r.hook : { ...r.hook, targets };
    }),
    warnings,
  };
}

const hookEventName = (h: HookEntry) => h.event || h.name;

/** The handler fields that raise an event's context limit (Codex's additionalContextLimit). */
function raiseFields(m: AgentManifest): Set<string> {
  const out = new Set<string>();
  for (const e of Object.values(m.hooks.events)) if (e.context?.limit?.raise) out.add(e.context.limit.raise);
  return out;
}

/**
 * What decides whether two hooks render the same for an agent. A context limit's raise follows from
 * the hook's other fields (kanon writes it for a neutral hook's max_output_chars), so it is left out.
 */
function nativeKey(m: AgentManifest, n: NativeHook, named: boolean): string {
  const raises = raiseFields(m);
  const fields = Object.entries(n.fields).filter(([k]) => !raises.has(k));
  return JSON.stringify([
    named ? n.name : "",
    n.event,
    m.hooks.matcher.regex === null ? n.matcher : (n.matcherText ?? ""),
    n.type || (n.command !== undefined ? "command" : ""),
    n.command ?? "",
    n.args && n.args.length > 0 ? n.args : null,
    n.timeout && n.timeout > 0 ? n.timeout : null,
    n.async === true,
    fields.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ]);
}

interface RunnerCall {
  hook: HookEntry;
  machine: HookMachine;
}

/**
 * A native hook that runs kanon's hook runner: the neutral hook behind it (its name, event, command
 * and options are the runner's arguments) and where node and the runner are; "builtin" for one of
 * kanon's own hooks; null for any other command.
 */
function runnerCall(m: AgentManifest, n: NativeHook): RunnerCall | "builtin" | null {
  let argv = n.args && n.args.length > 0 ? [n.command ?? "", ...n.args] : null;
  if (!argv && n.command !== undefined)
    argv = splitCommandLine(m.hooks.expandsVariables ? unprotectExpansion(n.command) : n.command);
  if (!argv || argv.length < 5 || !argv[1]!.endsWith("/hook-runner.mjs") || argv[2] !== m.id) return null;
  const [node, runner, , event, name, ...rest] = argv as [
    string,
    string,
    string,
    string,
    string,
    ...string[],
  ];
  const hook: HookEntry = { name, event, envelope: "neutral" };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === "--max") {
      const max = Number(rest[++i]);
      if (max !== DEFAULT_MAX_OUTPUT_CHARS) hook.max_output_chars = max;
    } else if (a === "--timeout") i++;
    else if (a === "--block") hook.blocking = true;
    else if (a === "--async") hook.async = true;
    else if (a === "--builtin") return "builtin";
    else if (a === "--sh") hook.command = rest[++i];
    else if (a === "--") {
      hook.command = rest[i + 1];
      if (rest.length > i + 2) hook.args = rest.slice(i + 2);
      break;
    } else return null;
  }
  return { hook, machine: { node, runner } };
}

/** Neutral hooks that may render as `n` for this agent, most readable first. */
function candidates(m: AgentManifest, n: NativeHook): HookEntry[] {
  const base: HookEntry = { name: n.name || "hook", event: n.neutralEvent };
  if (n.type && n.type !== "command") base.type = n.type;
  if (n.timeout && n.timeout > 0) base.timeout = Math.ceil(n.timeout);
  if (n.async) base.async = true;
  // The other fields back under kanon.yaml's names (statusMessage → status_message).
  const table = Object.hasOwn(m.hooks.handlers, n.type) ? m.hooks.handlers[n.type]! : undefined;
  for (const [name, value] of Object.entries(n.fields)) {
    const neutral = Object.entries(table?.fields ?? {}).find(
      ([f, fs]) => fs.support === "native" && (fs.name ?? f) === name,
    )?.[0];
    if (neutral) (base as unknown as Record<string, unknown>)[neutral] = value;
  }

  const commands: Pick<HookEntry, "command" | "args">[] = [];
  const argsHow = m.hooks.handlers[n.type || "command"]?.fields.args;
  // An agent that expands $VAR in its settings got the command with every $ protected: undo that first.
  const texts: (string | undefined)[] = [n.command];
  if (n.command !== undefined && m.hooks.expandsVariables) {
    const plain = unprotectExpansion(n.command);
    if (plain !== n.command) texts.unshift(plain);
  }
  for (const text of texts) {
    if (!n.args && text && argsHow?.support === "translated" && argsHow.how === "posix-command-line") {
      const argv = splitCommandLine(text);
      if (argv && argv.length > 1 && commandLine(argv) === text)
        commands.push({ command: argv[0]!, args: argv.slice(1) });
    }
    commands.push({
      ...(text !== undefined ? { command: text } : {}),
      ...(n.args && n.args.length > 0 ? { args: n.args } : {}),
    });
  }

  const call = runnerCall(m, n);
  if (call && call !== "builtin") {
    // A neutral hook rendered on another event (PostCompact on SessionStart) had no matcher.
    const matchers = call.hook.event === n.neutralEvent ? matcherTexts(m, n) : [undefined];
    return matchers.map((matcher) => ({ ...base, ...call.hook, ...(matcher ? { matcher } : {}) }));
  }
  const out: HookEntry[] = [];
  for (const matcher of matcherTexts(m, n))
    for (const c of commands) out.push({ ...base, ...(matcher ? { matcher } : {}), ...c });
  return out;
}

/** Neutral matcher texts for a native matcher: the native text itself, then the reverse-mapped one. */
function matcherTexts(m: AgentManifest, n: NativeHook): (string | undefined)[] {
  const caps = m.hooks;
  const kind = caps.events[n.neutralEvent]?.matcher ?? neutralEvent(n.neutralEvent)?.matcher ?? "none";
  const out: (string | undefined)[] = [];
  const add = (t: string | undefined) => {
    if (!out.includes(t)) out.push(t);
  };
  if (caps.matcher.regex === null) {
    // Matchers that kanon's own runtime evaluates are data.
    if (n.matcher.kind === "all") add(undefined);
    else if (n.matcher.kind === "regex") add(n.matcher.source);
    else {
      const neutral = kind === "tool" ? neutralToolNames(n.matcher.names, caps.tools) : null;
      if (neutral) add(neutral.join("|"));
      add(n.matcher.names.join("|"));
    }
    return out;
  }
  const text = n.matcherText;
  // An anchored list that kanon wrote for a regex-only dialect reads back as the list it came from.
  const names = text ? readNames(text, caps.matcher) : null;
  if (names) {
    const neutral = kind === "tool" ? neutralToolNames(names, caps.tools) : null;
    if (neutral) add(neutral.join("|"));
    add(names.join("|"));
  }
  add(text);
  if (text && kind === "tool") {
    const parts = splitList(text, caps.matcher.listSeparators, caps.matcher.trimsSpaces);
    const neutral = parts ? neutralToolNames(parts, caps.tools) : null;
    if (neutral) add(neutral.join("|"));
  }
  return out;
}

function splitList(text: string, separators: string[], trim: boolean): string[] | null {
  let parts = [text];
  for (const s of separators) parts = parts.flatMap((p) => p.split(s));
  parts = parts.map((p) => (trim ? p.trim() : p));
  return parts.every((p) => /^[A-Za-z0-9_]+$/.test(p)) ? parts : null;
}

/**
 * Neutral tool names whose translation (each name's native names, first occurrence kept) is exactly
 * `ids`; a name no neutral tool maps to stays as it is. Null when there is no such list.
 */
export function neutralToolNames(ids: readonly string[], tools: Record<string, string[]>): string[] | null {
  const search = (i: number, seen: Set<string>): string[] | null => {
    if (i === ids.length) return [];
    for (const neutral of NEUTRAL_TOOLS) {
      const fresh = (tools[neutral] ?? []).filter((t) => !seen.has(t));
      if (fresh.length === 0 || !fresh.every((t, k) => ids[i + k] === t)) continue;
      const rest = search(i + fresh.length, new Set([...seen, ...fresh]));
      if (rest) return [neutral, ...rest];
    }
    const id = ids[i]!;
    if ((NEUTRAL_TOOLS as readonly string[]).includes(id) || seen.has(id)) return null;
    const rest = search(i + 1, new Set([...seen, id]));
    return rest ? [id, ...rest] : null;
  };
  return ids.length > 0 && ids.length <= 32 ? search(0, new Set()) : null;
}

/** The argv of a command line that is nothing but POSIX single-quoted words, else null. */
export function splitCommandLine(s: string): string[] | null {
  const words: string[] = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] !== "'") return null;
    let word = "";
    i++;
    for (;;) {
      const j = s.indexOf("'", i);
      if (j < 0) return null;
      word += s.slice(i, j);
      i = j + 1;
      if (!s.startsWith("\\''", i)) break;
      word += "'";
      i += 3;
    }
    words.push(word);
    if (i === s.length) break;
    if (s[i] !== " " || i === s.length - 1) return null;
    i++;
  }
  return words.length > 0 ? words : null;
}

function describe(n: NativeHook): string {
  const text = [n.command ?? n.type ?? "", ...(n.args ?? [])].join(" ");
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function whyNot(
  m: AgentManifest,
  n: NativeHook,
  scope: Scope["kind"],
  variables: ReadonlySet<string>,
): string {
  const d = decideHook(candidates(m, n)[0]!, 0, m, scope, undefined, { variables });
  if (d?.outcome === "omitted" && d.missing)
    return `${d.missing.capability} is not supported${d.missing.detail ? ` (${d.missing.detail})` : ""}`;
  return "kanon.yaml has no hook that renders back to it";
}

/** Interpreters and wrappers skipped when a name is taken from the command. */
const WRAPPERS = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "env",
  "exec",
  "node",
  "deno",
  "bun",
  "bunx",
  "npx",
  "uv",
  "uvx",
  "python",
  "python3",
  "ruby",
  "perl",
  "sudo",
  "-c",
  "run",
]);

/** A readable name from the command: its program (not the interpreter), without extension. */
export function nameFromCommand(h: HookEntry): string {
  const words = h.args ? [h.command ?? "", ...h.args] : (h.command ?? "").split(/\s+/);
  for (const raw of words) {
    const w = raw.replace(/^['"]+|['"]+$/g, "");
    if (
      w === "" ||
      /^[A-Za-z_][A-Za-z0-9_]*=/.test(w) ||
      w.startsWith("-") ||
      WRAPPERS.has(w.split("/").pop()!)
    )
      continue;
    const base = w
      .split("/")
      .pop()!
      .replace(/\.(sh|bash|py|js|mjs|cjs|ts|rb|pl)$/, "");
    const slug = base
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "");
    if (slug) return slug;
  }
  return (h.event || "hook").replace(/([a-z])([A-Z])/g, "$1-$2").toLowerCase();
}

function nameHooks(result: Imported[], style: HookNames, warnings: string[]): void {
  const taken = new Set<string>();
  for (const r of result) {
    if (!r.fixedName) continue;
    if (!taken.has(r.hook.name)) {
      taken.add(r.hook.name);
      continue;
    }
    r.fixedName = false;
    warnings.push(`hook name ${JSON.stringify(r.hook.name)} is used twice; the second one is renamed`);
  }
  for (const r of result) {
    if (r.fixedName) continue;
    const base =
      style === "go" ? `${r.origin.agent}-${r.origin.event}-${r.origin.index}` : nameFromCommand(r.hook);
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
    taken.add(name);
    r.hook = { ...r.hook, name };
  }
}
