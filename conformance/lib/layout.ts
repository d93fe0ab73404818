// Fresh, isolated folders and environments for one agent and scope.

import { cpSync, mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import type { Layout } from "../drivers/types.js";
import { runProcess } from "./proc.js";

export async function createLayout(root: string, conformanceHome: string): Promise<Layout> {
  mkdirSync(root, { recursive: true });
  const base = realpathSync(root);
  const home = join(base, "home");
  const layout: Layout = {
    root: base,
    home,
    xdgConfig: join(home, ".config"),
    xdgData: join(home, ".local", "share"),
    xdgCache: join(home, ".cache"),
    xdgState: join(home, ".local", "state"),
    project: join(base, "project"),
    tmp: join(base, "tmp"),
    kanonHome: join(base, "kanon-home"),
    hooksDir: join(base, "kanon-home", "hooks"),
  };
  for (const dir of [
    layout.xdgConfig,
    layout.xdgData,
    layout.xdgCache,
    layout.xdgState,
    layout.project,
    layout.tmp,
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  cpSync(conformanceHome, layout.kanonHome, { recursive: true });
  // Agents look for the project root by walking up to `.git`: give them one right here.
  const git = await runProcess(["git", "init", "-q", layout.project], {
    cwd: layout.project,
    env: baseEnv(layout),
    timeoutMs: 30_000,
  });
  if (git.code !== 0) throw new Error(`git init failed: ${git.stderr}`);
  return layout;
}

/**
 * The allow-listed environment every process of a scenario gets: no variable of the real environment
 * except PATH, so no real credential, config folder or home can leak in.
 */
export function baseEnv(layout: Layout, proxyUrl?: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: layout.home,
    XDG_CONFIG_HOME: layout.xdgConfig,
    XDG_DATA_HOME: layout.xdgData,
    XDG_CACHE_HOME: layout.xdgCache,
    XDG_STATE_HOME: layout.xdgState,
    TMPDIR: layout.tmp,
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    CI: "true",
    GIT_CONFIG_NOSYSTEM: "1",
    KANON_CONFORMANCE_HOOKS: layout.hooksDir,
  };
  if (proxyUrl) {
    // Anything that tries to leave 127.0.0.1 goes through the fake model's egress sink and is refused.
    for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) {
      env[name] = proxyUrl;
      env[name.toLowerCase()] = proxyUrl;
    }
    env.NO_PROXY = "127.0.0.1,localhost";
    env.no_proxy = "127.0.0.1,localhost";
  }
  return env;
}
