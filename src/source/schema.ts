/**
 * One schema definition for kanon.yaml, read three ways: to decode the YAML document with positions
 * (type errors as `kanon.yaml:LINE:COL: …`, unknown keys as warnings), to generate the JSON Schema
 * that editors use (`kanon schema`), and to document the fields. A small DSL rather than a general
 * validation library because decoding must follow the YAML AST (for positions) and the Go original's
 * coercions (any scalar into a string field, yes/no into booleans).
 */

import type { McpFieldName } from "../model/manifest.js";

export type Schema =
  | { kind: "string"; description?: string; examples?: string[]; enum?: string[] }
  | { kind: "int"; description?: string; minimum?: number; maximum?: number }
  | { kind: "bool"; description?: string }
  /** Any YAML value, kept as decoded (an MCP tool's arguments). */
  | { kind: "any"; description?: string }
  | { kind: "array"; items: Schema; description?: string }
  | { kind: "map"; values: Schema; description?: string }
  | { kind: "object"; fields: Record<string, Schema>; description?: string; title?: string }
  /** A plain string, or a mapping that spells it out with more fields (`{path, targets}`). */
  | { kind: "stringOr"; object: Schema & { kind: "object" }; description?: string };

const str = (description?: string, extra: { examples?: string[]; enum?: string[] } = {}): Schema => ({
  kind: "string",
  ...(description ? { description } : {}),
  ...extra,
});
/** Whole seconds and counts: at most 2^31-1, which every agent's format holds exactly. */
const int = (description: string): Schema => ({ kind: "int", description, minimum: 0, maximum: 2 ** 31 - 1 });
const bool = (description: string): Schema => ({ kind: "bool", description });
const list = (items: Schema, description?: string): Schema => ({
  kind: "array",
  items,
  ...(description ? { description } : {}),
});
const map = (values: Schema, description?: string): Schema => ({
  kind: "map",
  values,
  ...(description ? { description } : {}),
});
const obj = (fields: Record<string, Schema>, description?: string): Schema => ({
  kind: "object",
  fields,
  ...(description ? { description } : {}),
});

/** Agent names accepted in `targets`; filled in from the agent registry by `kanonSchema`. */
function targets(agentIds: string[]): Schema {
  return list(
    str(undefined, { enum: ["all", ...agentIds] }),
    "Agents to render for: all (the default when omitted or empty) or agent names.",
  );
}

/**
 * An MCP server's fields (and an override's, which may replace any of them for one agent). Their
 * descriptions say what a field means; `written` adds, per field, which agents write it, from the
 * manifests (core/mcp.ts `mcpFieldAgents`), so that no agent is named here.
 */
function serverFields(written: Partial<Record<McpFieldName, string>>): Record<string, Schema> {
  const d = (field: McpFieldName, text: string) => (written[field] ? `${text} ${written[field]}` : text);
  return {
    type: str(d("type", "Transport: stdio, http or sse (default http with url, else stdio).")),
    command: str(d("command", "Command of a stdio server.")),
    args: list(str(), d("args", "Arguments of the command.")),
    env: map(
      str(),
      d(
        "env",
        "Environment for the server; values may use ${VAR} or ${VAR:-default}, and ${secret:NAME} for a value in this machine's secret store (kanon secret set NAME).",
      ),
    ),
    env_vars: list(str(), d("env_vars", "Names of environment variables forwarded to the server.")),
    url: str(d("url", "URL of a remote (streamable HTTP) server.")),
    headers: map(str(), d("headers", "HTTP headers; values may use ${secret:NAME}.")),
    env_headers: map(str(), d("env_headers", "HTTP header → environment variable holding its value.")),
    bearer_token_env_var: str(
      d("bearer_token_env_var", "Environment variable holding a bearer token for the server."),
    ),
    startup_timeout_sec: int(d("startup_timeout_sec", "Startup timeout in seconds.")),
    tool_timeout_sec: int(d("tool_timeout_sec", "Tool call timeout in seconds.")),
    enabled_tools: list(str(), d("enabled_tools", "The server's tools to enable (the others are not).")),
    disabled_tools: list(str(), d("disabled_tools", "The server's tools to disable.")),
    default_approval: str(
      d("default_approval", "Default approval mode of the server's tools (auto, prompt, writes or approve)."),
    ),
    tools: map(
      obj({
        description: str("Accepted for the Go original; not rendered (no agent reads it)."),
        approval: str("This tool's approval mode."),
        approval_prompt: str("Accepted for the Go original; not rendered (no agent reads it)."),
      }),
      d("tools", "Per-tool settings."),
    ),
    opencode_enabled: bool(d("opencode_enabled", "OpenCode's own enabled switch for the server.")),
  };
}

/**
 * kanon.yaml's schema, with the agents and hook events of the registry filled in (and, for `kanon
 * schema`'s help text, which agents write each MCP field). Long because it is
 * one declarative table, field for field in kanon.yaml's order: read whole, it shows the file's
 * shape the way the file itself does; split up, a reader would jump between pieces to see one
 * entry. Apart from it: the MCP server fields (overrides repeat them) and the continuity sections.
 */
export function kanonSchema(
  agentIds: string[],
  hookEvents: string[],
  written: Partial<Record<McpFieldName, string>> = {},
): Schema {
  const t = targets(agentIds);
  const server = serverFields(written);
  return {
    kind: "object",
    title: "kanon.yaml",
    description: "A Kanon home: one neutral source for every coding agent's settings.",
    fields: {
      version: int("Schema version: 1 (required)."),
      agents: list(
        str(undefined, { enum: agentIds }),
        "Agents this home renders for; without this list, the agents that are on by default (see docs/agents.md). --agent may still name any agent.",
      ),
      instructions: obj(
        {
          files: list(
            {
              kind: "stringOr",
              object: {
                kind: "object",
                fields: {
                  path: str("The instruction file."),
                  targets: t,
                },
              },
              description: "A path (every agent), or {path, targets} for an agent's own text.",
            },
            "Instruction files joined in order (paths relative to the Kanon home, absolute, or ~/…).",
          ),
        },
        "Shared instructions rendered to AGENTS.md / CLAUDE.md.",
      ),
      skills: list(
        obj({
          name: str("Local: the skill name. Git: the provider namespace (default: derived from the URL)."),
          path: str("Local skill source directory (default skills/<name>)."),
          git: obj(
            {
              url: str("Repository URL; may use ${VAR} references."),
              ref: str("Branch, tag or commit."),
              subdir: str("Folder inside the repository that holds the skill directories."),
            },
            "A git skill provider: every skill directory in the repository (or subdir).",
          ),
          include: list(str(), "Git only: child skills to render, in this order."),
          exclude: list(str(), "Git only: child skills to skip."),
          targets: t,
          enabled: bool("false skips the entry everywhere."),
        }),
        "Local skill overrides and git skill providers.",
      ),
      commands: itemEntries(
        t,
        "command",
        "commands",
        "Slash commands (reusable prompts), one file each in commands/: entries target, disable or rename them.",
      ),
      subagents: itemEntries(
        t,
        "subagent",
        "agents",
        "Subagents (named agents with their own prompt, tools and model), one file each in agents/: entries target, disable or rename them.",
      ),
      mcp: obj(
        {
          servers: map(
            obj({
              ...server,
              targets: t,
              enabled: bool("false: not rendered for any agent."),
              resolve_env: bool(
                "true: kanon fills in, from its own environment when it applies, the ${VAR} references an agent cannot expand (the value is then written in that agent's file).",
              ),
              overrides: map(
                obj({
                  ...server,
                  unset: list(
                    str(undefined, { enum: [...Object.keys(server)] }),
                    "Fields this agent does not get.",
                  ),
                }),
                "Per agent (by id): the fields that agent gets differently, each replacing the server's field of that name, under the same server name in its file.",
              ),
            }),
            "MCP servers by name.",
          ),
        },
        "MCP servers.",
      ),
      hooks: list(
        obj({
          name: str("Unique hook name (also the event when event is empty)."),
          event: str("Neutral (Claude Code) event name.", { examples: hookEvents }),
          matcher: str("Tool names (Bash|Edit), a regex, or a session source, depending on the event."),
          type: str("Handler type (default command).", {
            examples: ["command", "http", "mcp_tool", "prompt", "agent"],
          }),
          command: str("command: shell command, or the executable when args is set."),
          args: list(str(), "command: arguments; run command directly with these (no shell)."),
          shell: str("command: shell for the command line.", { enum: ["bash", "powershell"] }),
          timeout: int("Timeout in seconds."),
          async: bool("command: run in the background without waiting."),
          async_rewake: bool("command: run in the background; exit 2 wakes the model."),
          if: str('Permission-rule filter on tool events, e.g. "Bash(git *)".'),
          status_message: str("Spinner text while the hook runs."),
          url: str("http: URL the hook input JSON is POSTed to."),
          headers: map(str(), "http: request headers; $VAR / ${VAR} expand when listed in allowed_env_vars."),
          allowed_env_vars: list(str(), "http: environment variables headers may use."),
          server: str("mcp_tool: name of a configured MCP server."),
          tool: str("mcp_tool: tool to call on that server."),
          input: map({ kind: "any" }, "mcp_tool: the tool's arguments."),
          prompt: str("prompt and agent: what to ask; $ARGUMENTS is the hook input JSON."),
          model: str("prompt and agent: model to use."),
          continue_on_block: bool("prompt: when it answers ok: false, continue the turn with the reason."),
          envelope: str(
            "command: native (the agent's own stdin and output rules) or neutral (one stdin envelope in every agent, stdout delivered as context, run by kanon's hook runner). Default: hooks_envelope.",
            { enum: ["native", "neutral"] },
          ),
          blocking: bool(
            "neutral envelope: exit 2 or decision: block blocks where the event can block (default false: the hook only observes).",
          ),
          max_output_chars: {
            kind: "int",
            description:
              "neutral envelope: the most characters of context delivered (default 4800); longer output is cut at a line boundary.",
            minimum: 1,
            maximum: 2 ** 31 - 1,
          },
          targets: t,
          enabled: bool("false skips the hook everywhere."),
        }),
        "Hooks in Claude Code's neutral shape, rendered where each agent can run them.",
      ),
      hooks_envelope: str(
        "The envelope of every command hook that does not set its own: native (the default) or neutral.",
        { enum: ["native", "neutral"] },
      ),
      ...continuityFields(),
      metadata: map(str(), "Free-form string metadata; never rendered."),
    },
  };
}

/** `commands:` and `subagents:`: entries shaped like a local skill's. */
function itemEntries(targets: Schema, what: string, folder: string, description: string): Schema {
  return list(
    obj({
      name: str(`The ${what}'s name: adjusts ${folder}/<name>.md, or names the file at path.`),
      path: str(
        `The ${what}'s file (default ${folder}/<name>.md); a file of ${folder}/ named here renders under this entry's name only.`,
      ),
      targets: { ...targets, description: `Agents to render for; replaces the file's own targets.` },
      enabled: bool(`false: the ${what} is not rendered for any agent.`),
    }),
    description,
  );
}

/**
 * The front matter of a command file (`commands/<name>.md`); its body is the prompt, where
 * `$ARGUMENTS` is the whole argument string and `$1`…`$9` the arguments one by one.
 */
export function commandFrontMatter(agentIds: string[]): Schema {
  return obj(
    {
      description: str("What the command does (shown in the agent's command list)."),
      "argument-hint": str("The arguments it takes, shown while typing it (e.g. [file] [focus])."),
      targets: targets(agentIds),
    },
    "A slash command: front matter, then the prompt.",
  );
}

/** The front matter of a subagent file (`agents/<name>.md`); its body is the subagent's system prompt. */
export function subagentFrontMatter(agentIds: string[]): Schema {
  return obj(
    {
      description: str("When to use the subagent (required: the agent delegates by it)."),
      tools: list(
        str(),
        "The tools it may use, by Claude Code's names (Read, Grep, Bash, …); absent: every tool.",
      ),
      model: {
        kind: "stringOr",
        object: {
          kind: "object",
          fields: Object.fromEntries(agentIds.map((id) => [id, str(`The model on ${id}.`)])),
        },
        description:
          "The model it runs on, as the agent names it: one name, or one per agent (an agent not named gets none); inherit: the calling agent's model.",
      },
      targets: targets(agentIds),
    },
    "A subagent: front matter, then its system prompt.",
  );
}

/** `continuity:`, `stages:` and `stage_hooks:` (cross-agent continuity; see `kanon waypoint` and `kanon stage`). */
function continuityFields(): Record<string, Schema> {
  return {
    continuity: obj(
      {
        reanchor: bool(
          "Render kanon's re-anchor hooks into every agent: the waypoint block at session start and after compaction.",
        ),
        position_on_prompt: bool("Render kanon's position hook: one line of the waypoint on every prompt."),
        max_chars: int("The re-anchor block's bound in characters: 300 to 10000 (default 4800)."),
      },
      "kanon's own hooks for cross-agent continuity: re-anchor, position, pause on interrupt.",
    ),
    stages: list(
      {
        kind: "stringOr",
        object: {
          kind: "object",
          fields: {
            name: str("The stage's name (lower case, digits, - and _)."),
            optional: bool("true: later stages do not wait for this stage's handoff."),
          },
        },
        description: "A stage name, or {name, optional: true}.",
      },
      "Stages in order for kanon stage (default: assess, plan, execute, reflect); each waits for the handoff of the nearest earlier required stage.",
    ),
    stage_hooks: list(
      obj({
        name: str("Name in messages and .kanon/events.jsonl (default stage_hooks[i])."),
        on: str(
          "<stage|task|change|*>:<before|after|*>, e.g. plan:before, task:after, change:after (after the last task).",
          {
            examples: ["plan:before", "execute:after", "task:after", "change:after", "*:before"],
          },
        ),
        command: str("Shell command (/bin/sh -c), run in the project root with KANON_HOOK_* variables."),
        timeout: int("Timeout in seconds (default 15)."),
        on_failure: str("What a failure does: warn (default), error (stop the step) or ignore.", {
          enum: ["warn", "error", "ignore"],
        }),
        enabled: bool("false skips the hook."),
      }),
      "Commands run by kanon stage start|done and kanon task start|done.",
    ),
  };
}

/** JSON Schema (draft 2020-12) for editors, generated from the same definition. */
export function toJsonSchema(schema: Schema, root = true): Record<string, unknown> {
  const out: Record<string, unknown> = root
    ? { $schema: "https://json-schema.org/draft/2020-12/schema" }
    : {};
  if (schema.kind === "object" && schema.title) out.title = schema.title;
  if (schema.description) out.description = schema.description;
  switch (schema.kind) {
    case "string":
      if (schema.enum) out.enum = schema.enum;
      else out.type = "string";
      if (schema.examples) out.examples = schema.examples;
      break;
    case "int":
      out.type = "integer";
      if (schema.minimum !== undefined) out.minimum = schema.minimum;
      if (schema.maximum !== undefined) out.maximum = schema.maximum;
      break;
    case "bool":
      out.type = "boolean";
      break;
    case "any":
      break;
    case "array":
      out.type = ["array", "null"];
      out.items = toJsonSchema(schema.items, false);
      break;
    case "map":
      out.type = ["object", "null"];
      out.additionalProperties = toJsonSchema(schema.values, false);
      break;
    case "stringOr":
      out.anyOf = [{ type: "string" }, toJsonSchema(schema.object, false)];
      break;
    case "object":
      out.type = ["object", "null"];
      out.properties = Object.fromEntries(
        Object.entries(schema.fields).map(([k, v]) => [k, toJsonSchema(v, false)]),
      );
      out.additionalProperties = false;
      break;
  }
  return out;
}
