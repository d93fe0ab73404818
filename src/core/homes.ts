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
 * Whether a path is a place kanon renders a file of this agent: one of its files (instructions, MCP,
 * hooks, each alternative name), a file in a skill folder under its skill root, or a command or
 * subagent file (`<name><extension>`) in its folder for them, where the scope puts
 * them, or where the agent's home variable (CODEX_HOME…) would put them when set to any folder (a
 * file written with the variable set is removed once it is unset). The ownership record may name only
 * such paths: a hand-edited or damaged one cannot make kanon write or delete anywhere else. Made once
 * per agent and scope, then asked for each of the record's (thousands of) paths.
 */
export function agentDestinations(m: AgentManifest, scope: Scope): (path: string) => boolean {
  const places = (p: ScopedPath): { here: string | null; suffix: string | null } => {
    const here = agentPath(m, p, scope);
    if (here === null || scope.kind !== "user" || !m.home) return { here, suffix: null };
    const moved = agentPath(m, p, { ...scope, homes: { ...scope.homes, [m.home.name]: ANY_DIR } });
    // The part below the variable's folder (`/AGENTS.md`), when the path moves with it.
    return { here, suffix: moved?.startsWith(ANY_DIR) ? moved.slice(ANY_DIR.length) : null };
  };
  const files = [m.instructions, m.mcp.file, ...(m.mcp.alternatives ?? []), m.hooks.file].map(places);
  const exact = new Set(files.map((f) => f.here).filter((h): h is string => h !== null));
  const suffixes = files.map((f) => f.suffix).filter((x): x is string => x !== null);
  const skills = places(m.skills.root);
  const safe = new Map<string, boolean>();
  const isSafe = (name: string) => {
    let ok = safe.get(name);
    if (ok === undefined) {
      ok = segmentProblem(name) === null;
      safe.set(name, ok);
    }
    return ok;
  };
  /** `rest` (what follows a skill root and `/`) is `<safe folder name>/<at least one more segment>`. */
  const inSkill = (rest: string) => {
    const slash = rest.indexOf("/");
    return slash > 0 && slash < rest.length - 1 && isSafe(rest.slice(0, slash));
  };
  /** Folders of one file per item (commands, subagents): `rest` is `<safe name><extension>`. */
  const itemFolders = [m.commands, m.subagents].flatMap((caps) =>
    "lacks" in caps
      ? []
      : [
          {
            ...places(caps.root),
            holds: (rest: string) =>
              rest.endsWith(caps.extension) &&
              !rest.includes("/") &&
              rest.length > caps.extension.length &&
              isSafe(rest.slice(0, -caps.extension.length)),
          },
        ],
  );
  // Made once: the record's paths are asked about by the thousand.
  const folders = [{ ...skills, holds: inSkill }, ...itemFolders].map((f) => ({
    ...f,
    prefix: f.here === null ? null : `${f.here}/`,
    marker: f.suffix === null ? null : `${f.suffix}/`,
  }));
  return (path) => {
    if (!isNormalAbsolute(path)) return false;
    if (exact.has(path)) return true;
    if (suffixes.some((x) => path.endsWith(x) && path.length > x.length + 1)) return true;
    return folders.some((f) => inFolder(path, f));
  };
}

/**
 * Whether `path` is a file `holds` accepts in the folder `here`, or in the folder `<any folder><suffix>`
 * where the agent's home variable may move it (wherever the suffix stands in the path).
 */
function inFolder(
  path: string,
  f: { prefix: string | null; marker: string | null; holds: (rest: string) => boolean },
): boolean {
  if (f.prefix !== null && path.startsWith(f.prefix) && f.holds(path.slice(f.prefix.length))) return true;
  const marker = f.marker;
  if (marker === null) return false;
  for (let at = path.indexOf(marker, 1); at > 0; at = path.indexOf(marker, at + 1))
    if (f.holds(path.slice(at + marker.length))) return true;
  return false;
}

/** `/a/b` as path.resolve would leave it: absolute, no `//`, `.` or `..` segment, no final `/`, no NUL. */
function isNormalAbsolute(path: string): boolean {
  return (
    path.startsWith("/") &&
    !path.includes("\u0000") &&
    !/\/\/|\/\.\.?(?:\/|$)/.test(path) &&
    (path === "/" || !path.endsWith("/"))
  );
}
