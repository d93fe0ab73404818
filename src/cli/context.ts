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

/**
 * `text` with each secret value noted for this output shown as the reference kanon.yaml has: a
 * safety net behind the masking of co-owned files' lines (core/secrets.ts maskSecrets), for a value
 * that does not look like a secret where it stands.
 */
export function references(io: Io, text: string): string {
  const secrets = secretsOf.get(io.stdout);
  if (!secrets) return text;
  let s = text;
  for (const [name, value] of secrets) s = s.split(value).join(`\${secret:${name}}`);
  return s;
}

/** references() on bytes, which are passed on as they are when they hold no noted value. */
function referenceBytes(io: Io, bytes: Uint8Array): Uint8Array {
  const secrets = secretsOf.get(io.stdout);
  if (!secrets) return bytes;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (![...secrets.values()].some((v) => b.includes(v))) return bytes;
  // Latin-1 maps each byte to one character and back: bytes that are not UTF-8 survive.
  let s = b.toString("latin1");
  for (const [name, value] of secrets)
    s = s.split(Buffer.from(value).toString("latin1")).join(`\${secret:${name}}`);
  return Buffer.from(s, "latin1");
}

export function out(io: Io, text: string | Uint8Array): void {
  io.stdout.write(
    typeof text === "string" ? visible(references(io, text)) : visibleBytes(referenceBytes(io, text)),
  );
}

/** Output whose every part from outside kanon went through `visible` before kanon painted it. */
export function outPainted(io: Io, text: string | Uint8Array): void {
  io.stdout.write(typeof text === "string" ? references(io, text) : referenceBytes(io, text));
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
