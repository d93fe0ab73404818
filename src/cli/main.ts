/** The `kanon` command line: flags and commands, wired to the pipeline. Errors print one line each and exit 1. */
import { homedir } from "node:os";
import { Command, Option } from "commander";
import { AGENT_IDS, AGENTS } from "../agents/index.js";
import { KanonError } from "../model/types.js";
import type { GlobalFlags, Io } from "./context.js";

declare const __KANON_VERSION__: string;
const VERSION = typeof __KANON_VERSION__ === "string" ? __KANON_VERSION__ : "0.0.0-dev";

const agentNames = AGENTS.map((a) => a.manifest.displayName);
const DESCRIPTION = `Manage coding-agent settings from a shared Kanon repository

kanon compiles one neutral source, the Kanon home (kanon.yaml, instructions/,
skills/, hooks/), into the native files of ${agentNames.slice(0, -1).join(", ")} and ${agentNames.at(-1)}:
  source state       the Kanon home (usually a git repository)
  target state       the rendered agent files (never stored)
  destination state  the real files on disk
render shows the target state, diff compares it with the destination, and
apply writes it, changing only kanon's own entries in files you also edit.`;

export function buildProgram(io: Io): Command {
  const program = new Command("kanon")
    .description(DESCRIPTION)
    .version(VERSION, "-v, --version", "print the kanon version")
    .helpOption("-h, --help", "show help")
    .option("--home <path>", "Kanon source repository path (defaults to KANON_HOME or ~/.config/kanon)")
    .option("--config <path>", "config file path (defaults to <home>/kanon.yaml)")
    .option("--project <dir>", "render project-scoped agent settings into this repository")
    .addOption(new Option("--agent <name>", `agent to manage: all, ${AGENT_IDS.join(", ")}`).default("all"))
    .showHelpAfterError(false)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });
  const flags = (): GlobalFlags => program.opts() as GlobalFlags;
  const lazy = <T>(load: () => Promise<T>) => load;
  const commands = {
    render: lazy(() => import("./commands/render.js")),
    init: lazy(() => import("./commands/init.js")),
    validate: lazy(() => import("./commands/validate.js")),
    status: lazy(() => import("./commands/status.js")),
    schema: lazy(() => import("./commands/schema.js")),
    hooks: lazy(() => import("./commands/hooks.js")),
    lock: lazy(() => import("./commands/lock.js")),
  };

  program
    .command("init")
    .description("Create a new Kanon source repository")
    .option("--force", "overwrite existing starter files")
    .option("--no-git", "do not run git init in the Kanon home")
    .action(async (opts) => (await commands.init()).initCommand(flags(), opts, io));
  program
    .command("validate")
    .description("Validate the source state (kanon.yaml and referenced assets)")
    .action(async () => (await commands.validate()).validateCommand(flags(), io));
  program
    .command("render")
    .description("Render the target state (agent-native files) from the source state")
    .option("--json", "print files, their agents and the warnings as JSON")
    .action(async (opts) => (await commands.render()).renderCommand(flags(), opts, io));
  program
    .command("diff")
    .description("Diff the target state against files on disk (destination)")
    .option("--json", "print the changes and the warnings as JSON")
    .action(async (opts) => (await commands.render()).diffCommand(flags(), opts, io));
  program
    .command("apply")
    .description("Apply the target state to disk (destination)")
    .option("--yes", "apply without prompting")
    .option("-n, --dry-run", "show what apply would change without writing")
    .action(async (opts) => (await commands.render()).applyCommand(flags(), opts, io));
  program
    .command("status")
    .description("Show source git status and destination drift")
    .option("--json", "print the status as JSON")
    .action(async (opts) => (await commands.status()).statusCommand(flags(), opts, io));
  program
    .command("hooks")
    .description("Show how every hook renders for every agent: as written, translated, or left out, and why")
    .option("--json", "print the decisions as JSON")
    .option("--strict", "exit 1 when any hook is not rendered as written")
    .action(async (opts) => (await commands.hooks()).hooksCommand(flags(), opts, io));
  program
    .command("schema")
    .description("Print the JSON Schema of kanon.yaml (for editor completion and checks)")
    .action(async () => (await commands.schema()).schemaCommand(io));

  const lock = program
    .command("lock")
    .description("Create or repair kanon.lock git skill provider pins")
    .argument("[none...]")
    .action(async (extra: string[]) => (await commands.lock()).lockCommand(flags(), extra, io));
  lock
    .command("check")
    .description("Verify git skill providers against kanon.lock")
    .action(async () => (await commands.lock()).lockCheckCommand(flags(), io));
  lock
    .command("update")
    .description("Re-resolve git skill providers and update kanon.lock")
    .argument("[provider-name...]")
    .option("--all", "update every enabled git skill provider")
    .action(async (names: string[], opts) =>
      (await commands.lock()).lockUpdateCommand(flags(), names, opts, io),
    );

  return program;
}

export async function main(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  program.exitOverride();
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (e) {
    const err = e as { code?: string; exitCode?: number; message?: string };
    if (typeof err.code === "string" && err.code.startsWith("commander.")) {
      // Commander already printed its message (usage errors), or it was --help / --version.
      return err.exitCode ?? 1;
    }
    if (e instanceof KanonError) {
      io.stderr.write(`${e.message}\n`);
      return 1;
    }
    io.stderr.write(`${(e as Error).message ?? String(e)}\n`);
    if (io.env.KANON_DEBUG) io.stderr.write(`${(e as Error).stack}\n`);
    return 1;
  }
}

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    userHome: process.env.HOME || homedir(),
  };
}
