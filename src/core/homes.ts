/**
 * Where an agent's files are: the one resolver from manifest paths to real paths. A user-scope path
 * under the agent's home (`.codex/config.toml`) moves when the home's variable is set (CODEX_HOME),
 * as the agent itself moves it; project paths never move.
 */
import { isAbsolute, join, resolve } from "node:path";
import type { AgentManifest, ScopedPath } from "../model/manifest.js";
import type { Scope } from "../model/types.js";

export interface Homes {
  /** Variable name → absolute directory, for the variables that are set (see Scope.homes). */
  homes: Record<string, string>;
  /** One line per relative value: kanon resolves it from its own working directory. */
  warnings: string[];
}

/**
 * The home variables of these manifests that `env` sets. Like every agent, an empty value is unset;
 * a relative one is taken from the current directory, as the agent takes it from the one it runs in.
 * `realPath` (the edge's realpath, null when the folder does not exist) serves the agents that
 * resolve symlinks in the value.
 */
export function agentHomes(
  manifests: readonly AgentManifest[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  realPath: (dir: string) => string | null = () => null,
): Homes {
  const homes: Record<string, string> = {};
  const warnings: string[] = [];
  for (const m of manifests) {
    if (!m.home || Object.hasOwn(homes, m.home.name)) continue;
    const value = Object.hasOwn(env, m.home.name) ? env[m.home.name] : undefined;
    if (value === "" && m.home.emptyReads)
      warnings.push(
        `${m.home.name} is set but empty: kanon takes it as unset, while ${m.displayName} reads ${m.home.emptyReads.join(" and ")} from the directory it runs in`,
      );
    if (!value) continue;
    const dir = resolve(cwd, value);
    homes[m.home.name] = (m.home.realPath ? realPath(dir) : null) ?? dir;
    if (!isAbsolute(value))
      warnings.push(
        `${m.home.name} is a relative path (${value}): kanon uses ${dir}, while ${m.displayName} resolves it from the directory it runs in`,
      );
  }
  return { homes, warnings };
}

/** A user-scope path of the agent (relative to the user's home) as an absolute path, where the agent reads it. */
export function userPath(m: AgentManifest, rel: string, scope: Scope): string {
  const home = m.home;
  const dir = home ? scope.homes?.[home.name] : undefined;
  if (!home || dir === undefined) return join(scope.userHome, rel);
  const moved = home.alsoMoves?.[rel];
  if (moved !== undefined) return join(dir, moved);
  if (home.replaces === "") return join(dir, rel);
  if (rel === home.replaces) return dir;
  if (rel.startsWith(`${home.replaces}/`)) return join(dir, rel.slice(home.replaces.length + 1));
  return join(scope.userHome, rel);
}

/** Where a manifest path of the agent lands in this scope (its home, moved or not, or the project); null if nowhere. */
export function agentPath(m: AgentManifest, p: ScopedPath, scope: Scope): string | null {
  const rel = p[scope.kind];
  if (rel === null) return null;
  return scope.kind === "user" ? userPath(m, rel, scope) : join(scope.dir, rel);
}
