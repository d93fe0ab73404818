/**
 * The command lines people and scripts type many times a day (`kanon diff`, `kanon --home h apply
 * --yes`), read from the command table without commander, whose loading and program building are a
 * good part of a small command's start-up. Anything else goes to commander (program.ts), which prints
 * the help and the usage errors: this reads only lines it can read exactly as commander does (a test
 * compares the two on generated command lines).
 */
import { COMMANDS, type CommandSpec, GLOBAL_OPTIONS, type Options } from "./command-table.js";
import type { GlobalFlags } from "./context.js";

/** `--home <path>` → home; other notations are not read here. */
const VALUE_OPTION = /^--([a-z]+) <[a-z]+>$/;
/** `--json`, `-n, --dry-run` → [short, long]; negations and options with values are not read here. */
const FLAG = /^(?:(-[a-zA-Z]), )?--((?!no-)[a-z][a-z-]*)$/;

const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

interface Quick {
  spec: CommandSpec;
  /** A word on the command line → the option it sets. */
  flags: Map<string, string>;
}

let table: { globals: Map<string, keyof GlobalFlags>; defaults: GlobalFlags; commands: Map<string, Quick> };

function quickTable(): typeof table {
  const globals = new Map<string, keyof GlobalFlags>();
  const defaults: Record<string, string> = {};
  for (const o of GLOBAL_OPTIONS) {
    const m = VALUE_OPTION.exec(o.flags);
    if (!m) throw new Error(`global option ${o.flags}: not a --name <value> option`);
    globals.set(`--${m[1]}`, m[1] as keyof GlobalFlags);
    if (o.default !== undefined) defaults[m[1]!] = o.default;
  }
  const commands = new Map<string, Quick>();
  for (const spec of COMMANDS) {
    if (spec.argument || spec.excessArguments || spec.subcommands) continue;
    const flags = new Map<string, string>();
    const read = (spec.options ?? []).every((o) => {
      const m = FLAG.exec(o.flags);
      if (!m || o.default !== undefined) return false;
      if (m[1]) flags.set(m[1], camel(m[2]!));
      flags.set(`--${m[2]}`, camel(m[2]!));
      return true;
    });
    if (read) for (const name of spec.names) commands.set(name, { spec, flags });
  }
  return { globals, defaults: defaults as unknown as GlobalFlags, commands };
}

/** The global option at argv[i] (`--home h` or `--home=h`): its name, its value and the words it takes. */
function globalOption(
  argv: readonly string[],
  i: number,
): { name: keyof GlobalFlags; value: string | undefined; words: number } | undefined {
  table ??= quickTable();
  const word = argv[i]!;
  const eq = word.startsWith("--") ? word.indexOf("=") : -1;
  const name = table.globals.get(eq < 0 ? word : word.slice(0, eq));
  if (!name) return undefined;
  return eq < 0 ? { name, value: argv[i + 1], words: 2 } : { name, value: word.slice(eq + 1), words: 1 };
}

/**
 * The first word of `argv` that is not a global option or its value (`kanon --home h diff` → "diff");
 * undefined when there is none, or when a word before it is an option this table does not know.
 * (commander defines only this command: program.ts.)
 */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const global = globalOption(argv, i);
    if (global) i += global.words - 1;
    else return argv[i]!.startsWith("-") ? undefined : argv[i];
  }
  return undefined;
}

/**
 * The command, global flags and options of `argv` when every word is a global option with its value,
 * the command's name, or one of the command's own flags; undefined for anything else.
 */
export function quickParse(
  argv: readonly string[],
): { spec: CommandSpec; flags: GlobalFlags; opts: Options } | undefined {
  table ??= quickTable();
  const flags: GlobalFlags = { ...table.defaults };
  const opts: Options = {};
  let command: Quick | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const global = globalOption(argv, i);
    if (global) {
      // A value that looks like an option is commander's to read (or to reject).
      if (global.value === undefined || (global.words === 2 && global.value.startsWith("-")))
        return undefined;
      flags[global.name] = global.value;
      i += global.words - 1;
    } else if (!command) {
      command = table.commands.get(word);
      if (!command) return undefined;
    } else {
      const option = command.flags.get(word);
      if (!option) return undefined;
      opts[option] = true;
    }
  }
  return command && { spec: command.spec, flags, opts };
}
