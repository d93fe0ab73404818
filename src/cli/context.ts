/** What every command receives: global flags, environment and the output streams. */
import type { Writable } from "node:stream";

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
}

export function out(io: Io, text: string | Uint8Array): void {
  io.stdout.write(text);
}

export function warn(io: Io, messages: readonly string[]): void {
  for (const m of messages) io.stderr.write(`warning: ${m}\n`);
}
