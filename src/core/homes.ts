/**
 * Where an agent's files are: the one resolver from manifest paths to real paths. A user-scope path
 * under the agent's home (`.codex/config.toml`) moves when the home's variable is set (CODEX_HOME),
 * as the agent itself moves it; project paths never move.
 */
import { isAbsolute, join, resolve } from "node:path";
import type { AgentManifest, ScopedPath } from "../model/manifest.js";
import type { Scope } from "../model/types.js";
import { segmentProblem } from "./names.js";

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

/** Stands for "any folder" where an agent's home variable may point (a NUL is in no real path). */
const ANY_DIR = "/\u0000";

/**
 * Whether `path` is a place kanon renders a file of this agent: one of its files (instructions, MCP,
 * hooks, each alternative name) or a file in a skill folder under its skill root, where the scope puts
 * them, or where the agent's home variable (CODEX_HOME…) would put them when set to any folder (a
 * file written with the variable set is removed once it is unset). The ownership record may name only
 * such paths: a hand-edited or damaged one cannot make kanon write or delete anywhere else.
 */
export function isAgentDestination(m: AgentManifest, path: string, scope: Scope): boolean {
  if (!isAbsolute(path) || resolve(path) !== path || path.includes("\u0000")) return false;
  const files = [m.instructions, m.mcp.file, ...(m.mcp.alternatives ?? []), m.hooks.file];
  const places = (p: ScopedPath): string[] => {
    const here = agentPath(m, p, scope);
    if (here === null) return [];
    if (scope.kind !== "user" || !m.home) return [here];
    const moved = agentPath(m, p, { ...scope, homes: { ...scope.homes, [m.home.name]: ANY_DIR } });
    return moved === null || moved === here ? [here] : [here, moved];
  };
  const matches = (place: string, candidate: string): boolean => {
    if (!place.startsWith(ANY_DIR)) return candidate === place;
    const suffix = place.slice(ANY_DIR.length);
    return candidate.endsWith(suffix) && candidate.length > suffix.length + 1;
  };
  if (files.some((f) => places(f).some((place) => matches(place, path)))) return true;
  // A skill file: <root>/<one safe folder name>/<at least one more segment>.
  return places(m.skills.root).some((root) => {
    const parts = path.split("/");
    for (let i = parts.length - 2; i >= 1; i--) {
      const dir = parts.slice(0, i).join("/");
      if (matches(root, dir) && segmentProblem(parts[i]!) === null) return true;
    }
    return false;
  });
}
