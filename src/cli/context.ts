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

/**
 * The secret values this run put into rendered files (name → value): never printed as they are. Kept
 * per output stream, so that a command's quiet copy of its Io (kanon ui) shares them.
 */
const secretsOf = new WeakMap<object, Map<string, string>>();

export function noteSecrets(io: Io, used: ReadonlyMap<string, string>): void {
  const known = secretsOf.get(io.stdout) ?? new Map<string, string>();
  // Very short values would mangle unrelated output; no real credential is that short.
  for (const [name, value] of used) if (value.length >= 4) known.set(name, value);
  secretsOf.set(io.stdout, known);
}

/** `text` with each secret value noted for this output shown as the reference kanon.yaml has. */
export function maskSecrets(io: Io, text: string): string {
  const secrets = secretsOf.get(io.stdout);
  if (!secrets) return text;
  let s = text;
  for (const [name, value] of secrets) s = s.split(value).join(`\${secret:${name}}`);
  return s;
}

export function out(io: Io, text: string | Uint8Array): void {
  if (!secretsOf.has(io.stdout)) {
    io.stdout.write(text);
    return;
  }
  // A diff of a file holding a secret shows the reference kanon.yaml has, not the value.
  io.stdout.write(maskSecrets(io, typeof text === "string" ? text : Buffer.from(text).toString("utf8")));
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
