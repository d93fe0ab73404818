/**
 * The hook runner kanon writes (src/runner/file.ts), run two ways: its `runHook` called in this
 * process (what most runner tests need: the envelope, the reply, the log, the commands it starts), or
 * the file run by node as an agent runs it (`spawnRunner`, for what only a process shows: stdin read
 * from its file descriptor, the exit status and output the agent sees). A node process costs ~150 ms
 * of CPU here; the runner's own work for a hook is a few milliseconds.
 */
import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import type { runHook } from "../../src/runner/runner.js";

export interface RunnerCall {
  /** What the agent writes to the runner's stdin. */
  input?: string;
  cwd: string;
  /** The runner's environment (PATH only by default; the hook's command inherits it). */
  env?: NodeJS.ProcessEnv;
}

export interface RunnerRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const basicEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? "/usr/bin:/bin" });

/**
 * The runner file at `file`, imported into this process (its tables and state directory are the
 * file's): `run(args, call)` is `node <file> ...args` without the process.
 */
export async function inProcessRunner(
  file: string,
): Promise<(args: string[], call: RunnerCall) => Promise<RunnerRun>> {
  const mod = (await import(pathToFileURL(file).href)) as { runHook: typeof runHook };
  return (args, { input = "", cwd, env = basicEnv() }) =>
    mod.runHook({ argv: args, readInput: () => input, cwd, env });
}

/** `node <file> ...args` as an agent starts it: stdin a pipe holding `input`. */
export function spawnRunner(file: string, args: string[], { input = "", cwd, env = basicEnv() }: RunnerCall) {
  const r = spawnSync(process.execPath, [file, ...args], { input, encoding: "utf8", cwd, env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
