/**
 * The capability manifest: everything kanon knows about one agent, as data. Shared code (validate,
 * render, the hook support check, status, import, the docs tables) reads these records and never
 * asks which agent it is looking at. Adding an agent means adding one folder under src/agents/ with a
 * manifest and a small render function, and registering it in src/agents/index.ts.
 */
import type { McpServer } from "./config.js";
import type { AgentId, ElidedLines, MergeSpec, Scope } from "./types.js";

/**
 * Paths are relative to the user's home directory (user scope) or the project directory (project
 * scope). A user path under the agent's `home` moves with its variable (core/homes.ts).
 */
export interface ScopedPath {
  user: string | null;
  project: string | null;
}

/**
 * The environment variable that moves the agent's user-scope files, e.g. CODEX_HOME. kanon takes an
 * empty value as unset, as the agents do (but see `emptyReads`), and a relative one from the current
 * directory, as the agent takes it from the directory it runs in.
 */
export interface HomeVariable {
  name: string;
  /**
   * The user-home-relative directory the variable stands for (`.codex`); paths under it move to the
   * variable's directory. "" is the home directory itself (GEMINI_CLI_HOME holds `.gemini/`).
   */
  replaces: string;
  /**
   * User-home-relative files outside `replaces` that move too, and their path inside the variable's
   * directory (Claude's `.claude.json` → `$CLAUDE_CONFIG_DIR/.claude.json`).
   */
  alsoMoves?: Record<string, string>;
  /**
   * The agent takes the value's real path (symlinks resolved) when it exists, as Codex canonicalises
   * CODEX_HOME: the paths it derives from it (Codex's hook trust keys) name that folder.
   */
  realPath?: boolean;
  /**
   * Files the agent still reads through the variable when it is set but empty, that is from the
   * directory it runs in (Kimi Code 2.1.0's config.toml and mcp.json): kanon warns.
   */
  emptyReads?: string[];
  /** For the docs: what else the variable means. */
  notes?: string;
  verified: Verified;
}

export interface Verified {
  /** Agent version the row was checked against, e.g. "2.1.332". */
  version: string;
  /** Date of the check (YYYY-MM-DD). */
  date: string;
  /** How: binary, source, docs, end-to-end run. */
  how: string;
}

/** How an agent's matcher field is read. */
export interface MatcherDialect {
  /** Characters that separate an exact list of names, e.g. ["|", ","] for Claude, ["|"] for Codex. */
  listSeparators: string[];
  /** Whether spaces around list entries are ignored (`Bash, Edit`). */
  trimsSpaces: boolean;
  /** Regex flavour applied to anything that is not an exact list; null when kanon evaluates matchers itself. */
  regex: "javascript" | "rust" | null;
  /** Human description for the docs. */
  notes: string;
}

/** What the agent does with a hook that asks to block (exit 2 on PreToolUse etc.). */
export type BlockMode =
  | { can: false }
  | {
      can: true;
      /** How a hook blocks: exit status 2, a JSON decision on stdout, or a thrown error in a plugin. */
      how: readonly ("exit2" | "json")[];
      /** What blocking does, for the docs. */
      effect: string;
    };

/** What an event's matcher is tested against; "none" means it is ignored. */
export type MatcherKind = "tool" | "source" | "trigger" | "reason" | "notification" | "agent" | "none";

export interface EventSupport {
  /** Native event name (a hooks.json key, a plugin hook, an event bus topic). */
  native: string;
  /** What `matcher` is tested against natively; "none" means the agent ignores it. */
  matcher: MatcherKind;
  /**
   * For source/trigger/reason matchers: the values this agent emits. A neutral value missing here
   * cannot match on this agent.
   */
  values?: string[];
  block: BlockMode;
  /** Whether a hook's output reaches the model, through which channel, and the agent's size limit. */
  context: { channel: string; limit: ContextLimit | null } | null;
  /**
   * How a hook with the neutral envelope hands its context over here (see EnvelopeCapabilities).
   * Absent: the agent cannot take context at this event, and kanon's runner carries it to the next
   * prompt where the agent can carry (or it is not delivered).
   */
  envelope?: EnvelopeEvent;
  /** Forced timeout ceiling in seconds for this event (Codex clamps SessionEnd/Interrupt to 3 s). */
  maxTimeoutSec?: number;
  /** True when the agent only observes the event (nothing the hook does changes the agent's course). */
  observeOnly?: boolean;
  /**
   * The agent compares a source/trigger/reason matcher with the value exactly (no list, no regex), so
   * kanon can write one value only (Gemini CLI's SessionStart, SessionEnd, PreCompress).
   */
  exactValue?: boolean;
  /**
   * Where this event (or a part of it, e.g. OpenCode 2's binding) was verified differently from the
   * manifest's `verified`: read but not run, or docs only. The docs show it as a footnote.
   */
  verified?: Verified;
  notes?: string;
}

/** The most hook output an agent passes to the model at an event, and what it does with more. */
export interface ContextLimit {
  max: number;
  /**
   * What `max` counts: UTF-16 code units (a JavaScript string's length), or tokens estimated as
   * UTF-8 bytes ÷ 4 (Codex), where a multi-byte character counts up to 1 token.
   */
  unit: "utf16" | "bytes/4";
  /** What the agent does with more, for the docs. */
  over: string;
  /**
   * A handler field that raises the limit (Codex's `additionalContextLimit`, in the same unit): kanon
   * sets it to a neutral hook's max_output_chars where that is larger, so the agent does not cut it.
   */
  raise?: string;
}

/** How a neutral-envelope hook's context reaches the model at one event. */
export interface EnvelopeEvent {
  /**
   * "additionalContext": the runner prints `{"hookSpecificOutput": {"hookEventName": <native>,
   * "additionalContext": …}}`; "stdout": plain text; "plugin": a JSON reply `{"context": …}` that
   * kanon's own plugin delivers. Absent: the agent cannot take context here.
   */
  context?: "additionalContext" | "stdout" | "plugin";
  /**
   * Rendered on another native event, where its context lands (Claude's and Codex's neutral
   * PostCompact: SessionStart with the matcher `compact`, which they fire right after compaction).
   */
  as?: { event: string; matcher: string };
}

/**
 * What kanon's hook runner needs to know to give a neutral-envelope hook the same stdin in every
 * agent: the native stdin key of each envelope field (absent: the agent never sends it, and the
 * envelope says null), and where context goes that cannot be delivered at its event.
 */
export interface EnvelopeCapabilities {
  fields: Partial<Record<EnvelopeField, string>>;
  /** The prompt arrives as an array of content parts (`[{type: "text", text}]`), joined into one string. */
  promptParts?: boolean;
  /**
   * A regex (source) for what the agent puts before the user's prompt in the prompt hook's stdin,
   * taken off again: headless Gemini CLI prepends SessionStart's context as `<hook_context>…`.
   */
  promptPrefix?: string;
  /** Tool names the agent sends in stdin besides the matcher table's (Codex's `apply_patch` → Edit). */
  toolNames?: Record<string, string>;
  /**
   * Context that cannot be delivered at its event is delivered with the next prompt of the same
   * session, once: "runner" keeps it in kanon's state directory and a `kanon/carry` hook on
   * UserPromptSubmit hands it over; "plugin": kanon's plugin keeps it in memory. null: it is lost.
   */
  carry: "runner" | "plugin" | null;
}

/** Native stdin facts that the neutral envelope carries under its own names. */
export type EnvelopeField =
  | "session_id"
  | "cwd"
  | "transcript_path"
  | "prompt"
  | "tool_name"
  | "tool_input"
  | "tool_output"
  | "source"
  | "trigger"
  | "reason";

/** One neutral handler field and how this agent runs it. */
export type FieldSupport =
  /**
   * Written as is, under `name` when the agent spells it differently (status_message → statusMessage).
   * `events`: the only events where the agent honours the field; on any other the hook never runs.
   */
  | { support: "native"; name?: string; events?: readonly string[]; notes?: string }
  /** Rendered in another form that behaves the same (e.g. args → one POSIX-quoted command line). */
  | { support: "translated"; how: string }
  /** Not written, and the hook still does what it says: the field only changes what the user sees. */
  | { support: "dropped"; why: string }
  | { support: "none" };

/**
 * One handler type the agent runs. The fields a type requires and allows are neutral (NEUTRAL_HANDLERS
 * in the vocabulary); this table says which of them the agent's own schema takes, under which name.
 */
export interface HandlerSupport {
  /** Neutral handler fields (besides type) → support. Missing fields are unsupported: a hook using one is left out. */
  fields: Record<string, FieldSupport>;
  /** How the command is run, for the docs. */
  runs: string;
}

export interface HookTimeouts {
  /** Native unit of the timeout field; kanon.yaml's unit is seconds, converted when a hook is rendered. */
  unit: "s" | "ms";
  defaultSec: number;
  /** The range the agent accepts, in seconds (a hook outside it is left out; an explicit target is an error). */
  minSec?: number;
  maxSec?: number;
}

/** A condition outside kanon's control that must hold before the agent runs a rendered hook. */
export interface Gate {
  id: string;
  /** Which scopes it applies to. */
  scopes: Scope["kind"][];
  description: string;
}

/** What an agent adds to the environment of the hooks it runs (HookCapabilities.environment). */
export interface HookEnvironment {
  /** Variable names, each set for every hook (not those set for some events or plugin hooks only). */
  names: readonly string[];
  /** For the docs: how they are set, what else the agent gives. */
  notes?: string;
  verified: Verified;
}

export interface HookCapabilities {
  verified: Verified;
  /** Destination of the hook file per scope (null: no hooks in that scope). */
  file: ScopedPath;
  /**
   * A pass-through agent drops an event it does not know one entry at a time and runs the rest
   * (Claude), so a hook on an event kanon has never heard of is still written for it, with a warning:
   * new events work before kanon knows them. Events kanon knows (the neutral vocabulary and every
   * manifest's table) that are missing from this table are left out, as for every other agent.
   */
  passThrough: boolean;
  /** The agent's complete event list at the verified version (its published schema's). */
  events: Record<string, EventSupport>;
  handlers: Record<string, HandlerSupport>;
  matcher: MatcherDialect;
  timeouts: HookTimeouts;
  /**
   * Neutral tool name → the names this agent's matchers see for it. Absent: the agent has no such
   * tool. An empty table entry list means the same.
   */
  tools: Record<string, string[]>;
  gates: Gate[];
  /**
   * The agent expands `$VAR`, `${VAR}` and `${VAR:-default}` in every string of the hook file when it
   * loads it (Gemini CLI settings.json), before the shell sees the command: kanon writes commands so
   * that nothing in them is expanded early, or leaves the hook out when it cannot.
   */
  expandsVariables?: boolean;
  /**
   * Texts the agent replaces, as plain text, in the command and every argument of an exec-form hook
   * (`args`) before it spawns it (Claude Code: `${CLAUDE_PROJECT_DIR}` → the project directory). A
   * neutral hook's shell command must not pass through that (a path with `"`, `$` or a backquote
   * would be spliced into shell text), so kanon runs the runner through the agent's shell form there.
   */
  execSubstitutes?: readonly string[];
  /**
   * The variables the agent sets in the environment of every hook it runs, besides the environment it
   * inherited: a hook's `$NAME` for one of them means something only in the agents that set it.
   */
  environment: HookEnvironment;
  /** Free-form runtime notes for the docs (shell, stdin). */
  runtime: string[];
  /** How hooks with the neutral envelope are translated in and out. */
  envelope: EnvelopeCapabilities;
}

export interface SkillCapabilities {
  root: ScopedPath;
  /** How a git provider's child skill is named: `<provider>:<child>` or a slug of `<provider>-<child>`. */
  providerNaming: "namespaced" | "slug";
}

/**
 * An agent without a section's feature (no slash commands, no subagents), or without it in a scope:
 * every item of the section is reported for it (a warning, an error for an explicit target).
 */
export interface Lacks {
  verified: Verified;
  /** What the agent has instead, or that it has nothing, for messages and the docs. */
  lacks: string;
}

/** How one neutral field of a command or subagent reaches the agent's file. */
export type ItemFieldSupport =
  /** Written under `name` in the agent's front matter (or TOML key). */
  | { support: "native"; name: string }
  /**
   * Not written, and the item still does what it says: the field only changes what the user sees
   * (a hint while typing). `kanon commands` notes it.
   */
  | { support: "dropped"; why: string }
  /** The agent cannot say it: the item is left out (a warning, an error for an explicit target). */
  | { support: "none"; why: string };

/**
 * How the agent spells a command's arguments in its body. Neutral `$ARGUMENTS` is the whole argument
 * string and `$1`…`$9` the arguments one by one (1-based); a placeholder the agent has no spelling
 * for leaves the command out for it.
 */
export interface ArgumentSpelling {
  /** The whole argument string (`$ARGUMENTS`, `{{args}}`); null: the agent has none. */
  all: string | null;
  /**
   * Text right after `all` that the agent reads with it as something else (a regex, matched there;
   * Claude Code's `$ARGUMENTS[0]` is the first argument), and what it reads: a body with one is
   * left out for the agent.
   */
  allReadsOn?: { pattern: string; does: string };
  /**
   * The n-th argument: `{n}` in `spelling` is replaced by the native index, counted from `base`
   * (Claude Code's `$0` is the first argument). `restToLast`: the highest-numbered placeholder in a
   * body also takes the arguments after it (OpenCode). `beforeWord`: the spelling right before a
   * letter, digit or `_`, where the agent does not take `spelling` as a placeholder (Claude Code's
   * `$0x` is text). null: the agent has no positional arguments.
   */
  positional: { spelling: string; base: 0 | 1; restToLast?: true; beforeWord?: string } | null;
  /**
   * Text the agent replaces that is no neutral placeholder (Claude Code's `$0`, Gemini CLI's
   * `{{args}}`): a regex (without capturing groups), how to name it, what the agent does with it, and
   * the `escape` written before it so that the agent leaves it as written; without one, a body
   * holding it is left out for the agent.
   */
  reserved?: { pattern: string; say: string; does: string; escape?: string };
  /** What the agent does with arguments when the body has no placeholder, for the docs. */
  unplaced: string;
}

/** Text in a body that the agent acts on when it reads the file: noted for every item whose body has it. */
export interface BodyNote {
  pattern: string;
  note: string;
}

/** Names the agent takes (a regex), and how to say them in a message. */
export interface NameRule {
  pattern: string;
  say: string;
}

/** A file kanon writes per item: Markdown with YAML front matter, or TOML (`prompt`: the key of the body). */
export type ItemFormat = { kind: "markdown" } | { kind: "toml"; prompt: string };

interface ItemCapabilities {
  verified: Verified;
  /** The folder per scope (null: none in that scope); an item's file is `<name><extension>` in it. */
  root: ScopedPath;
  extension: string;
  format: ItemFormat;
  /** The names the agent takes; absent: every name kanon takes. */
  names?: NameRule;
  /** Conditions outside kanon's control before the agent uses a rendered file (a trusted project). */
  gates?: Gate[];
  bodyNotes?: BodyNote[];
  /** How it is used, for the docs. */
  invoke: string;
  notes?: string[];
}

export interface CommandCapabilities extends ItemCapabilities {
  fields: { description: ItemFieldSupport; "argument-hint": ItemFieldSupport };
  arguments: ArgumentSpelling;
  /**
   * The agent keeps its commands and skills in one list of names, where a skill wins: a command named
   * like a skill rendered for the agent would never run, so render refuses the two (as two skills of
   * one name). What the agent does then, for the message and the docs.
   */
  skillNamesWin?: string;
}

export interface SubagentCapabilities extends ItemCapabilities {
  /** The key that names the subagent in its file (it is the agent's name for it); absent: the file name. */
  nameField?: string;
  /** Keys written on every subagent (OpenCode's `mode: subagent`). */
  fixed?: Record<string, string>;
  fields: { description: ItemFieldSupport; tools: ItemFieldSupport; model: ItemFieldSupport };
  /**
   * How a tool list is written: one comma-separated string, a list, or a map (OpenCode's `tools`)
   * that switches every tool off (`"*": false`) and the listed ones on. `builtIn`: the agent's own
   * tools, on unless a map switches them off, for reading back a map without `"*"`.
   */
  toolList: "comma" | "list" | { map: { builtIn: readonly string[] } };
  /** Neutral (Claude Code) tool name → the agent's names for it; a tool missing here is one it lacks. */
  tools: Record<string, string[]>;
  /** The model names the agent takes; absent: any. */
  models?: NameRule;
  /** The value that runs the subagent on the calling agent's model; null: writing no model says it. */
  inherit: string | null;
}

/** The neutral MCP server fields an agent's entry can carry (kanon.yaml's names, in its order). */
export const MCP_FIELDS = [
  "type",
  "command",
  "args",
  "env",
  "env_vars",
  "url",
  "headers",
  "env_headers",
  "bearer_token_env_var",
  "startup_timeout_sec",
  "tool_timeout_sec",
  "enabled_tools",
  "disabled_tools",
  "default_approval",
  "tools",
  "opencode_enabled",
] as const;
export type McpFieldName = (typeof MCP_FIELDS)[number];

/** One neutral MCP server field and how this agent's entry carries it. */
export type McpFieldSupport =
  /** Written as is, under `name` when the agent spells it differently (headers → http_headers). */
  | { support: "native"; name?: string }
  /** Rendered in another form that behaves the same (env_headers → `"${VAR}"` headers). */
  | { support: "translated"; how: string }
  /**
   * Not written, and the server still does what kanon.yaml says: the field only tunes timing or is
   * another agent's switch. `kanon mcp` notes it.
   */
  | { support: "dropped"; why: string }
  /**
   * The agent has no way to say it: the field is left out with a warning naming server, agent and
   * field (an error when the server's targets name the agent).
   */
  | { support: "none"; why: string };

export interface McpCapabilities {
  /** Where and how this table was checked (the conformance suite's MCP phase runs it). */
  verified: Verified;
  file: ScopedPath;
  /** Other file names holding the same document (e.g. opencode.jsonc), tried in order when the first is missing. */
  alternatives?: ScopedPath[];
  format: "json" | "jsonc" | "toml";
  /** Top-level key whose entries are kanon's. */
  key: string;
  /**
   * Keys of an entry that kanon writes and the agent assumes, with that value, when they are absent
   * (Claude Code: `type` stdio). An entry on disk without them means the same: a merge leaves them
   * out of it, and import does not count them as a change.
   */
  implied?: Record<string, string>;
  /** The name the model sees for a server's tool: `{server}` and `{tool}` are replaced. */
  toolName: string;
  /**
   * The environment a stdio server starts with, besides `env`: the agent's ("all"), the agent's less
   * names that look like secrets (TOKEN, KEY, SECRET, … : Gemini CLI), or only the names the entry
   * forwards and a few basics ("none": Codex's HOME, PATH, …).
   */
  inheritsEnvironment: "all" | "not secret-like names" | "none";
  /**
   * The values the agent accepts for a server's `default_approval` and `tools.<t>.approval`; any other
   * stops it from loading the file, so kanon refuses it. Absent: the agent has no such setting.
   */
  approvalModes?: string[];
  /**
   * What the agent does with `${VAR}` in the strings of an MCP entry: expands it when it starts the
   * server (absent: `${VAR}` and `${VAR:-default}` alike), or passes it "as-written" (Codex, Kimi Code,
   * and OpenCode, which expands its own `{env:VAR}` only). For an "as-written" agent the entry maps
   * what it can say natively (Codex `env_vars`, OpenCode `{env:VAR}`); a reference still left in the
   * entry is resolved by kanon at apply when the server allows it (`resolve_env: true`), else the
   * server is left out for the agent (an error when its targets name it).
   */
  variables?: "as-written";
  /** Every neutral field: how the agent's entry carries it. */
  fields: Record<McpFieldName, McpFieldSupport>;
  /**
   * The transports the agent speaks (`type`, or stdio with a command and http with a url): a server
   * of another is left out for the agent. Absent: stdio, http and sse.
   */
  transports?: ("stdio" | "http" | "sse")[];
  /** Conditions outside kanon's control before the agent starts a project server, for the docs. */
  projectGate?: string;
}

/** How a native file is named in import messages: `skipped unsupported claude json field "x"`. */
export interface ImportLabel {
  /** Word in `skipped unsupported <agent> <label> field`. */
  label: string;
  /** Root of secret-scan paths after the agent id: `claude.claude_json.mcpServers.x`. */
  secretPath: string;
}

/**
 * How import reads one key of a native MCP entry: the kind of value it holds and the neutral field it
 * fills (kanon.yaml's name). A value of another kind is skipped, with a warning naming the kind.
 */
export type McpField =
  | { kind: "string"; to: "command" | "url" | "bearer_token_env_var" | "default_approval" }
  | { kind: "strings"; to: "args" | "env_vars" | "enabled_tools" | "disabled_tools" }
  /** A map of strings: the server's environment. */
  | { kind: "env" }
  /**
   * A map of strings: literal headers. With `envRefs`, a value that is one whole reference is an env
   * header; with `bearer`, `Authorization: Bearer <reference>` (that spelling, or the name in any
   * case) is bearer_token_env_var.
   */
  | { kind: "headers"; envRefs?: boolean; bearer?: "Authorization" | "any case" }
  /** A map of header → variable name: env_headers as they are. */
  | { kind: "env headers" }
  /** A whole number of seconds (0 too). */
  | { kind: "seconds"; to: "startup_timeout_sec" | "tool_timeout_sec" }
  /** Milliseconds: a whole number of seconds in them (`exact`), or any number rounded up to seconds. */
  | { kind: "milliseconds"; to: "startup_timeout_sec" | "tool_timeout_sec"; round: "exact" | "up" }
  | { kind: "boolean"; to: "opencode_enabled" }
  /**
   * The transport, from these values only: each gives the neutral `type` kanon writes for it, or null
   * when it follows from command/url (kanon writes it itself). `any`: every string is the type.
   */
  | { kind: "transport"; values: Record<string, "sse" | null> | "any" }
  /** A command line as a string, or a list whose first item is the command and the rest its args. */
  | { kind: "command list" }
  /** Codex's per-tool table (`tools.<t>.approval_mode`, …). */
  | { kind: "tools" };

/** How import reads the agent's MCP entries back (one shared reader goes through this table). */
export interface McpEntryRead {
  /** Native key → what it holds. Any other key is skipped with a warning. */
  fields: Record<string, McpField>;
  /** How the entry spells an environment reference: `${NAME}` (the default) or OpenCode's `{env:NAME}`. */
  envRef?: "${NAME}" | "{env:NAME}";
  /** A `type` the render writes anyway (http with a url, else stdio) is not worth a line in kanon.yaml. */
  omitImpliedType?: boolean;
}

/** What `kanon import` reads besides the render destinations, and how its messages name the files. */
export interface ImportData {
  /** Read when the agent's own instruction file is missing or blank (OpenCode also reads CLAUDE.md). */
  instructionFallbacks?: ScopedPath[];
  /** Skill roots scanned after skills.root: other roots the agent also reads. */
  skillRoots?: ScopedPath[];
  /** Command and subagent folders read after the section's root: others the agent also reads. */
  commandRoots?: ScopedPath[];
  subagentRoots?: ScopedPath[];
  mcpFile: ImportLabel;
  mcpEntry: McpEntryRead;
  hookFile?: ImportLabel;
}

export interface AgentManifest {
  id: AgentId;
  displayName: string;
  /**
   * Rendered when kanon.yaml has no `agents:` list. The agents added after the Go original are off by
   * default, so that existing homes do not start writing ~/.gemini or ~/.kimi-code.
   */
  defaultOn: boolean;
  /** Absent: the agent's user-scope files are always under the user's home directory. */
  home?: HomeVariable;
  instructions: ScopedPath;
  skills: SkillCapabilities;
  mcp: McpCapabilities;
  hooks: HookCapabilities;
  /** Slash commands (reusable prompts): where and how the agent reads them, or that it has none. */
  commands: CommandCapabilities | Lacks;
  /** Subagents: where and how the agent reads them, or that it has none. */
  subagents: SubagentCapabilities | Lacks;
  /** Absent: `kanon import` reports the agent as not importable. */
  import?: ImportData;
}

/** The hooks found in an agent's hook file, as the agent runs them (timeouts in seconds). */
export interface HookRead {
  hooks: NativeHook[];
  /** The file carries each hook's name (kanon's OpenCode plugin), so names are part of what renders. */
  named: boolean;
  /** Order that the agent keeps: within one event (Claude-shaped groups) or across the whole file. */
  order: "event" | "file";
  warnings: string[];
  /** The parsed file, for the secret scan (absent for files that are code, like the plugin). */
  document?: unknown;
}

/** One native MCP entry read back: the neutral server, or null when it has none (see warnings). */
export interface McpRead {
  server: McpServer | null;
  /** The entry's keys that the server was read from (each other key has a warning). */
  keys: string[];
  warnings: string[];
}

/** A parsed matcher: every value, an exact list of names, or a regex. */
export type Matcher =
  | { kind: "all" }
  | { kind: "names"; names: string[] }
  | { kind: "regex"; source: string };

/** A hook as the agent will run it: native event name, translated matcher and handler. */
export interface NativeHook {
  name: string;
  neutralEvent: string;
  event: string;
  /** Matcher text for agents that read one (absent = match all). */
  matcherText?: string;
  /** The same matcher as data, for agents whose runtime kanon generates. */
  matcher: Matcher;
  type: string;
  /** The command fields, as the agent runs them (every agent spells these four the same). */
  command?: string;
  args?: string[];
  timeout?: number;
  async?: boolean;
  /** The other handler fields, under the agent's names for them (`statusMessage`, `url`, …). */
  fields: Record<string, unknown>;
  /** The command runs kanon's hook runner (the neutral envelope): a runtime kanon generates reads its reply. */
  neutral?: boolean;
}

/** A rendered native hook file. */
export interface HookFile {
  content: string;
  /** For a co-owned file: the managed document and how it merges. */
  managed?: Record<string, unknown>;
  merge?: MergeSpec;
  elided?: ElidedLines[];
}

/** A rendered hook that the agent will not run yet because of a gate (e.g. Codex's review in /hooks). */
export interface GatedHook {
  gate: string;
  hook: string;
  event: string;
  /** e.g. "new", "changed since it was trusted", "disabled". */
  state: string;
}

export interface GateCheckInput {
  /** The rendered hook file as it will be on disk. */
  path: string;
  content: string;
  /** The hooks in that file, in file order. */
  hooks: NativeHook[];
  /** A user-scope path of this agent (relative to the user's home), where the agent reads it. */
  userPath(rel: string): string;
  env: NodeJS.ProcessEnv;
}

/** What `kanon import` reads with beyond the manifest's tables (native hook files). */
export interface AgentImport {
  /** Warnings for a top-level MCP-file key other than `manifest.mcp.key`; null for the default. */
  readOtherMcpKey?(key: string, value: unknown): string[] | null;
  /** The hooks in the agent's hook file (at `path`). Throws on text it cannot parse. */
  readHooks?(text: string, path: string): HookRead;
  /** Hook files beside `hookPath` that import cannot read (a user's own OpenCode plugins). */
  unreadableHookFiles?(hookPath: string): string[];
}

/** An agent = its manifest plus the few things data cannot say (native file formats). */
export interface Agent {
  manifest: AgentManifest;
  /** One MCP server as this agent's native entry (the value under `manifest.mcp.key`). */
  mcpServer(server: McpServer): Record<string, unknown>;
  /** The native hook file for the hooks the support check let through; null when there are none. */
  hookFile(hooks: NativeHook[]): HookFile | null;
  /**
   * The import readers, loaded when import runs: with their parsers they are a good part of an
   * agent's code, and the commands run many times a day (diff, apply) never read hooks back.
   */
  loadImport?(): Promise<AgentImport>;
  /** Read-only check of the agent's own state for gated hooks (never writes it). */
  gatedHooks?(input: GateCheckInput): Promise<{ hooks: GatedHook[]; warnings: string[] }>;
}
