/** Running the built `kanon` binary in a temporary HOME, as a user would. */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const KANON = join(ROOT, "dist/kanon.js");

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

export interface Sandbox {
  /** The temporary user home ($HOME). */
  home: string;
  /** A directory for Kanon homes and projects, outside $HOME. */
  work: string;
  /** `env` values override the sandbox's; `undefined` removes a variable. */
  run(
    args: string[],
    options?: { input?: string; env?: Record<string, string | undefined>; cwd?: string },
  ): Run;
  cleanup(): void;
}

/** The environment of a sandboxed run: its own HOME, no system git config, a git identity. */
export function sandboxEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "kanon test",
    GIT_AUTHOR_EMAIL: "test@example.invalid",
    GIT_COMMITTER_NAME: "kanon test",
    GIT_COMMITTER_EMAIL: "test@example.invalid",
  };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function sandbox(): Sandbox {
  const base = mkdtempSync(join(tmpdir(), "kanon-cli-"));
  const home = join(base, "home");
  const work = join(base, "work");
  mkdirSync(home);
  mkdirSync(work);
  return {
    home,
    work,
    run(args, options = {}) {
      const r = spawnSync(process.execPath, [KANON, ...args], {
        cwd: options.cwd ?? work,
        input: options.input ?? "",
        encoding: "utf8",
        env: sandboxEnv(home, options.env),
      });
      return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
    },
    cleanup() {
      rmSync(base, { recursive: true, force: true });
    },
  };
}
