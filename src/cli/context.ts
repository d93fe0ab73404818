/**
 * What every command receives: global flags, environment and the output streams; and the printing
 * boundary: `out`, `err`, `warn` and progress make every character that would act on the terminal
 * visible (model/visible.ts), so what kanon shows is what it read and writes. Only output that was
 * made visible piece by piece before kanon coloured it (diffs) goes out as it is (`outPainted`).
 */
import type { Writable } from "node:stream";
import type { DestinationFs } from "../destination/fs.js";
import { visible, visibleBytes } from "../model/visible.js";

export interface GlobalFlags {
  home?: string;
  config?: string;
  project?: string;
  agent: string;
}

export interface Io {
  stdout: NodeJS.WriteStream | Writable;
  stderr: NodeJS.WriteStream | Writable;
  stdin: NodeJS.ReadStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  userHome: string;
  /** The file system plan, apply and undo use: the disk (realFs) unless a test passes its own. */
  fs?: DestinationFs;
}

export function out(io: Io, text: string | Uint8Array): void {
  io.stdout.write(typeof text === "string" ? visible(text) : visibleBytes(text));
}

/** Output whose every part from outside kanon went through `visible` before kanon painted it. */
export function outPainted(io: Io, text: string | Uint8Array): void {
  io.stdout.write(text);
}

/** A line (or lines) on stderr, made visible; bytes as they come (a stage hook's output). */
export function err(io: Io, text: string | Uint8Array): void {
  io.stderr.write(typeof text === "string" ? visible(text) : visibleBytes(text));
}

/** Warnings already printed in this run, per Io: a command that loads the source twice (update) says each once. */
const printed = new WeakMap<Io, Set<string>>();

export function warn(io: Io, messages: readonly string[]): void {
  const seen = printed.get(io) ?? new Set<string>();
  printed.set(io, seen);
  // One write: a hostile kanon.yaml can have tens of thousands of warnings.
  let lines = "";
  for (const m of messages) {
    if (seen.has(m)) continue;
    seen.add(m);
    lines += `warning: ${visible(m)}\n`;
  }
  if (lines) io.stderr.write(lines);
}

export const isTerminal = (stream: Io["stdout"]): boolean => (stream as NodeJS.WriteStream).isTTY === true;

/** Progress lines for work that can take seconds: on a terminal only, never in pipes or CI logs. */
export function progressOf(io: Io): { progress?: (line: string) => void } {
  return isTerminal(io.stderr) ? { progress: (line: string) => err(io, `${line}\n`) } : {};
}

/** One line from stdin; EOF (no terminal, closed input) reads as an empty answer. */
export function readLine(stdin: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve) => {
    let buffered = "";
    const finish = (line: string) => {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.off("error", onEnd);
      stdin.pause();
      resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      buffered += chunk.toString();
      const nl = buffered.indexOf("\n");
      if (nl >= 0) finish(buffered.slice(0, nl));
    };
    const onEnd = () => finish(buffered);
    stdin.on("data", onData);
    stdin.on("end", onEnd);
    stdin.on("error", onEnd);
    stdin.resume();
  });
}
