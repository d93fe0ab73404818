/** The `kanon` command line: flags and commands, wired to the pipeline. Errors print one line each and exit 1. */
import { fstatSync, statSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import type { Writable } from "node:stream";
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

export function buildProgram(io: Io): { program: Command; exitStatus: () => number } {
  const program = new Command("kanon")
    .description(DESCRIPTION)
    .version(VERSION, "-v, --version", "print the kanon version")
    .helpOption("-h, --help", "show help")
    .option("--home <path>", "Kanon source repository path (defaults to KANON_HOME or ~/.config/kanon)")
    .option("--config <path>", "config file path (defaults to <home>/kanon.yaml)")
    .option("--project <dir>", "render project-scoped agent settings into this repository")
    .addOption(new Option("--agent <name>", `agent to manage: all, ${AGENT_IDS.join(", ")}`).default("all"))
    .showHelpAfterError(false)
    // Set before the subcommands are made: they inherit it, so every help lists --home, --project…
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });
  const flags = (): GlobalFlags => program.opts() as GlobalFlags;
  const lazy = <T>(load: () => Promise<T>) => load;
  const commands = {
    render: lazy(() => import("./commands/render.js")),
    init: lazy(() => import("./commands/init.js")),
    sync: lazy(() => import("./commands/sync.js")),
    validate: lazy(() => import("./commands/validate.js")),
    status: lazy(() => import("./commands/status.js")),
    schema: lazy(() => import("./commands/schema.js")),
    hooks: lazy(() => import("./commands/hooks.js")),
    lock: lazy(() => import("./commands/lock.js")),
    import: lazy(() => import("./commands/import.js")),
    ui: lazy(() => import("./commands/ui.js")),
  };
  // A command returns its exit status when it is not 0 (`--exit-code`); errors throw.
  let status = 0;
  const exitWith = (code: number | undefined) => {
    if (typeof code === "number") status = code;
  };
  const example = (cmd: Command, ...lines: string[]) =>
    cmd.addHelpText("after", `\nExample:\n${lines.map((l) => `  ${l}`).join("\n")}\n`);

  example(
    program
      .command("init")
      .description("Create a new Kanon source repository, or clone one from a remote")
      .argument("[repository]", "git URL or path of an existing Kanon home to clone")
      .option("--force", "overwrite existing starter files")
      .option("--no-git", "do not run git init in the Kanon home")
      .action(async (repo: string | undefined, opts) => {
        if (repo !== undefined) await (await commands.sync()).cloneCommand(flags(), repo, io);
        else await (await commands.init()).initCommand(flags(), opts, io);
      }),
    "kanon init git@github.com:me/kanon-home.git",
  );
  example(
    program
      .command("validate")
      .description("Validate the source state (kanon.yaml and referenced assets)")
      .action(async () => (await commands.validate()).validateCommand(flags(), io)),
    "kanon validate",
  );
  example(
    program
      .command("render")
      .description("Render the target state (agent-native files) from the source state")
      .option("--json", "print files, their agents and the warnings as JSON")
      .action(async (opts) => (await commands.render()).renderCommand(flags(), opts, io)),
    "kanon render --agent claude",
  );
  example(
    program
      .command("diff")
      .description("Diff the target state against files on disk (destination)")
      .option("--json", "print the changes and the warnings as JSON")
      .option("--stat", "print only the summary: files created, updated and deleted per agent")
      .option("--exit-code", "exit 1 when files would change, 0 when in sync")
      .action(async (opts) => exitWith(await (await commands.render()).diffCommand(flags(), opts, io))),
    "kanon diff --exit-code >/dev/null || echo 'settings drifted'",
  );
  example(
    program
      .command("apply")
      .description("Apply the target state to disk (destination)")
      .option("--yes", "apply without prompting")
      .option("-n, --dry-run", "show what apply would change without writing")
      .option("--stat", "show only the summary before the prompt, not the diff")
      .action(async (opts) => (await commands.render()).applyCommand(flags(), opts, io)),
    "kanon apply --project . --yes",
  );
  example(
    program
      .command("undo")
      .description("Undo the last apply: remove the files it created, restore what it replaced or deleted")
      .option("--yes", "undo without prompting")
      .option("-n, --dry-run", "show what undo would change without writing")
      .action(async (opts) => (await commands.render()).undoCommand(flags(), opts, io)),
    "kanon undo --dry-run",
  );
  example(
    program
      .command("status")
      .description("Show source git status and destination drift")
      .option("--json", "print the status as JSON")
      .option("--exit-code", "exit 1 when files would change, 0 when in sync")
      .action(async (opts) => exitWith(await (await commands.status()).statusCommand(flags(), opts, io))),
    "kanon status",
  );
  example(
    program
      .command("update")
      .description("Pull the source repository, then render and apply (remote to destination)")
      .option("--yes", "apply without prompting")
      .option("-n, --dry-run", "pull, then show what apply would change without writing")
      .option("--stat", "show only the summary before the prompt, not the diff")
      .action(async (opts) => (await commands.sync()).updateCommand(flags(), opts, io)),
    "kanon update --yes",
  );
  example(
    program
      .command("pull")
      .description("Pull the Kanon source repository (git pull --ff-only)")
      .action(async () => (await commands.sync()).pullCommand(flags(), io)),
    "kanon pull",
  );
  example(
    program
      .command("push")
      .description("Push the Kanon source repository (git push)")
      .action(async () => (await commands.sync()).pushCommand(flags(), io)),
    "kanon push",
  );
  example(
    program
      .command("hooks")
      .description(
        "Show how every hook renders for every agent: as written, translated, or left out, and why",
      )
      .option("--json", "print the decisions as JSON")
      .option("--strict", "exit 1 when any hook is not rendered as written")
      .action(async (opts) => (await commands.hooks()).hooksCommand(flags(), opts, io)),
    "kanon hooks --agent codex",
  );
  example(
    program
      .command("schema")
      .description("Print the JSON Schema of kanon.yaml (for editor completion and checks)")
      .action(async () => (await commands.schema()).schemaCommand(io)),
    "kanon schema > kanon.schema.json",
  );

  program
    .command("import")
    .alias("add")
    .description("Capture existing agent files into the source state")
    .option("--write", "write imported config and files into the Kanon home")
    .option(
      "--force",
      "overwrite an existing kanon.yaml during import (with --merge: replace differing entries)",
    )
    .option("--merge", "add the imported entries to the existing kanon.yaml, keeping its comments and layout")
    .option("--ui", "review and select imports in the interactive TUI")
    .option("--secret-policy <policy>", "secret handling during import: keep", "keep")
    .option(
      "--instruction-policy <policy>",
      `instruction handling during import: auto, ${AGENT_IDS.join(", ")}, merge, per-agent, or skip`,
      "auto",
    )
    .option(
      "--hook-names <style>",
      "hook names: command (from the command) or go (<agent>-<event>-<i>)",
      "command",
    )
    .action(async (opts) => (await commands.import()).importCommand(flags(), opts, io));
  example(
    program
      .command("ui")
      .description("Review and apply (or import) changes one by one in an interactive terminal UI")
      .option("-n, --dry-run", "start in dry-run mode (preview applies without writing)")
      .option("--mode <mode>", "initial UI mode: apply or import", "apply")
      .option("--secret-policy <policy>", "secret handling in import mode: keep", "keep")
      .option(
        "--instruction-policy <policy>",
        `instruction handling in import mode: auto, ${AGENT_IDS.join(", ")}, merge, per-agent, or skip`,
        "auto",
      )
      .option(
        "--hook-names <style>",
        "hook names in import mode: command (from the command) or go (<agent>-<event>-<i>)",
        "command",
      )
      .action(async (opts) => (await commands.ui()).uiCommand(flags(), opts, io)),
    "kanon ui -n",
  );

  const lock = example(
    program
      .command("lock")
      .description("Create or repair kanon.lock git skill provider pins")
      .allowExcessArguments()
      .action(async (_opts, cmd: Command) => (await commands.lock()).lockCommand(flags(), cmd.args, io)),
    "kanon lock",
  );
  example(
    lock
      .command("check")
      .description("Verify git skill providers against kanon.lock")
      .action(async () => (await commands.lock()).lockCheckCommand(flags(), io)),
    "kanon lock check",
  );
  example(
    lock
      .command("update")
      .description("Re-resolve git skill providers and update kanon.lock")
      .argument("[provider...]", "names of the git skill providers to re-resolve")
      .option("--all", "update every enabled git skill provider")
      .action(async (names: string[], opts) =>
        (await commands.lock()).lockUpdateCommand(flags(), names, opts, io),
      ),
    "kanon lock update agent-skills",
  );

  // Bare `kanon` (or only global options) prints the help to stdout; an unknown word is still an error.
  program.allowExcessArguments().action((_opts, cmd: Command) => {
    // unknownCommand (with its did-you-mean) is public in commander but missing from its types.
    if (cmd.args.length > 0) (cmd as Command & { unknownCommand(): never }).unknownCommand();
    else cmd.outputHelp();
  });
  return { program, exitStatus: () => status };
}

export async function main(argv: string[], io: Io): Promise<number> {
  const { program, exitStatus } = buildProgram(io);
  program.exitOverride();
  try {
    await program.parseAsync(argv, { from: "user" });
    return exitStatus();
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

/**
 * Output to a file or to /dev/null is written synchronously by Node anyway (its SyncWriteStream), but
 * building that stream loads Node's stream modules, a tenth of a small command's start-up; kanon
 * writes such output itself. Terminals and pipes keep Node's streams (colour, EPIPE, back-pressure).
 */
function fileOutput(fd: number): Writable | undefined {
  try {
    const s = fstatSync(fd);
    const devNull = s.isCharacterDevice() && s.rdev === statSync("/dev/null").rdev;
    if (!s.isFile() && !devNull) return undefined;
  } catch {
    return undefined;
  }
  const output = {
    isTTY: false,
    write(chunk: string | Uint8Array): boolean {
      if (typeof chunk === "string") writeSync(fd, chunk);
      else writeSync(fd, chunk);
      return true;
    },
    // The calls commands and the EPIPE handler make on a stream (a file raises no EPIPE).
    on: () => output,
    once: () => output,
    off: () => output,
  };
  return output as unknown as Writable;
}

export function processIo(): Io {
  return {
    stdout: fileOutput(1) ?? process.stdout,
    stderr: fileOutput(2) ?? process.stderr,
    // Made on first use: Node builds a stream for stdin (on a terminal, a tty socket) when it is
    // first read, and most commands never read it.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    userHome: process.env.HOME || homedir(),
  };
}
