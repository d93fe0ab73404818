// Process control: every child runs in its own process group, is bounded by a timeout, and only process
// groups that this suite started are ever signalled.

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createWriteStream, readdirSync, readFileSync } from "node:fs";

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Text written to stdin; without it stdin is /dev/null. */
  stdin?: string;
  timeoutMs: number;
  /** Files that receive a copy of stdout / stderr. */
  stdoutFile?: string;
  stderrFile?: string;
  /** Share this process's stdout/stderr instead of capturing them. */
  inherit?: boolean;
}

export interface RunResult {
  argv: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  seconds: number;
  stdout: string;
  stderr: string;
  spawnError?: string;
}

const MAX_CAPTURE = 8 * 1024 * 1024;
const KILL_GRACE_MS = 3000;
const activeGroups = new Set<number>();

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** Signals every process group this suite started that is still running. */
export function signalActiveGroups(signal: NodeJS.Signals): void {
  for (const pid of activeGroups) signalGroup(pid, signal);
}

/** Kills every process group that is still running (used on SIGINT/SIGTERM of the suite). */
export function killActiveGroups(): void {
  signalActiveGroups("SIGKILL");
  activeGroups.clear();
}

export function runProcess(argv: string[], options: RunOptions): Promise<RunResult> {
  const [file, ...args] = argv;
  if (!file) throw new Error("runProcess: empty argv");
  const startedAt = performance.now();
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let settled = false;
    const outFile = options.stdoutFile ? createWriteStream(options.stdoutFile) : undefined;
    const errFile = options.stderrFile ? createWriteStream(options.stderrFile) : undefined;
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: [
        options.stdin === undefined ? "ignore" : "pipe",
        options.inherit ? "inherit" : "pipe",
        options.inherit ? "inherit" : "pipe",
      ],
    });
    const pid = child.pid;
    if (pid !== undefined) activeGroups.add(pid);

    const finish = (code: number | null, signal: NodeJS.Signals | null, spawnError?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      if (pid !== undefined) {
        // Whatever the agent left behind in its group (a hook still running, a shell) goes too.
        signalGroup(pid, "SIGKILL");
        activeGroups.delete(pid);
      }
      outFile?.end();
      errFile?.end();
      resolve({
        argv,
        code,
        signal,
        timedOut,
        seconds: (performance.now() - startedAt) / 1000,
        stdout,
        stderr,
        ...(spawnError ? { spawnError } : {}),
      });
    };

    let killTimer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      if (pid !== undefined) signalGroup(pid, "SIGTERM");
      killTimer = setTimeout(() => {
        if (pid !== undefined) signalGroup(pid, "SIGKILL");
      }, KILL_GRACE_MS);
    }, options.timeoutMs);

    child.stdout?.on("data", (chunk: Buffer) => {
      if (stdout.length < MAX_CAPTURE) stdout += chunk.toString("utf8");
      outFile?.write(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (stderr.length < MAX_CAPTURE) stderr += chunk.toString("utf8");
      errFile?.write(chunk);
    });
    if (options.stdin !== undefined && child.stdin) {
      child.stdin.on("error", () => {});
      child.stdin.end(options.stdin);
    }
    child.on("error", (error) => finish(null, null, String(error)));
    // "exit" rather than "close": a grandchild that keeps stdout open must not keep us waiting.
    child.on("exit", (code, signal) => {
      // Give the pipes a moment to drain what the process wrote before it exited.
      setTimeout(() => finish(code, signal), 50);
    });
  });
}

export interface StrayProcess {
  pid: number;
  cmdline: string;
}

/**
 * Finds and kills processes that carry this suite's run token in their environment. Only processes started
 * by this run can have it (the token is random), so nothing else is touched. Linux only; elsewhere a no-op.
 */
export function sweepStrays(token: string): StrayProcess[] {
  const needle = Buffer.from(`KANON_CONFORMANCE_RUN=${token}\0`);
  const found: StrayProcess[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`);
      if (!environ.includes(needle)) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
      process.kill(pid, "SIGKILL");
      found.push({ pid, cmdline });
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

export interface Interactive {
  child: ChildProcessWithoutNullStreams;
  /** Kills the process group (idempotent). */
  stop(): void;
}

/** Starts a long-running helper (stdin/stdout piped) in its own process group; `stop()` kills the group. */
export function startInteractive(
  argv: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Interactive {
  const [file, ...args] = argv;
  if (!file) throw new Error("startInteractive: empty argv");
  const child = spawn(file, args, { cwd: options.cwd, env: options.env, detached: true, stdio: "pipe" });
  const pid = child.pid;
  if (pid !== undefined) activeGroups.add(pid);
  child.stdin.on("error", () => {});
  return {
    child,
    stop() {
      if (pid === undefined || !activeGroups.has(pid)) return;
      signalGroup(pid, "SIGKILL");
      activeGroups.delete(pid);
    },
  };
}
