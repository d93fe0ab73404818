/**
 * The commands and options of `kanon`, as data: commander builds the program from this table
 * (program.ts: help, errors, suggestions). Each command loads its module when it runs.
 */
import { AGENT_IDS } from "../agents/index.js";
import type { MachineFlags } from "../import/machine.js";
import { KanonError } from "../model/types.js";
import type { ImportFlags } from "./commands/import.js";
import type { GlobalFlags, Io } from "./context.js";

/** One option, in commander's notation: `--json`, `-n, --dry-run`, `--mode <mode>`, `--no-git`. */
export interface OptionSpec {
  flags: string;
  description: string;
  default?: string;
}

/** Each command's function declares the options it reads; the table gives them as parsed. */
// biome-ignore lint/suspicious/noExplicitAny: option values are typed by the function that takes them
export type Options = Record<string, any>;

export interface Call {
  flags: GlobalFlags;
  opts: Options;
  /** The operands after the command (its argument, or the words a command takes in excess). */
  args: string[];
  io: Io;
}

interface Argument {
  name: string;
  description: string;
}

export interface CommandSpec {
  /** The name, then any aliases. */
  names: [string, ...string[]];
  description: string;
  /** Commander's notation: `[repository]`, `[provider...]`; a list for several (`<index>`, `<total>`). */
  argument?: Argument | Argument[];
  options?: OptionSpec[];
  /** The command takes operands it does not declare (`kanon lock <provider>…`). */
  excessArguments?: boolean;
  example: string;
  subcommands?: CommandSpec[];
  /** Runs the command; a number it returns is its exit status (`--exit-code`). Errors throw. */
  run(call: Call): Promise<unknown>;
}

export const GLOBAL_OPTIONS: OptionSpec[] = [
  {
    flags: "--home <path>",
    description: "Kanon source repository path (defaults to KANON_HOME or ~/.config/kanon)",
  },
  { flags: "--config <path>", description: "config file path (defaults to <home>/kanon.yaml)" },
  { flags: "--project <dir>", description: "render project-scoped agent settings into this repository" },
  { flags: "--agent <name>", description: `agent to manage: all, ${AGENT_IDS.join(", ")}`, default: "all" },
];

const render = () => import("./commands/render.js");
const sync = () => import("./commands/sync.js");
const lock = () => import("./commands/lock.js");
const continuity = () => import("./commands/continuity.js");
const secret = () => import("./commands/secret.js");

const YES = { flags: "-y, --yes", description: "apply without prompting" };
const TRUST_HOOKS = {
  flags: "--trust-hooks",
  description:
    "put hooks and MCP servers that arrived from elsewhere (a pull, a clone) in place without asking",
};
const STAT = { flags: "--stat", description: "show only the summary before the prompt, not the diff" };
const EXIT_CODE = { flags: "--exit-code", description: "exit 1 when files would change, 0 when in sync" };
const policies = (mode: string): OptionSpec[] => [
  {
    flags: "--secret-policy <policy>",
    description: `secret handling ${mode}: store (into this machine's secret store), env (as \${VAR}) or keep`,
    default: "store",
  },
  {
    flags: "--instruction-policy <policy>",
    description: `instruction handling ${mode}: auto, ${AGENT_IDS.join(", ")}, merge, per-agent, or skip`,
    default: "auto",
  },
];
const HOOK_NAMES = "command (from the command) or go (<agent>-<event>-<i>)";

export const COMMANDS: CommandSpec[] = [
  {
    names: ["init"],
    description: "Create a new Kanon source repository, or clone one from a remote",
    argument: { name: "[repository]", description: "git URL or path of an existing Kanon home to clone" },
    options: [
      { flags: "--force", description: "overwrite existing starter files (what they held is saved first)" },
      { flags: "--no-git", description: "do not run git init in the Kanon home" },
      { flags: "--branch <name>", description: "with a repository: clone this branch" },
    ],
    example: "kanon init git@github.com:me/kanon-home.git",
    run: async ({ flags, opts, args: [repo], io }) => {
      if (repo !== undefined) await (await sync()).cloneCommand(flags, repo, io, opts);
      else await (await import("./commands/init.js")).initCommand(flags, opts, io);
    },
  },
  {
    names: ["validate"],
    description: "Validate the source state (kanon.yaml and referenced assets)",
    example: "kanon validate",
    run: async ({ flags, io }) => (await import("./commands/validate.js")).validateCommand(flags, io),
  },
  {
    names: ["render"],
    description: "Render the target state (agent-native files) from the source state",
    options: [{ flags: "--json", description: "print files, their agents and the warnings as JSON" }],
    example: "kanon render --agent claude",
    run: async ({ flags, opts, io }) => (await render()).renderCommand(flags, opts, io),
  },
  {
    names: ["diff"],
    description: "Diff the target state against files on disk (destination)",
    options: [
      { flags: "--json", description: "print the changes and the warnings as JSON" },
      {
        flags: "--stat",
        description: "print only the summary: files created, updated and deleted per agent",
      },
      EXIT_CODE,
    ],
    example: "kanon diff --exit-code >/dev/null || echo 'settings drifted'",
    run: async ({ flags, opts, io }) => (await render()).diffCommand(flags, opts, io),
  },
  {
    names: ["apply"],
    description: "Apply the target state to disk (destination)",
    options: [
      YES,
      { flags: "-n, --dry-run", description: "show what apply would change without writing" },
      STAT,
      TRUST_HOOKS,
    ],
    example: "kanon apply --project . --yes",
    run: async ({ flags, opts, io }) => (await render()).applyCommand(flags, opts, io),
  },
  {
    names: ["undo"],
    description: "Undo the last apply: remove the files it created, restore what it replaced or deleted",
    options: [
      { flags: "-y, --yes", description: "undo without prompting" },
      { flags: "-n, --dry-run", description: "show what undo would change without writing" },
      {
        flags: "--force",
        description: "undo even files changed since (what is there now is saved first)",
      },
    ],
    example: "kanon undo --dry-run",
    run: async ({ flags, opts, io }) => (await render()).undoCommand(flags, opts, io),
  },
  {
    names: ["status"],
    description: "Show source git status and destination drift",
    options: [{ flags: "--json", description: "print the status as JSON" }, EXIT_CODE],
    example: "kanon status",
    run: async ({ flags, opts, io }) => (await import("./commands/status.js")).statusCommand(flags, opts, io),
  },
  {
    names: ["update"],
    description: "Pull the source repository, then render and apply (remote to destination)",
    options: [
      YES,
      {
        flags: "-n, --dry-run",
        description:
          "fetch, then show what the update would bring (review and diff), without pulling or writing",
      },
      STAT,
      TRUST_HOOKS,
    ],
    example: "kanon update --yes",
    run: async ({ flags, opts, io }) => (await sync()).updateCommand(flags, opts, io),
  },
  {
    names: ["pull"],
    description: "Pull the Kanon source repository (git pull --ff-only)",
    example: "kanon pull",
    run: async ({ flags, io }) => (await sync()).pullCommand(flags, io),
  },
  {
    names: ["push"],
    description:
      "Push the Kanon source repository (git push), unless what it would send holds a plaintext secret",
    options: [
      {
        flags: "--allow-secrets",
        description: "push even when the commits hold what looks like a plaintext secret",
      },
    ],
    example: "kanon push",
    run: async ({ flags, opts, io }) => (await sync()).pushCommand(flags, io, opts),
  },
  {
    names: ["hooks"],
    description:
      "Show how every hook renders for every agent (as written, translated, or left out, and why), where its output reaches the model, and whether it can block",
    options: [
      { flags: "--json", description: "print the decisions as JSON" },
      { flags: "--strict", description: "exit 1 when any hook is not rendered as written" },
    ],
    example: "kanon hooks --agent codex",
    run: async ({ flags, opts, io }) => (await import("./commands/hooks.js")).hooksCommand(flags, opts, io),
  },
  {
    names: ["mcp"],
    description:
      "Show how every MCP server renders for every agent: as written, translated, or left out, and why",
    options: [
      { flags: "--json", description: "print the decisions as JSON" },
      { flags: "--strict", description: "exit 1 when any server is not rendered as written" },
    ],
    example: "kanon mcp --agent codex",
    run: async ({ flags, opts, io }) => (await import("./commands/mcp.js")).mcpCommand(flags, opts, io),
  },
  {
    names: ["commands"],
    description:
      "Show how every slash command renders for every agent: as written, translated, or left out, and why",
    options: [
      { flags: "--json", description: "print the decisions as JSON" },
      { flags: "--strict", description: "exit 1 when any command is not rendered as written" },
    ],
    example: "kanon commands --agent gemini",
    run: async ({ flags, opts, io }) =>
      (await import("./commands/items.js")).itemsCommand("command", flags, opts, io),
  },
  {
    names: ["agents"],
    description:
      "Show how every subagent renders for every agent: as written, translated, or left out, and why",
    options: [
      { flags: "--json", description: "print the decisions as JSON" },
      { flags: "--strict", description: "exit 1 when any subagent is not rendered as written" },
    ],
    example: "kanon agents --agent opencode",
    run: async ({ flags, opts, io }) =>
      (await import("./commands/items.js")).itemsCommand("subagent", flags, opts, io),
  },
  {
    names: ["schema"],
    description: "Print the JSON Schema of kanon.yaml (for editor completion and checks)",
    options: [
      {
        flags: "--envelope",
        description: "print the JSON Schema of the stdin of hooks with envelope: neutral instead",
      },
    ],
    example: "kanon schema > kanon.schema.json",
    run: async ({ opts, io }) => (await import("./commands/schema.js")).schemaCommand(opts, io),
  },
  {
    names: ["import", "add"],
    description: "Capture existing agent files into the source state",
    options: [
      { flags: "--write", description: "write imported config and files into the Kanon home" },
      {
        flags: "--force",
        description:
          "overwrite an existing kanon.yaml during import (with --merge: replace differing entries)",
      },
      {
        flags: "--merge",
        description: "add the imported entries to the existing kanon.yaml, keeping its comments and layout",
      },
      { flags: "--ui", description: "review and select imports in the interactive TUI" },
      {
        flags: "--git",
        description:
          "with --write: make a new Kanon home a git repository (as kanon init does) without asking",
      },
      {
        flags: "--no-git",
        description: "with --write: do not offer to make a new Kanon home a git repository",
      },
      ...policies("during import"),
      { flags: "--hook-names <style>", description: `hook names: ${HOOK_NAMES}`, default: "command" },
    ],
    example: "kanon import --write",
    // (Options with a default are always set.)
    run: async ({ flags, opts, io }) =>
      (await import("./commands/import.js")).importCommand(flags, opts as ImportFlags, io),
  },
  {
    names: ["ui"],
    description: "Review and apply (or import) changes one by one in an interactive terminal UI",
    options: [
      { flags: "-n, --dry-run", description: "start in dry-run mode (preview applies without writing)" },
      { flags: "--mode <mode>", description: "initial UI mode: apply or import", default: "apply" },
      ...policies("in import mode"),
      {
        flags: "--hook-names <style>",
        description: `hook names in import mode: ${HOOK_NAMES}`,
        default: "command",
      },
    ],
    example: "kanon ui -n",
    run: async ({ flags, opts, io }) =>
      (await import("./commands/ui.js")).uiCommand(flags, opts as MachineFlags, io),
  },
  {
    names: ["waypoint"],
    description: "Record and show where the work of this project stands (.kanon/ at the project root)",
    example:
      'kanon waypoint set --path phase-1/execute --status "in progress" --next "make the parser tests pass"',
    run: async ({ flags, io }) => (await continuity()).waypointShow(flags, {}, io),
    subcommands: [
      {
        names: ["set"],
        description: "Write the next revision of the waypoint (options not given keep their value)",
        options: [
          { flags: "--path <path>", description: "position, outermost first: phase/stage/task…" },
          { flags: "--status <text>", description: "where that position stands" },
          { flags: "--next <text>", description: "the exact next piece of work" },
          { flags: "--why <text>", description: "why that is next" },
        ],
        example: 'kanon waypoint set --next "run the migration on staging"',
        run: async ({ flags, opts, io }) => (await continuity()).waypointSet(flags, opts, io),
      },
      {
        names: ["show"],
        description: "Show the waypoint, the pause marker and the last handoff",
        options: [
          {
            flags: "--json",
            description:
              "print the waypoint, pause marker and handoffs as JSON (revision, path, status, next and why also at the top level)",
          },
          { flags: "--block", description: "print the bounded re-anchor block that agents get" },
          { flags: "--position", description: "print the one-line position that agents get on every prompt" },
        ],
        example: "kanon waypoint show --block",
        run: async ({ flags, opts, io }) => (await continuity()).waypointShow(flags, opts, io),
      },
      {
        names: ["clear"],
        description: "Empty the waypoint (its revision still grows)",
        example: "kanon waypoint clear",
        run: async ({ flags, io }) => (await continuity()).waypointClear(flags, io),
      },
      {
        names: ["pause"],
        description: "Write .kanon/PAUSE, as an agent's interrupt does (Claude Code has no interrupt hook)",
        options: [{ flags: "--reason <text>", description: "why the work pauses" }],
        example: 'kanon waypoint pause --reason "waiting for review"',
        run: async ({ flags, opts, io }) => (await continuity()).waypointPause(flags, opts, io),
      },
      {
        names: ["resume"],
        description: "Remove .kanon/PAUSE: the work may go on",
        example: "kanon waypoint resume",
        run: async ({ flags, io }) => (await continuity()).waypointResume(flags, io),
      },
    ],
  },
  {
    names: ["stage"],
    description: "Stage gates and handoffs: start, finish or skip a stage of kanon.yaml's stages",
    example: "kanon stage start plan",
    run: async ({ flags, io }) => (await continuity()).stageListCommand(flags, {}, io),
    subcommands: [
      {
        names: ["start"],
        argument: { name: "<stage>", description: "the stage to start" },
        description:
          "Start a stage: exit 2 when the nearest earlier required stage has no handoff; fires <stage>:before hooks",
        example: "kanon stage start execute",
        run: async ({ flags, args: [stage], io }) =>
          (await continuity()).stageStartCommand(flags, stage!, io),
      },
      {
        names: ["done"],
        argument: { name: "<stage>", description: "the stage that is done" },
        description: "Finish a stage: fire <stage>:after hooks, write its handoff, move the waypoint",
        options: [
          { flags: "--summary <text>", description: "what the next stage needs to know (required)" },
          { flags: "--artifact <path...>", description: "files the stage produced" },
        ],
        example: 'kanon stage done plan --summary "three tasks, see plan.md" --artifact plan.md',
        run: async ({ flags, opts, args: [stage], io }) =>
          (await continuity()).stageDoneCommand(flags, stage!, opts, io),
      },
      {
        names: ["skip"],
        argument: { name: "<stage>", description: "the stage to skip" },
        description: "Skip a stage: write its handoff as skipped, move the waypoint",
        options: [{ flags: "--reason <text>", description: "why the stage is skipped (required)" }],
        example: 'kanon stage skip assess --reason "a one-line fix"',
        run: async ({ flags, opts, args: [stage], io }) =>
          (await continuity()).stageSkipCommand(flags, stage!, opts, io),
      },
      {
        names: ["list"],
        description: "List the stages in order with their handoffs and gates",
        options: [{ flags: "--json", description: "print the stages as JSON" }],
        example: "kanon stage list",
        run: async ({ flags, opts, io }) => (await continuity()).stageListCommand(flags, opts, io),
      },
    ],
  },
  {
    names: ["secret"],
    description: "Keep the values kanon.yaml names as ${secret:NAME} on this machine, outside the Kanon home",
    example: "gh auth token | kanon secret set GITHUB_TOKEN",
    run: async ({ io }) => (await secret()).secretListCommand(io),
    subcommands: [
      {
        names: ["set"],
        description: "Store a secret (the value from stdin, or typed at a prompt that does not show it)",
        argument: { name: "<name>", description: "the secret's name, e.g. GITHUB_TOKEN" },
        example: "kanon secret set GITHUB_TOKEN",
        run: async ({ args: [name], io }) => (await secret()).secretSetCommand(name!, io),
      },
      {
        names: ["list"],
        description: "List the names of the secrets stored on this machine (never their values)",
        example: "kanon secret list",
        run: async ({ io }) => (await secret()).secretListCommand(io),
      },
      {
        names: ["rm"],
        description: "Remove a secret from this machine",
        argument: { name: "<name>", description: "the secret's name" },
        example: "kanon secret rm GITHUB_TOKEN",
        run: async ({ args: [name], io }) => (await secret()).secretRmCommand(name!, io),
      },
    ],
  },
  {
    names: ["task"],
    description: "Task boundaries inside a stage: fire task hooks and move the waypoint",
    example: "kanon task start 1 3",
    run: async () => {
      throw new KanonError(
        "kanon task: name a step: kanon task start <index> <total> or kanon task done <index> <total>",
      );
    },
    subcommands: (["start", "done"] as const).map((which) => ({
      names: [which] as [string],
      argument: [
        { name: "<index>", description: "the task's number, from 1" },
        { name: "<total>", description: "how many tasks there are" },
      ],
      description:
        which === "start"
          ? "Start task <index> of <total>: fire task:before hooks, move the waypoint"
          : "Finish task <index> of <total>: fire task:after hooks (and change:after after the last), move the waypoint",
      example: `kanon task ${which} 2 3`,
      run: async ({ flags, args, io }: Call) => (await continuity()).taskCommand(flags, which, args, io),
    })),
  },
  {
    names: ["lock"],
    description: "Create or repair kanon.lock git skill provider pins",
    excessArguments: true,
    example: "kanon lock",
    run: async ({ flags, args, io }) => (await lock()).lockCommand(flags, args, io),
    subcommands: [
      {
        names: ["check"],
        description: "Verify git skill providers against kanon.lock",
        example: "kanon lock check",
        run: async ({ flags, io }) => (await lock()).lockCheckCommand(flags, io),
      },
      {
        names: ["update"],
        description: "Re-resolve git skill providers and update kanon.lock",
        argument: { name: "[provider...]", description: "names of the git skill providers to re-resolve" },
        options: [{ flags: "--all", description: "update every enabled git skill provider" }],
        example: "kanon lock update agent-skills",
        run: async ({ flags, opts, args, io }) => (await lock()).lockUpdateCommand(flags, args, opts, io),
      },
    ],
  },
];
