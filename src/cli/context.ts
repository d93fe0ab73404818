/** What every command receives: global flags, environment and the output streams. */
import type { Writable } from "node:stream";
import type { DestinationFs } from "../destination/fs.js";

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
  io.stdout.write(text);
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
    lines += `warning: ${m}\n`;
  }
  if (lines) io.stderr.write(lines);
}

export const isTerminal = (stream: Io["stdout"]): boolean => (stream as NodeJS.WriteStream).isTTY === true;

/** Progress lines for work that can take seconds: on a terminal only, never in pipes or CI logs. */
export function progressOf(io: Io): { progress?: (line: string) => void } {
  return isTerminal(io.stderr) ? { progress: (line: string) => io.stderr.write(`${line}\n`) } : {};
}
