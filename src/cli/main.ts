/**
 * The `kanon` command line: the commands of command-table.ts, read by commander (program.ts), and
 * the process's streams. Errors print one line each and exit 1.
 */
import { homedir } from "node:os";
import { KanonError } from "../model/types.js";
import type { Io } from "./context.js";
import { buildProgram } from "./program.js";

export async function main(argv: string[], io: Io): Promise<number> {
  try {
    const { program, exitStatus } = buildProgram(io);
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
