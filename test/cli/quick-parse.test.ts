/**
 * The command lines kanon reads without commander must mean what they mean to commander: on generated
 * command lines, whenever quickParse reads one, commander runs the same command with the same global
 * flags and options (and no operands).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Call, COMMANDS, type CommandSpec } from "../../src/cli/command-table.js";
import type { Io } from "../../src/cli/context.js";
import { buildProgram } from "../../src/cli/program.js";
import { quickParse } from "../../src/cli/quick-parse.js";

const quiet = { write: () => true } as unknown as Io["stdout"];
const io = { stdout: quiet, stderr: quiet, env: {}, cwd: "/", userHome: "/" } as unknown as Io;

interface Ran {
  command: string;
  call: Omit<Call, "io">;
}

/** What commander runs for `argv` (nothing when it stops with help, a version or a usage error). */
async function commander(argv: string[]): Promise<Ran | null> {
  let ran: Ran | null = null;
  const capture = (specs: readonly CommandSpec[], parent = ""): CommandSpec[] =>
    specs.map((spec) => ({
      ...spec,
      run: async ({ io: _io, ...call }: Call) => {
        ran = { command: `${parent}${spec.names[0]}`, call };
      },
      subcommands: spec.subcommands && capture(spec.subcommands, `${parent}${spec.names[0]} `),
    }));
  const { program } = buildProgram(io, argv, capture(COMMANDS));
  program.exitOverride();
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch {
    return null;
  }
  return ran;
}

function quick(argv: string[]): Ran | null {
  const q = quickParse(argv);
  return q ? { command: q.spec.names[0], call: { flags: q.flags, opts: q.opts, args: [] } } : null;
}

const names = COMMANDS.flatMap((c) => c.names);
const flagsOf = (c: CommandSpec) =>
  (c.options ?? []).flatMap((o) => o.flags.split(/,? /).filter((w) => w.startsWith("-")));
const flags = [...new Set(COMMANDS.flatMap((c) => [...(c.subcommands ?? []), c]).flatMap(flagsOf))];
const word = fc.oneof(
  fc.constantFrom(...names, "help", "check", "update", "difff", "x", "a b", ""),
  fc.constantFrom(...flags, "--json=1", "-ny", "-h", "--help", "-v", "--version", "--", "--bogus", "-"),
  fc.constantFrom("--home", "--config", "--project", "--agent", "--home=", "--home=h", "--agent=codex"),
  fc.constantFrom("claude", "/some path", "-x", "--json", "-"),
);
const globalOption = fc.tuple(
  fc.constantFrom("--home", "--config", "--project", "--agent"),
  fc.constantFrom("h", "/some path", "codex", "-x", "diff", ""),
  fc.boolean(),
);
/** Mostly well-formed lines: global options, a command, its own flags, now and then a stray word. */
const commandLine = fc.constantFrom(...COMMANDS).chain((spec) =>
  fc
    .tuple(
      fc.array(globalOption, { maxLength: 2 }),
      fc.constantFrom(...spec.names),
      fc.array(
        fc.oneof(
          { weight: 4, arbitrary: flagsOf(spec).length ? fc.constantFrom(...flagsOf(spec)) : word },
          {
            weight: 1,
            arbitrary: globalOption.map(([o, v, joined]) => (joined ? `${o}=${v}` : `${o} ${v}`)),
          },
          { weight: 1, arbitrary: word },
        ),
        { maxLength: 4 },
      ),
    )
    .map(([globals, name, rest]) => [
      ...globals.flatMap(([o, v, joined]) => (joined ? [`${o}=${v}`] : [o, v])),
      name,
      ...rest.flatMap((w) => (w.startsWith("--") && w.includes(" ") ? w.split(" ") : [w])),
    ]),
);

describe("quickParse", () => {
  it("reads the common command lines", () => {
    expect(quick(["--home", "h", "diff", "--exit-code"])).toEqual({
      command: "diff",
      call: { flags: { home: "h", agent: "all" }, opts: { exitCode: true }, args: [] },
    });
    expect(quick(["apply", "-n", "--agent=codex", "--stat"])).toEqual({
      command: "apply",
      call: { flags: { agent: "codex" }, opts: { dryRun: true, stat: true }, args: [] },
    });
    for (const argv of [[], ["--help"], ["diff", "--help"], ["init"], ["import"], ["diff", "x"], ["--home"]])
      expect(quick(argv), argv.join(" ")).toBeNull();
  });

  it("reads a command line only as commander runs it", async () => {
    let read = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(commandLine, fc.array(word, { maxLength: 6 })), async (argv) => {
        const q = quick(argv);
        if (!q) return;
        read++;
        expect(await commander(argv)).toEqual(q);
      }),
      { numRuns: 2000 },
    );
    // The generator reaches the quick path often enough for the comparison to mean something.
    expect(read).toBeGreaterThan(300);
  });
});
