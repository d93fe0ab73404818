/**
 * Stage hooks: commands kanon.yaml attaches to the edges of stages and tasks (`on: plan:before`,
 * `execute:after`, `task:after`, `change:after`, `*:before`…), run by `kanon stage start|done` and
 * `kanon task start|done` with `KANON_HOOK_*` variables. `change:after` fires once, after the
 * `task:after` of the last task (index = total): the change is complete.
 *
 * Each hook runs in its own process group with the project root as its working directory, killed
 * when it outlives its timeout. `on_failure` decides what a failure (non-zero exit, timeout, a
 * command that cannot start) does: `warn` (the default) prints a warning, `error` stops the command
 * before it records anything, `ignore` says nothing. Every run appends one JSON line to
 * `.kanon/events.jsonl`, under the events lock.
 */
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync } from "node:fs";
import type { StageHook } from "../model/config.js";
import type { ProjectFiles } from "./files.js";
import { withLock } from "./lock.js";

export const DEFAULT_HOOK_TIMEOUT = 15;
/** After SIGTERM, a hook's process group has this long before SIGKILL. */
const KILL_GRACE_MS = 2000;

export type Edge = "before" | "after";

/** One edge of a stage or task that hooks can attach to. */
export interface Fire {
  /** `stage`, `task` or `change`. */
  kind: "stage" | "task" | "change";
  edge: Edge;
  /** The stage: the one starting or done, or the one a task belongs to (null when none). */
  stage: string | null;
  index: number | null;
  total: number | null;
  /** The waypoint path the step leads to. */
  path: string[];
}

/** The `on:` word of a fire's kind: the stage's name for a stage, else `task` or `change`. */
export const kindWord = (f: Fire): string => (f.kind === "stage" ? f.stage! : f.kind);

export function matches(on: string, f: Fire): boolean {
  const [kind, edge] = on.split(":");
  return (kind === "*" || kind === kindWord(f)) && (edge === "*" || edge === f.edge);
}

export interface HookResult {
  hook: string;
  on: string;
  outcome: "ok" | "failed" | "timeout" | "not-started";
  exit: number | null;
  signal: string | null;
  durationMs: number;
  onFailure: "warn" | "error" | "ignore";
  /** One line for the user when it did not succeed. */
  message: string | null;
}

/** A stage hook's name in messages and the event log: its `name`, else `stage_hooks[i]`. */
export const hookLabel = (h: StageHook, i: number): string => h.name ?? `stage_hooks[${i}]`;

export function hookEnv(files: ProjectFiles, f: Fire, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    KANON_HOOK_EVENT: `${kindWord(f)}:${f.edge}`,
    KANON_HOOK_KIND: f.kind,
    KANON_HOOK_EDGE: f.edge,
    KANON_HOOK_NAME: f.stage ?? "",
    KANON_HOOK_INDEX: f.index === null ? "" : String(f.index),
    KANON_HOOK_TOTAL: f.total === null ? "" : String(f.total),
    KANON_HOOK_PATH: f.path.join("/"),
    KANON_PROJECT_ROOT: files.root,
  };
}

/**
 * Runs the enabled hooks that match `fire`, one after the other in kanon.yaml's order; their output
 * goes to `output` (kanon's stderr). Stops at the first `on_failure: error` hook that fails.
 */
export async function fireHooks(
  files: ProjectFiles,
  hooks: readonly StageHook[],
  fire: Fire,
  env: NodeJS.ProcessEnv,
  output: (chunk: Buffer) => void,
): Promise<HookResult[]> {
  const results: HookResult[] = [];
  for (const [i, hook] of hooks.entries()) {
    if (hook.enabled === false || !hook.on || !hook.command || !matches(hook.on, fire)) continue;
    const result = await runHook(files, hook, hookLabel(hook, i), fire, env, output);
    logEvent(files, fire, result);
    results.push(result);
    if (result.outcome !== "ok" && result.onFailure === "error") break;
  }
  return results;
}

function runHook(
  files: ProjectFiles,
  hook: StageHook,
  label: string,
  fire: Fire,
  env: NodeJS.ProcessEnv,
  output: (chunk: Buffer) => void,
): Promise<HookResult> {
  const timeout = (hook.timeout ?? DEFAULT_HOOK_TIMEOUT) * 1000;
  const onFailure = hook.on_failure ?? "warn";
  const started = Date.now();
  const event = `${kindWord(fire)}:${fire.edge}`;
  const base = { hook: label, on: event, onFailure };
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: HookResult) => {
      if (!settled) resolve(r);
      settled = true;
    };
    const child = spawn("/bin/sh", ["-c", hook.command!], {
      cwd: files.root,
      env: hookEnv(files, fire, env),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let timedOut = false;
    let killer: NodeJS.Timeout | undefined;
    const group = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // the group is gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      group("SIGTERM");
      killer = setTimeout(() => group("SIGKILL"), KILL_GRACE_MS);
    }, timeout);
    child.stdout.on("data", output);
    child.stderr.on("data", output);
    child.on("error", (e) => {
      clearTimeout(timer);
      done({
        ...base,
        outcome: "not-started",
        exit: null,
        signal: null,
        durationMs: Date.now() - started,
        message: `stage hook "${label}" (${event}) could not start: ${e.message}`,
      });
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      // A hook that timed out goes with everything it started.
      if (timedOut) group("SIGKILL");
      const durationMs = Date.now() - started;
      const result: HookResult = timedOut
        ? {
            ...base,
            outcome: "timeout",
            exit: code,
            signal,
            durationMs,
            message: `stage hook "${label}" (${event}) timed out after ${timeout / 1000} s`,
          }
        : code === 0
          ? { ...base, outcome: "ok", exit: 0, signal: null, durationMs, message: null }
          : {
              ...base,
              outcome: "failed",
              exit: code,
              signal,
              durationMs,
              message: `stage hook "${label}" (${event}) failed: ${code === null ? `killed by ${signal}` : `exit ${code}`}`,
            };
      // The rest of its output arrives with "close"; a process it left in the background may hold the
      // pipes open, so kanon waits only briefly for it (and leaves that process alone).
      const grace = setTimeout(() => {
        if (killer) clearTimeout(killer);
        child.stdout.destroy();
        child.stderr.destroy();
        done(result);
      }, 200);
      child.on("close", () => {
        clearTimeout(grace);
        if (killer) clearTimeout(killer);
        done(result);
      });
    });
  });
}

function logEvent(files: ProjectFiles, fire: Fire, r: HookResult): void {
  const line = {
    at: new Date().toISOString(),
    event: r.on,
    kind: fire.kind,
    edge: fire.edge,
    name: fire.stage,
    index: fire.index,
    total: fire.total,
    path: fire.path,
    hook: r.hook,
    outcome: r.outcome,
    exit: r.exit,
    signal: r.signal,
    durationMs: r.durationMs,
    onFailure: r.onFailure,
  };
  mkdirSync(files.dir, { recursive: true });
  withLock(files.eventsLock, () => appendFileSync(files.events, `${JSON.stringify(line)}\n`));
}
