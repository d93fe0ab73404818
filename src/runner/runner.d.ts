/** Types of what runner.js exports for the tests (the runner itself is plain JavaScript, run by node). */

export interface RunnerOptions {
  agent: string;
  event: string;
  name: string;
  max: number;
  timeout: number;
  block: boolean;
  async: boolean;
  builtin?: string;
  sh?: string;
  argv?: string[];
}

export interface Envelope {
  envelope: 1;
  event: string;
  agent: string;
  session_id: string | null;
  cwd: string;
  transcript_path: string | null;
  prompt: string | null;
  tool: { name: string | null; input: unknown; output: unknown } | null;
  source: string | null;
  trigger: string | null;
  reason: string | null;
  native: unknown;
}

export interface Reply {
  context?: string;
  decision?: "block" | "allow";
  reason?: string;
  note?: string;
  problem?: string;
}

export function parseArgs(argv: string[]): RunnerOptions;
export function buildEnvelope(
  agent: string,
  event: string,
  native: unknown,
  table: unknown,
  cwd: string,
): Envelope;
export function bound(
  s: string,
  max: number,
  ceiling: { max: number; unit: "utf16" | "bytes/4" } | null,
): string;
export function deadlineMs(timeoutSec: number): number;
export function runCommand(
  o: RunnerOptions,
  input: string,
  ms: number,
  where: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<unknown>;
export function interpret(o: RunnerOptions, r: unknown): Reply;
export function deliver(
  o: RunnerOptions,
  table: unknown,
  envelope: Envelope,
  reply: Reply,
  keepContext?: (o: RunnerOptions, envelope: Envelope, context: string) => void,
): { stdout: string; stderr: string; code: number; notes: string[] };

/** One call of the runner: what it prints and its exit status. */
export function runHook(call: {
  argv: string[];
  readInput: () => string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}): Promise<{ stdout: string; stderr: string; code: number }>;
