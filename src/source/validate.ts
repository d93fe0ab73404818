/**
 * Validation of the source state (reference §2.4, same messages and order), plus the hook
 * capability check: a hook whose targets name an agent that cannot run it is an error; a hook that
 * targets an agent only implicitly (targets omitted or `all`) is left out for it with a warning.
 */
import { type Dirent, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { continuityDecisions } from "../core/hooks/continuity.js";
import { BUILTIN_PREFIX, type HookMachine, hookEnvelope } from "../core/hooks/envelope.js";
import {
  carryHook,
  type DecideOptions,
  decideHook,
  type HookDecision,
  handlerFieldValue,
  hookEvent,
  isExplicit,
  omissionError,
  omissionWarning,
  targetsAgent,
} from "../core/hooks/support.js";
import {
  HANDLER_FIELDS,
  NEUTRAL_EVENTS,
  NEUTRAL_HANDLERS,
  neutralHandler,
} from "../core/hooks/vocabulary.js";
import { decideItem, type ItemDecision, itemError, itemWarning } from "../core/items.js";
import { decideServer, type McpDecision } from "../core/mcp.js";
import { serverFor } from "../core/mcp-overrides.js";
import { nameProblem, segmentProblem } from "../core/names.js";
import { instructionPath, instructionTargets, type KanonConfig, type McpServer } from "../model/config.js";
import { envRefs, envValue } from "../model/env.js";
import { statError } from "../model/fs-errors.js";
import type { Agent } from "../model/manifest.js";
import type { Paths } from "../model/source.js";
import { compareBytes } from "../model/text.js";
import type { Scope } from "../model/types.js";
import { gitSkillEntryErrors, gitUrlEnvErrors } from "../providers/validate.js";
import { closest } from "./did-you-mean.js";
import { homePathProblem, homeRead } from "./home-files.js";
import { type LoadedItems, loadItems } from "./items.js";
import { resolveHomePath } from "./load.js";
import { continuityErrors } from "./validate-continuity.js";

export interface Validation {
  errors: string[];
  /** Warnings about the source itself (hook omissions are derived from `decisions`, see hookWarnings). */
  warnings: string[];
  /** Every hook × targeted agent decision (of the agents rendered, see validateConfig), in hook order then agent order. */
  decisions: HookDecision[];
  /** Every MCP server × targeted agent decision (enabled servers, in name order, then agent order). */
  mcp: McpDecision[];
  /** Every command and subagent × targeted agent decision (commands, then subagents, in name order, then agent order). */
  items: ItemDecision[];
  /** The commands and subagents of the home, and the names kanon.yaml disables. */
  sections: Pick<LoadedItems, "items" | "disabled">;
}

/** `kanon.yaml:LINE:COL` of the value at a path of keys and list indexes (source/decode.ts). */
export type Locate = (path: readonly (string | number)[]) => string;

/** Where a value is, as a message prefix (`kanon.yaml:LINE:COL: `), or "" without positions. */
type At = (...path: (string | number)[]) => string;

/** What every step of validateConfig reads: the source, the agents, and how to name a value. */
interface Check {
  config: KanonConfig;
  paths: Paths;
  agents: readonly Agent[];
  env: NodeJS.ProcessEnv;
  at: At;
  /** Indexes of the targets that name no agent. */
  badTargets: (targets: string[] | undefined) => number[];
}

/**
 * With `locate`, each error about a value in kanon.yaml starts with where it is; the pipeline passes
 * marks and resolves them only when there are messages, so that a valid home is never parsed for positions.
 * With `rendered`, hooks are decided only for those agents, and for any agent a hook names in its
 * targets (where a hook it cannot run is an error): the rest would be decided for nothing.
 * The steps run in the reference's message order: version and agents, instructions, skills, MCP
 * servers, hooks, continuity, git URLs.
 */
export async function validateConfig(
  config: KanonConfig,
  paths: Paths,
  agents: readonly Agent[],
  scope: Scope["kind"],
  env: NodeJS.ProcessEnv,
  locate?: Locate,
  rendered?: ReadonlySet<string>,
  machine?: HookMachine,
): Promise<Validation> {
  const at: At = (...path) => (locate ? `${locate(path)}: ` : "");
  const targetNames = new Set(["all", ...agents.map((a) => a.manifest.id)]);
  const badTargets = (targets: string[] | undefined) =>
    (targets ?? []).flatMap((t, i) => (targetNames.has(t) ? [] : [i]));
  const check: Check = { config, paths, agents, env, at, badTargets };

  const errors = [
    ...headerErrors(check),
    ...instructionErrors(check),
    ...skillErrors(check),
    ...skillFolderErrors(config, paths),
  ];
  const items = await checkItems(check, scope, rendered);
  errors.push(...items.errors);
  const servers = checkServers(check, rendered);
  errors.push(...servers.errors);
  const hookCheck = checkHooks(config, agents, targetNames, at);
  errors.push(...hookCheck.errors);
  const options = { envelope: config.hooks_envelope, ...(machine ? { machine } : {}) };
  const hooks = decideHooks(check, scope, hookCheck, options, rendered);
  errors.push(...hooks.errors, ...continuityErrors(config, at), ...gitUrlEnvErrors(config, env));
  const warnings = [...items.warnings, ...hookCheck.warnings];
  for (const w of unsetEnvWarnings(config, env)) {
    warnings.push(
      `${locate ? `${locate(w.path)}:` : w.label} references unset environment variable ${w.name}`,
    );
  }
  return {
    errors,
    warnings,
    decisions: hooks.decisions,
    mcp: servers.decisions,
    items: items.decisions,
    sections: { items: items.loaded.items, disabled: items.loaded.disabled },
  };
}

/**
 * The home's commands and subagents, read and checked, then what each agent they target gets of them
 * (an error when an explicit target gets nothing). Decided for the rendered agents, and for any
 * agent an item names in its targets.
 */
async function checkItems(
  { config, paths, agents, at }: Check,
  scope: Scope["kind"],
  rendered: ReadonlySet<string> | undefined,
): Promise<{ errors: string[]; warnings: string[]; decisions: ItemDecision[]; loaded: LoadedItems }> {
  const loaded = await loadItems(
    config,
    paths,
    agents.map((a) => a.manifest.id),
    at,
  );
  const errors = [...loaded.errors];
  const decisions: ItemDecision[] = [];
  for (const item of loaded.items)
    for (const agent of agents) {
      const id = agent.manifest.id;
      if (rendered && !rendered.has(id) && !isExplicit(item.targets, id)) continue;
      const d = decideItem(item, agent.manifest, scope);
      if (!d) continue;
      decisions.push(d);
      if (d.missing && d.explicit) errors.push(itemError(d));
    }
  return { errors, warnings: loaded.warnings, decisions, loaded };
}

/** The file's version, and the agents it lists. */
function headerErrors({ config, agents, at }: Check): string[] {
  const errors: string[] = [];
  if (config.version !== 1)
    errors.push(
      `${at("version")}unsupported version ${config.version}${config.version === 0 ? ' (kanon.yaml needs "version: 1")' : ""}`,
    );
  (config.agents ?? []).forEach((a, i) => {
    if (!agents.some((agent) => agent.manifest.id === a))
      errors.push(
        `${at("agents", i)}agents lists unsupported agent "${a}" (known agents: ${agents.map((x) => x.manifest.id).join(", ")})`,
      );
  });
  return errors;
}

/** Each instruction file: its targets, a path, and a readable file inside the home. */
function instructionErrors({ config, paths, at, badTargets }: Check): string[] {
  const errors: string[] = [];
  config.instructions.files.forEach((file, i) => {
    const rel = instructionPath(file);
    const where = at("instructions", "files", i);
    const targets = instructionTargets(file);
    for (const t of badTargets(targets))
      errors.push(
        `${at("instructions", "files", i, "targets", t)}instruction "${rel}" has unsupported target "${targets![t]}"`,
      );
    if (!rel.trim()) {
      errors.push(`${where}instruction path cannot be empty`);
      return;
    }
    const abs = resolveHomePath(rel, paths.home, paths.userHome);
    try {
      const problem = homePathProblem(homeRead(abs, paths.home, false), false);
      if (problem) errors.push(`${where}instruction "${rel}": ${abs} ${problem}`);
    } catch (e) {
      errors.push(`${where}instruction "${rel}": ${statError(abs, e)}`);
    }
  });
  return errors;
}

/** Skills in config order, git providers and local entries interleaved as in the Go original. */
function skillErrors(check: Check): string[] {
  const { config, agents, env, at } = check;
  const agentIds = agents.map((a) => a.manifest.id);
  const providerNames = new Set<string>();
  const errors: string[] = [];
  for (const [i, skill] of config.skills.entries()) {
    if (skill.enabled === false) continue;
    if (skill.git)
      errors.push(
        ...gitSkillEntryErrors(skill, env, providerNames, agentIds).map((e) => at("skills", i) + e),
      );
    else errors.push(...localSkillErrors(check, skill, i));
  }
  return errors;
}

/** A skill kept in the home: a safe name, no git-only fields, known targets, a SKILL.md inside the home. */
function localSkillErrors(
  { paths, at, badTargets }: Check,
  skill: KanonConfig["skills"][number],
  i: number,
): string[] {
  const where = at("skills", i);
  const name = (skill.name ?? "").trim();
  if (!name) return [`${where}skill name cannot be empty`];
  const unsafe = segmentProblem(name);
  // It names the folder the skill is written to: `../../.ssh` would write outside every agent's.
  if (unsafe) return [`${at("skills", i, "name")}skill ${JSON.stringify(name)}: the name ${unsafe}`];
  const errors: string[] = [];
  if (skill.include)
    errors.push(`${at("skills", i, "include")}skill "${name}" cannot use include without git`);
  if (skill.exclude)
    errors.push(`${at("skills", i, "exclude")}skill "${name}" cannot use exclude without git`);
  for (const t of badTargets(skill.targets))
    errors.push(
      `${at("skills", i, "targets", t)}skill "${name}" has unsupported target "${skill.targets![t]}"`,
    );
  const dir = skill.path
    ? resolveHomePath(skill.path, paths.home, paths.userHome)
    : join(paths.home, "skills", name);
  const skillMd = join(dir, "SKILL.md");
  try {
    statSync(skillMd);
    const problem = homePathProblem(homeRead(dir, paths.home, true), true);
    if (problem) errors.push(`${where}skill "${name}": ${dir} ${problem}`);
  } catch (e) {
    errors.push(`${where}skill "${name}": ${statError(skillMd, e)}`);
  }
  return errors;
}

/**
 * Enabled MCP servers in name order: each server's own errors, then what each agent it targets gets
 * of it (an error when an explicit target cannot take it).
 */
function checkServers(
  check: Check,
  rendered: ReadonlySet<string> | undefined,
): { errors: string[]; decisions: McpDecision[] } {
  const errors: string[] = [];
  const decisions: McpDecision[] = [];
  const servers = Object.entries(check.config.mcp.servers).sort(([a], [b]) => compareBytes(a, b));
  for (const [name, server] of servers) {
    if (server.enabled === false) continue;
    const nameError = serverNameError(check.at, name);
    if (nameError) {
      errors.push(nameError);
      continue;
    }
    errors.push(
      ...serverErrors(check, name, server),
      ...approvalErrors(name, server, check.agents, check.at),
    );
    const decided = decideServers(check, name, server, rendered);
    errors.push(...decided.errors);
    decisions.push(...decided.decisions);
  }
  return { errors, decisions };
}

/** A server's name must be non-empty and printable: every other message names the server by it. */
function serverNameError(at: At, name: string): string | undefined {
  const where = at("mcp", "servers", name);
  if (!name.trim()) return `${where}mcp server name cannot be empty`;
  const unshowable = nameProblem(name);
  if (unshowable) return `${where}mcp server ${JSON.stringify(name)}: the name ${unshowable}`;
  return undefined;
}

/** A server's targets, its url or command, and its per-agent overrides. */
function serverErrors({ agents, at, badTargets }: Check, name: string, server: McpServer): string[] {
  const errors: string[] = [];
  for (const t of badTargets(server.targets))
    errors.push(
      `${at("mcp", "servers", name, "targets", t)}mcp server "${name}" has unsupported target "${server.targets![t]}"`,
    );
  if (!server.url && !server.command)
    errors.push(`${at("mcp", "servers", name)}mcp server "${name}" requires url or command`);
  for (const agent of Object.keys(server.overrides ?? {})) {
    const here = at("mcp", "servers", name, "overrides", agent);
    if (!agents.some((a) => a.manifest.id === agent))
      errors.push(
        `${here}mcp server "${name}" overrides unsupported agent "${agent}" (known agents: ${agents.map((a) => a.manifest.id).join(", ")})`,
      );
    else if (!targetsAgent(server.targets, agent))
      errors.push(`${here}mcp server "${name}" overrides ${agent}, which its targets leave out`);
    else if (server.url || server.command) {
      const s = serverFor(server, agent);
      if (!s.url && !s.command)
        errors.push(
          `${here}mcp server "${name}" requires url or command (its overrides for ${agent} unset both)`,
        );
    }
  }
  return errors;
}

/** What each agent the server targets gets of it, with its overrides for that agent applied. */
function decideServers(
  { agents, env, at }: Check,
  name: string,
  server: McpServer,
  rendered: ReadonlySet<string> | undefined,
): { errors: string[]; decisions: McpDecision[] } {
  const errors: string[] = [];
  const decisions: McpDecision[] = [];
  for (const agent of agents) {
    const id = agent.manifest.id;
    if (!targetsAgent(server.targets, id)) continue;
    const explicit = isExplicit(server.targets, id);
    if (rendered && !rendered.has(id) && !explicit) continue;
    const d = decideServer(agent, name, serverFor(server, id), explicit, env);
    decisions.push(d);
    // A field the agent lacks is a warning even for an explicit target (serverWarnings): the server
    // still does its work. A value it would get as text is an error there, named where it is
    // written (the agent's override when that sets the field).
    if (explicit && d.omitted) {
      const path = d.omitted.paths[0]?.split(".") ?? [];
      const own = path[0] && server.overrides?.[id] && Object.hasOwn(server.overrides[id], path[0]);
      errors.push(
        `${at("mcp", "servers", name, ...(own ? ["overrides", id] : []), ...path)}mcp server "${name}" targets ${id} but ${d.omitted.why}`,
      );
    }
  }
  return { errors, decisions };
}

/**
 * Every hook × agent decision, in the order `kanon hooks` lists them: the user's hooks (an error for
 * an explicit target that cannot run one), kanon's continuity hooks, then the hook that carries kept
 * context to the next prompt where an agent needs one. Built-in hooks are numbered after the user's.
 */
function decideHooks(
  { config, agents, at }: Check,
  scope: Scope["kind"],
  hookCheck: ReturnType<typeof checkHooks>,
  options: DecideOptions,
  rendered: ReadonlySet<string> | undefined,
): { errors: string[]; decisions: HookDecision[] } {
  const errors: string[] = [];
  const decisions: HookDecision[] = [];
  config.hooks.forEach((hook, index) => {
    if (hook.enabled === false || hookCheck.invalid.has(index)) return;
    for (const agent of agents) {
      const id = agent.manifest.id;
      if (rendered && !rendered.has(id) && !isExplicit(hook.targets, id)) continue;
      const d = decideHook(hook, index, agent.manifest, scope, hookCheck.knownEvents, options);
      if (!d) continue;
      decisions.push(d);
      if (d.outcome === "omitted" && d.explicit) errors.push(at("hooks", index) + omissionError(d));
    }
  });
  // kanon's continuity hooks, decided like the user's (never an error or a warning: `kanon hooks`
  // says where each lands, or why it is left out).
  let builtinIndex = config.hooks.length;
  for (const agent of agents) {
    if (rendered && !rendered.has(agent.manifest.id)) continue;
    const found = continuityDecisions(
      config,
      agent.manifest,
      scope,
      hookCheck.knownEvents,
      options,
      builtinIndex,
    );
    builtinIndex += found.length;
    decisions.push(...found);
  }
  // Context kept for the next prompt needs a hook there to hand it over: kanon adds its own.
  for (const agent of agents) {
    const carry = carryHook(decisions, agent.manifest);
    if (!carry) continue;
    const d = decideHook(carry, builtinIndex++, agent.manifest, scope, hookCheck.knownEvents, options);
    if (d) decisions.push(d);
  }
  return { errors, decisions };
}

/**
 * Folders under skills/ render under their own names (source/source.ts): one that is not a safe folder
 * name (a name with a control character, a leading `-`) is refused here as render would refuse it.
 */
function skillFolderErrors(config: KanonConfig, paths: Paths): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(paths.home, "skills"), { withFileTypes: true });
  } catch {
    return []; // no skills/ folder; an unreadable one is reported when the source is loaded
  }
  const disabled = new Set(
    config.skills.filter((s) => !s.git && s.enabled === false).map((s) => (s.name ?? "").trim()),
  );
  const errors: string[] = [];
  for (const d of entries) {
    if (!d.isDirectory() || d.name.startsWith(".") || disabled.has(d.name)) continue;
    const problem = segmentProblem(d.name);
    if (problem && existsSync(join(paths.home, "skills", d.name, "SKILL.md")))
      errors.push(`skill ${JSON.stringify(d.name)} (skills/${d.name}/): the folder name ${problem}`);
  }
  return errors;
}

/**
 * `${NAME}` references without a default whose variable is unset. kanon writes these values verbatim
 * for the agent to expand, so an unset variable here is a warning (the Go original made it an error
 * and also checked disabled servers); git URLs, which kanon expands itself, are checked as errors by
 * the provider validation. Each names its value by path; the caller turns it into `kanon.yaml:LINE:COL`.
 */
function unsetEnvWarnings(
  config: KanonConfig,
  env: NodeJS.ProcessEnv,
): { path: (string | number)[]; label: string; name: string }[] {
  const out: { path: (string | number)[]; label: string; name: string }[] = [];
  const check = (path: (string | number)[], value: string | undefined) => {
    if (!value || value === "${REVIEW_SECRET}") return;
    for (const ref of envRefs(value)) {
      if (ref.fallback !== undefined || envValue(env, ref.name)) continue;
      const label = `config.${path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i > 0 ? "." : ""}${p}`)).join("")}`;
      out.push({ path, label, name: ref.name });
    }
  };
  const server = (base: (string | number)[], s: Omit<McpServer, "overrides">) => {
    check([...base, "command"], s.command);
    for (const [i, a] of (s.args ?? []).entries()) check([...base, "args", i], a);
    for (const [k, v] of Object.entries(s.env ?? {})) check([...base, "env", k], v);
    check([...base, "url"], s.url);
    for (const [k, v] of Object.entries(s.headers ?? {})) check([...base, "headers", k], v);
    for (const [k, v] of Object.entries(s.env_headers ?? {})) check([...base, "env_headers", k], v);
  };
  for (const [name, s] of Object.entries(config.mcp.servers)) {
    if (s.enabled === false) continue;
    server(["mcp", "servers", name], s);
    for (const [agent, o] of Object.entries(s.overrides ?? {}))
      server(["mcp", "servers", name, "overrides", agent], o);
  }
  config.hooks.forEach((h, i) => {
    check(["hooks", i, "command"], h.command);
    for (const [j, a] of (h.args ?? []).entries()) check(["hooks", i, "args", j], a);
  });
  return out;
}

/**
 * One `warning:` line per MCP server left out for an agent it targets implicitly (explicitly: an error),
 * and per field an agent cannot take, for the agents being rendered.
 */
export function serverWarnings(decisions: readonly McpDecision[], agents: readonly Agent[]): string[] {
  const ids = new Set(agents.map((a) => a.manifest.id));
  return decisions
    .filter((d) => ids.has(d.agent) && !(d.explicit && d.omitted))
    .flatMap((d) =>
      d.omitted
        ? [`mcp server ${JSON.stringify(d.server)} is not rendered for ${d.agent}: ${d.omitted.why}`]
        : d.left.map(
            (l) => `mcp server ${JSON.stringify(d.server)}: ${l.field} is left out for ${d.agent}: ${l.why}`,
          ),
    );
}

/** One `warning:` line per command or subagent left out for an agent it targets implicitly, for the agents being rendered. */
export function itemWarnings(decisions: readonly ItemDecision[], agents: readonly Agent[]): string[] {
  const ids = new Set(agents.map((a) => a.manifest.id));
  return decisions.filter((d) => d.missing && !d.explicit && ids.has(d.agent)).map(itemWarning);
}

/** One `warning:` line per hook left out for an agent it targets implicitly, for the agents being rendered. */
export function hookWarnings(decisions: readonly HookDecision[], agents: readonly Agent[]): string[] {
  const ids = new Set(agents.map((a) => a.manifest.id));
  return decisions
    .filter((d) => d.outcome === "omitted" && !d.explicit && ids.has(d.agent))
    .map(omissionWarning);
}

/** Approval values an agent that reads them would refuse (Codex stops loading config.toml at all). */
function approvalErrors(name: string, server: McpServer, agents: readonly Agent[], at: At): string[] {
  const errors: string[] = [];
  for (const agent of agents) {
    const modes = agent.manifest.mcp.approvalModes;
    if (!modes || !targetsAgent(server.targets, agent.manifest.id)) continue;
    // An agent's overrides replace the fields checked here: the message names where the value is.
    const o = server.overrides?.[agent.manifest.id];
    const check = (path: string[], value: string | undefined) => {
      const own = o && Object.hasOwn(o, path[0]!) ? ["overrides", agent.manifest.id] : [];
      if (value && !modes.includes(value))
        errors.push(
          `${at("mcp", "servers", name, ...own, ...path)}mcp server "${name}": ${[...own, ...path].join(".")} "${value}" is not one ${agent.manifest.displayName} accepts (${modes.join(", ")})`,
        );
    };
    const s = serverFor(server, agent.manifest.id);
    check(["default_approval"], s.default_approval);
    for (const [tool, t] of Object.entries(s.tools ?? {})) check(["tools", tool, "approval"], t.approval);
  }
  return errors;
}

/**
 * The agent-independent hook checks: names (non-empty, unique), targets, the handler type and its
 * fields, and events kanon does not know (a warning with "did you mean": Claude still gets them).
 * `invalid` holds the hooks that no agent should be asked about.
 */
function checkHooks(
  config: KanonConfig,
  agents: readonly Agent[],
  targetNames: ReadonlySet<string>,
  at: At,
): { errors: string[]; warnings: string[]; invalid: Set<number>; knownEvents: Set<string> } {
  const errors: string[] = [];
  const warnings: string[] = [];
  const invalid = new Set<number>();
  // Every event kanon knows, and each agent's own spelling of it (Gemini's BeforeTool → PreToolUse).
  const knownEvents = new Set(NEUTRAL_EVENTS.map((e) => e.name));
  const byNativeName = new Map<string, string>();
  for (const a of agents) {
    for (const [name, e] of Object.entries(a.manifest.hooks.events)) {
      knownEvents.add(name);
      if (e.native !== name) byNativeName.set(e.native.toLowerCase(), name);
    }
  }
  const firstByName = new Map<string, number>();

  for (const [index, hook] of config.hooks.entries()) {
    const fail = (message: string, ...path: (string | number)[]) => {
      errors.push(`${at("hooks", index, ...path)}hook ${JSON.stringify(hook.name)}: ${message}`);
      invalid.add(index);
    };
    if (!hook.name.trim()) {
      errors.push(`${at("hooks", index)}hook name cannot be empty`);
      invalid.add(index);
      continue;
    }
    const unshowable = nameProblem(hook.name);
    if (unshowable) {
      errors.push(`${at("hooks", index, "name")}hook ${JSON.stringify(hook.name)}: the name ${unshowable}`);
      invalid.add(index);
      continue;
    }
    if (hook.name.startsWith(BUILTIN_PREFIX))
      fail(`names starting with ${BUILTIN_PREFIX} are kept for kanon's own hooks`, "name");
    const first = firstByName.get(hook.name);
    if (first === undefined) firstByName.set(hook.name, index);
    else {
      const firstAt = at("hooks", first).replace(/: $/, "");
      fail(`duplicate name${firstAt ? ` (first at ${firstAt})` : ""}`, "name");
    }
    if (hook.enabled === false) continue;

    (hook.targets ?? []).forEach((t, i) => {
      if (targetNames.has(t)) return;
      errors.push(`${at("hooks", index, "targets", i)}hook "${hook.name}" has unsupported target "${t}"`);
      invalid.add(index);
    });

    const type = hook.type || "command";
    const handler = neutralHandler(type);
    if (!handler) {
      const known = NEUTRAL_HANDLERS.map((h) => h.type);
      const hint = closest(type, known);
      fail(
        `unknown type ${JSON.stringify(type)} (${hint ? `did you mean ${JSON.stringify(hint)}? ` : ""}known: ${known.join(", ")})`,
        "type",
      );
      continue;
    }
    for (const field of handler.required) {
      if (handlerFieldValue(hook, field) !== undefined) continue;
      // A Go-era `type: http` hook kept its URL in command, which Claude never read.
      const legacy =
        type === "http" && field === "url" && hook.command ? "; command is not an http field" : "";
      fail(`type ${type} requires ${field}${legacy}`);
    }
    for (const field of HANDLER_FIELDS) {
      if (handler.required.includes(field) || handler.optional.includes(field)) continue;
      if (handlerFieldValue(hook, field) === undefined) continue;
      if (type === "http" && field === "command" && !handlerFieldValue(hook, "url")) continue;
      fail(`${field} is not a field of ${type} hooks`, field);
    }
    if (hook.shell && hook.shell !== "bash" && hook.shell !== "powershell")
      fail(`shell must be bash or powershell, not ${JSON.stringify(hook.shell)}`, "shell");
    if (hook.envelope === "neutral" && type !== "command")
      fail(`envelope neutral is for command hooks (kanon's runner is a command), not ${type}`, "envelope");
    else if (hookEnvelope(hook, config.hooks_envelope) !== "neutral") {
      for (const field of ["blocking", "max_output_chars"] as const)
        if (hook[field] !== undefined) fail(`${field} is a field of hooks with envelope: neutral`, field);
    }

    const event = hookEvent(hook);
    if (event && !knownEvents.has(event)) {
      const hint =
        [...knownEvents].find((k) => k.toLowerCase() === event.toLowerCase()) ??
        byNativeName.get(event.toLowerCase()) ??
        closest(event, [...knownEvents]);
      warnings.push(
        `${at("hooks", index, hook.event?.trim() ? "event" : "name")}hook ${JSON.stringify(hook.name)}: unknown event ${JSON.stringify(event)}${hint ? `; did you mean ${JSON.stringify(hint)}?` : ""}`,
      );
    }
  }
  return { errors, warnings, invalid, knownEvents };
}
