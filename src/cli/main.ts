/**
 * The `kanon` command line: the commands of command-table.ts, read by quick-parse.ts or commander
 * (program.ts), and the process's streams. Errors print one line each and exit 1.
 */
import { fstatSync, statSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import type { Writable } from "node:stream";
import { KanonError } from "../model/types.js";
import type { Io } from "./context.js";
import { quickParse } from "./quick-parse.js";

export async function main(argv: string[], io: Io): Promise<number> {
  try {
    const quick = quickParse(argv);
    if (quick) {
      const code = await quick.spec.run({ flags: quick.flags, opts: quick.opts, args: [], io });
      return typeof code === "number" ? code : 0;
    }
    const { buildProgram } = await import("./program.js");
    const { program, exitStatus } = buildProgram(io, argv);
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
