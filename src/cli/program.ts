/** The `kanon` program in commander, built from the command table: help, usage errors, suggestions. */
import { Command, Option } from "commander";
import { AGENTS } from "../agents/index.js";
import { wordList } from "../model/text.js";
import { COMMANDS, type CommandSpec, GLOBAL_OPTIONS, type OptionSpec } from "./command-table.js";
import { err, type GlobalFlags, type Io, out } from "./context.js";

declare const __KANON_VERSION__: string;
const VERSION = typeof __KANON_VERSION__ === "string" ? __KANON_VERSION__ : "0.0.0-dev";

const agentNames = AGENTS.map((a) => a.manifest.displayName);
const DESCRIPTION = `Manage coding-agent settings from a shared Kanon repository

kanon compiles one neutral source, the Kanon home (kanon.yaml, instructions/,
skills/, commands/, agents/, hooks/), into the native files of
${wordList(agentNames, "and")}:
  source state       the Kanon home (usually a git repository)
  target state       the rendered agent files (never stored)
  destination state  the real files on disk
render shows the target state, diff compares it with the destination, and
apply writes it, changing only kanon's own entries in files you also edit.`;

/**
 * The program that reads `argv`; `exitStatus` gives the status the command returned. It has only the
 * command `argv` names (with its subcommands), or every command when `argv` names none (see
 * commandsFor).
 */
export function buildProgram(
  io: Io,
  argv: readonly string[],
): { program: Command; exitStatus: () => number } {
  const program = new Command("kanon")
    .description(DESCRIPTION)
    .version(VERSION, "-v, --version", "print the kanon version")
    .helpOption("-h, --help", "show help")
    .showHelpAfterError(false)
    // Set before the subcommands are made: they inherit them, so every help lists --home, --project…,
    // and a subcommand's --help or usage error throws to main (with its exit status) instead of
    // calling process.exit, which would end a process that runs main for more than one command.
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      writeOut: (s) => out(io, s),
      writeErr: (s) => err(io, s),
    });
  for (const o of GLOBAL_OPTIONS) program.addOption(option(o));
  let status = 0;

  const define = (parent: Command, spec: CommandSpec) => {
    const [name, ...aliases] = spec.names;
    const cmd = parent.command(name).description(spec.description);
    for (const alias of aliases) cmd.alias(alias);
    for (const a of [spec.argument ?? []].flat()) cmd.argument(a.name, a.description);
    for (const o of spec.options ?? []) cmd.addOption(option(o));
    if (spec.excessArguments) cmd.allowExcessArguments();
    cmd.action(async (...params: unknown[]) => {
      const self = params.at(-1) as Command;
      const code = await spec.run({
        flags: program.opts() as GlobalFlags,
        opts: self.opts(),
        args: self.args,
        io,
      });
      if (typeof code === "number") status = code;
    });
    cmd.addHelpText("after", `\nExample:\n  ${spec.example}\n`);
    for (const sub of spec.subcommands ?? []) define(cmd, sub);
  };
  for (const spec of commandsFor(argv)) define(program, spec);

  // Bare `kanon` (or only global options) prints the help to stdout; an unknown word is still an error.
  program.allowExcessArguments().action((_opts, cmd: Command) => {
    // unknownCommand (with its did-you-mean) is public in commander but missing from its types.
    if (cmd.args.length > 0) (cmd as Command & { unknownCommand(): never }).unknownCommand();
    else cmd.outputHelp();
  });
  return { program, exitStatus: () => status };
}

/**
 * The commands `argv` needs: the one its command word names, or all of them when it has none, names
 * none, or has an option other than a global one before it (help lists every command, and an unknown
 * word is answered with the nearest names). Commander reads the same argv either way; defining the
 * ~40 commands with their options and help texts on every run cost a `diff` of the example home
 * 3.8 M instructions (1.7%, valgrind, Node 20.20).
 */
function commandsFor(argv: readonly string[]): readonly CommandSpec[] {
  const word = commandWord(argv);
  const named = word === undefined ? undefined : COMMANDS.find((c) => c.names.includes(word));
  return named ? [named] : COMMANDS;
}

/** The first word of `argv` after the global options and their values; none at any other option. */
function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("-")) return arg;
    const global = GLOBAL_OPTIONS.find(({ flags }) => {
      const long = flags.split(" ")[0]!;
      return arg === long || arg.startsWith(`${long}=`);
    });
    if (global === undefined) return undefined;
    if (!arg.includes("=") && global.flags.includes("<")) i++; // its value
  }
  return undefined;
}

function option({ flags, description, default: value }: OptionSpec): Option {
  const o = new Option(flags, description);
  return value === undefined ? o : o.default(value);
}
