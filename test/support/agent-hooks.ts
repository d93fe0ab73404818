/**
 * The command hooks kanon wrote into an agent's own hook file, read back from that file (never built
 * again from kanon.yaml), and run the way that agent runs a command hook: its shell or exec form, the
 * session's directory as the working directory, the variables it adds to the environment, the stdin
 * JSON it writes, and every hook of an event at once. From the contracts checked against the pinned
 * binaries (docs/agents.md, "Runtime notes" and "Event details"; the agents' contracts):
 *
 * - Claude Code: `args` is exec form, spawned directly after `${CLAUDE_PROJECT_DIR}` is replaced in
 *   each element as plain text; otherwise `/bin/sh -c`. It adds CLAUDE_PROJECT_DIR, CLAUDECODE and
 *   CLAUDE_CODE_SESSION_ID.
 * - Codex: the user's login shell with `-c` (bash here). It adds nothing.
 * - Gemini CLI: expands `$NAME` and `${NAME}` in every string of settings.json when it loads it; when
 *   it runs a hook it also replaces `$GEMINI_PROJECT_DIR`, `$GEMINI_CWD`, `$GEMINI_PLANS_DIR`,
 *   `$GEMINI_SESSION_ID` and `$CLAUDE_PROJECT_DIR` in the command with their values shell-quoted
 *   (HookRunner.expandCommand), then runs `bash -c`. It adds those variables to the environment.
 * - Kimi Code: Node's spawn with `shell: true` (`/bin/sh -c`). It adds nothing.
 *
 * OpenCode has no command hooks; kanon's plugin runs them (drive the rendered plugin instead).
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parse as parseToml } from "smol-toml";
import { afterAll } from "vitest";
import { AGENTS } from "../../src/agents/index.js";
import { agentPath } from "../../src/core/homes.js";
import type { Scope } from "../../src/model/types.js";
import { ROOT, type Run, type Sandbox, sandbox } from "./cli.js";

export type CommandAgent = "claude" | "codex" | "gemini" | "kimi";

export interface NativeHook {
  /** The agent's own event name (Gemini's BeforeAgent, …). */
  event: string;
  matcher: string | null;
  /** The kanon hook rendered here, read off the runner's command line; null for a native hook. */
  name: string | null;
  /** What the agent starts: the program and its arguments. */
  argv: string[];
  /** Claude's exec form (`args`): no shell. */
  exec: boolean;
}

export interface AgentCall {
  /** The agent's stdin JSON for the event. */
  stdin: Record<string, unknown>;
  /** The session's directory: the hook's working directory, and the project the agent names. */
  cwd: string;
  /** The agent's own environment, which its hooks inherit. */
  env: NodeJS.ProcessEnv;
}

export interface HookRun {
  name: string | null;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Where the recorded payloads' session ran: replaced by the test's project. */
const RECORDED_PROJECT = "/home/u/work/project";

/**
 * The stdin `agent` sent for the neutral `event` in a conformance run (test/fixtures/payloads/), as
 * if its session ran in `project`.
 */
function recordedStdin(agent: string, event: string, project: string): Record<string, unknown> {
  const text = readFileSync(join(ROOT, "test/fixtures/payloads", `${agent}.json`), "utf8");
  // The path as a JSON string's content: a project path may hold `"` and `\`.
  const inJson = JSON.stringify(project).slice(1, -1);
  const payload = JSON.parse(text.replaceAll(RECORDED_PROJECT, () => inJson))[event];
  if (!payload) throw new Error(`no recorded ${event} payload of ${agent}`);
  return payload as Record<string, unknown>;
}

/** Gemini CLI 0.61.0's resolveEnvVarsInString: set variables are replaced, unset ones stay. */
export function geminiExpand(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$(?:(\w+)|{([^}]+?)(?::-([^}]*))?})/g, (match, a, b, fallback) => {
    const name = a || b || "";
    if (!name) return match;
    if (typeof env[name] === "string") return env[name];
    return fallback !== undefined ? fallback : match;
  });
}

/** shell-quote 1's quote([arg]), which Gemini CLI 0.61.0's escapeShellArg uses for bash ("" stays ""). */
function shellQuote(arg: string): string {
  if (arg === "") return "";
  if (/["\s\\]/.test(arg) && !/'/.test(arg)) return `'${arg}'`;
  if (/["'\s]/.test(arg)) return `"${arg.replace(/(["\\$`!])/g, "\\$1")}"`;
  return arg.replace(/([A-Za-z]:)?([#!"$&'()*,:;<=>?@[\\\]^`{|}])/g, "$1\\$2");
}

/** Gemini CLI 0.61.0's HookRunner.expandCommand: its variables replaced in the command, shell-quoted. */
function geminiExpandCommand(command: string, vars: Record<string, string>): string {
  return command.replace(
    /\$(GEMINI_PROJECT_DIR|GEMINI_CWD|GEMINI_PLANS_DIR|GEMINI_SESSION_ID|CLAUDE_PROJECT_DIR)/g,
    (_, name: string) => shellQuote(vars[name] ?? ""),
  );
}

interface Handler {
  type?: string;
  command?: string;
  args?: string[];
}
type JsonHooks = Record<string, { matcher?: string; hooks: Handler[] }[]>;

/**
 * The words of a command line made of single-quoted strings, backslash escapes and plain characters
 * (how kanon quotes a runner command, Gemini's `$` protection included), as the shell reads them;
 * enough to name the hook, not a shell.
 */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === " " || c === "\t") {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === "\\") {
      const next = line[++i];
      word = (word ?? "") + (next === "\n" ? "" : (next ?? ""));
    } else word = (word ?? "") + c;
  }
  if (word !== null) words.push(word);
  return words;
}

/** The kanon hook a runner command line runs: the word after the runner's agent and event. */
function hookName(argv: readonly string[]): string | null {
  const runner = argv.findIndex((a) => a.endsWith("hook-runner.mjs"));
  return runner >= 0 ? (argv[runner + 3] ?? null) : null;
}

/** The hook handlers of a `{"hooks": {event: [{matcher, hooks: [...]}]}}` file (Claude, Codex, Gemini). */
function jsonHooks(text: string, shell: string[]): NativeHook[] {
  const hooks = (JSON.parse(text) as { hooks?: JsonHooks }).hooks ?? {};
  return Object.entries(hooks).flatMap(([event, groups]) =>
    groups.flatMap((g) =>
      g.hooks
        .filter((h) => (h.type ?? "command") === "command" && typeof h.command === "string")
        .map((h) => {
          const exec = h.args !== undefined;
          const words = exec ? [h.command!, ...h.args!] : shellWords(h.command!);
          const argv = exec ? words : [...shell, h.command!];
          return { event, matcher: g.matcher ?? null, name: hookName(words), argv, exec };
        }),
    ),
  );
}

/** The shell each agent runs a command line with (Claude: unless the hook has args). */
const SHELL = { claude: ["/bin/sh", "-c"], codex: ["/bin/bash", "-c"], gemini: ["bash", "-c"] };

/** The command hooks of `agent`'s hook file, whose text is `text`, as the agent will start them. */
export function nativeHooks(agent: CommandAgent, text: string): NativeHook[] {
  if (agent === "kimi") {
    const tables = (parseToml(text).hooks ?? []) as { event: string; matcher?: string; command: string }[];
    return tables.map((t) => ({
      event: t.event,
      matcher: t.matcher ?? null,
      name: hookName(shellWords(t.command)),
      argv: ["/bin/sh", "-c", t.command],
      exec: false,
    }));
  }
  return jsonHooks(text, SHELL[agent]);
}

/** Claude's matcher rule (an exact name list, else an unanchored regex); the others' regex. */
function matches(agent: CommandAgent, matcher: string | null, value: string | undefined): boolean {
  if (matcher === null || matcher === "" || matcher === "*") return true;
  if (value === undefined) return false;
  if (agent === "claude" && /^[a-zA-Z0-9_|, -]+$/.test(matcher))
    return matcher.split(/[|,]/).some((m) => m.trim() === value);
  return new RegExp(matcher).test(value);
}

/** What the agent adds to a hook's environment, and does to its argv, before it starts it. */
function prepared(
  agent: CommandAgent,
  hook: NativeHook,
  call: AgentCall,
): { argv: string[]; env: NodeJS.ProcessEnv } {
  const session = String(call.stdin.session_id ?? "");
  if (agent === "claude") {
    // As plain text (the binary's replaceAll with a function: no `$&` patterns).
    const argv = hook.exec
      ? hook.argv.map((a) => a.replaceAll("${CLAUDE_PROJECT_DIR}", () => call.cwd))
      : hook.argv;
    return {
      argv,
      env: { ...call.env, CLAUDE_PROJECT_DIR: call.cwd, CLAUDECODE: "1", CLAUDE_CODE_SESSION_ID: session },
    };
  }
  if (agent === "gemini") {
    const vars = {
      GEMINI_PROJECT_DIR: call.cwd,
      // Its project temp folder (~/.gemini/tmp/<project>/plans): a stand-in.
      GEMINI_PLANS_DIR: join(call.env.HOME ?? "/", ".gemini/tmp/project/plans"),
      GEMINI_CWD: call.cwd,
      GEMINI_SESSION_ID: session,
      CLAUDE_PROJECT_DIR: call.cwd,
    };
    // The first expansion happens when Gemini loads settings.json, against its own environment; the
    // second when it runs the hook, in the command (the last element: `bash -c <command>`).
    const loaded = hook.argv.map((a) => geminiExpand(a, call.env));
    const command = geminiExpandCommand(loaded.pop()!, vars);
    return { argv: [...loaded, command], env: { ...call.env, ...vars } };
  }
  return { argv: hook.argv, env: call.env };
}

function start(argv: string[], input: string, cwd: string, env: NodeJS.ProcessEnv): Promise<HookRun> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d) => {
      stderr += d;
    });
    child.on("error", (e) => resolve({ name: null, code: null, stdout, stderr: String(e) }));
    child.on("close", (code) => resolve({ name: null, code, stdout, stderr }));
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

/**
 * Every hook of the agent's `event` whose matcher takes `value` (SessionStart's source, a tool's
 * name), started at once as the agent starts them; their runs in the file's order.
 */
export function runEvent(
  agent: CommandAgent,
  hooks: readonly NativeHook[],
  event: string,
  value: string | undefined,
  call: AgentCall,
): Promise<HookRun[]> {
  const input = JSON.stringify(call.stdin);
  return Promise.all(
    hooks
      .filter((h) => h.event === event && matches(agent, h.matcher, value))
      .map(async (h) => {
        const { argv, env } = prepared(agent, h, call);
        return { ...(await start(argv, input, call.cwd, env)), name: h.name };
      }),
  );
}

/** OpenCode 1 with kanon's rendered plugin loaded for a project: what the tests drive it with. */
export interface OpenCode1 {
  /** A bus event, as OpenCode publishes it (`{type, properties}`). */
  event(type: string, properties: Record<string, unknown>): void;
  /** A prompt of the session (chat.message), awaited as OpenCode awaits it. */
  prompt(sessionID: string, text: string): Promise<void>;
  /** The system prompt of the session's next request (experimental.chat.system.transform). */
  system(sessionID: string): Promise<string[]>;
  dispose(): Promise<void>;
}

type V1Hooks = Record<string, (...a: unknown[]) => Promise<void>>;

/** The plugin file at `file` (as kanon wrote it), started by OpenCode 1 for `directory`. */
export async function openCode1(file: string, directory: string): Promise<OpenCode1> {
  const plugin = (await import(pathToFileURL(file).href)).default as {
    server: (input: { directory: string }) => Promise<V1Hooks>;
  };
  const h = await plugin.server({ directory });
  return {
    event: (type, properties) =>
      (h.event as unknown as (e: unknown) => void)({ event: { type, properties } }),
    prompt: (sessionID, text) =>
      h["chat.message"]!({ sessionID }, { message: {}, parts: [{ type: "text", text }] }),
    async system(sessionID) {
      const out = { system: [] as string[] };
      await h["experimental.chat.system.transform"]!({ sessionID, model: {} }, out);
      return out.system;
    },
    dispose: async () => h.dispose?.(),
  };
}

/** A throwaway HOME in which kanon applied a Kanon home, for running its hooks as the agents run them. */
export interface HookSandbox {
  /** $HOME, and a work folder outside it. */
  s: Sandbox;
  /** The project: a git repository in the work folder, the agents' working directory. */
  project: string;
  /** The Kanon home, `<work>/kanon-home`. */
  kh: string;
  /** Writes `yaml` as the Kanon home's kanon.yaml, then `kanon --home <kh> ...flags apply --yes`. */
  apply(yaml: string, flags?: string[], env?: Record<string, string>): Promise<Run>;
  /** The agent's hook file (OpenCode's: kanon's plugin) in a scope, where its manifest puts it. */
  hookFile(agent: string, scope?: "user" | "project"): string;
  /** The command hooks of the agent's hook file in a scope, as the agent will start them. */
  hooks(agent: CommandAgent, scope?: "user" | "project"): NativeHook[];
  /**
   * The agent calling its hooks of `event` in the project: the stdin it sent in a conformance run
   * (`stdin`'s keys over it), the project as the working directory, PATH and HOME (and `env`).
   */
  call(agent: string, event: string, stdin?: Record<string, unknown>, env?: NodeJS.ProcessEnv): AgentCall;
}

/** A HookSandbox for the calling file, removed after its tests; `project` names the project's folder. */
export function hookSandbox(project = "project"): HookSandbox {
  const s = sandbox();
  afterAll(() => s.cleanup());
  const dir = join(s.work, project);
  const kh = join(s.work, "kanon-home");
  mkdirSync(join(dir, ".git"), { recursive: true });
  mkdirSync(kh);
  const hookFile = (agent: string, scope: "user" | "project" = "user") => {
    const m = AGENTS.find((a) => a.manifest.id === agent)?.manifest;
    if (!m) throw new Error(`no agent ${agent}`);
    const at: Scope =
      scope === "user" ? { kind: "user", userHome: s.home } : { kind: "project", userHome: s.home, dir };
    const path = agentPath(m, m.hooks.file, at);
    if (path === null) throw new Error(`${agent} has no hook file in ${scope} scope`);
    return path;
  };
  return {
    s,
    project: dir,
    kh,
    apply(yaml, flags = [], env) {
      writeFileSync(join(kh, "kanon.yaml"), yaml);
      return s.run(["--home", kh, ...flags, "apply", "--yes"], env ? { env } : {});
    },
    hookFile,
    hooks: (agent, scope) => nativeHooks(agent, readFileSync(hookFile(agent, scope), "utf8")),
    call: (agent, event, stdin = {}, env = {}) => ({
      stdin: { ...recordedStdin(agent, event, dir), ...stdin },
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: s.home, ...env },
    }),
  };
}
