/**
 * The `kanon` command line: the commands of command-table.ts, read by commander (program.ts), and
 * the process's streams. Errors print one line each and exit 1.
 */
import { homedir } from "node:os";
import { osErrorText } from "../model/fs-errors.js";
import { KanonError } from "../model/types.js";
import { err, type Io } from "./context.js";
import { buildProgram } from "./program.js";

export async function main(argv: string[], io: Io): Promise<number> {
  try {
    const { program, exitStatus } = buildProgram(io, argv);
    await program.parseAsync(argv, { from: "user" });
    return exitStatus();
  } catch (e) {
    const error = e as { code?: string; exitCode?: number; message?: string };
    if (typeof error.code === "string" && error.code.startsWith("commander.")) {
      // Commander already printed its message (usage errors), or it was --help / --version.
      return error.exitCode ?? 1;
    }
    if (e instanceof KanonError) {
      err(io, `${e.message}\n`);
      return 1;
    }
    err(io, `${systemError(e) ?? (e as Error).message ?? String(e)}\n`);
    if (io.env.KANON_DEBUG) err(io, `${(e as Error).stack}\n`);
    return 1;
  }
}

/**
 * An OS error no caller worded (`EACCES: permission denied, stat '/x'`) in kanon's words, naming the
 * file: `stat /x: permission denied`.
 */
function systemError(e: unknown): string | null {
  const x = e as NodeJS.ErrnoException;
  if (typeof x?.code !== "string" || typeof x.syscall !== "string" || typeof x.path !== "string") return null;
  return `${x.syscall} ${x.path}: ${osErrorText(x)}`;
}

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // Made on first use: most commands never read stdin.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    userHome: process.env.HOME || homedir(),
  };
}
