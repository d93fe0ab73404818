/** Finding the Kanon home and reading kanon.yaml into a typed `KanonConfig`. */
import { dirname, isAbsolute, join, resolve } from "node:path";
import { NEUTRAL_EVENTS } from "../core/hooks/vocabulary.js";
import { decodeBytes, ESCAPED_BYTE } from "../formats/utf8.js";
import { READ_LIMIT, ReadRefused, readBounded } from "../model/bounded-read.js";
import type { HookEntry, KanonConfig, McpServer, SkillEntry } from "../model/config.js";
import type { Paths } from "../model/source.js";
import { conflictMarkerLine } from "../model/text.js";
import { KanonError } from "../model/types.js";
import { kanonSchema, type Schema } from "./schema.js";
import { cachedDecode } from "./yaml-cache.js";

/** `~` and `~/…` expand to the user's home. */
export function expandTilde(p: string, userHome: string): string {
  if (p === "~") return userHome;
  if (p.startsWith("~/")) return join(userHome, p.slice(2));
  return p;
}

/** Home: --home, else $KANON_HOME, else ~/.config/kanon; made absolute (the Go original left KANON_HOME relative). */
export function resolvePaths(
  flags: { home?: string; config?: string },
  env: NodeJS.ProcessEnv,
  userHome: string,
  cwd: string,
): Paths {
  const raw = flags.home || env.KANON_HOME || join(userHome, ".config", "kanon");
  const home = resolve(cwd, expandTilde(raw, userHome));
  const config = flags.config ? resolve(cwd, expandTilde(flags.config, userHome)) : join(home, "kanon.yaml");
  return { home, config, userHome };
}

/** The Go original's ResolvePath: `~` expands, absolute paths are kept, others join the home. */
export function resolveHomePath(p: string, home: string, userHome: string): string {
  const expanded = expandTilde(p, userHome);
  return isAbsolute(expanded) ? resolve(expanded) : join(home, expanded);
}

export interface LoadedConfig {
  paths: Paths;
  config: KanonConfig;
  warnings: string[];
  /** The text of kanon.yaml and the name messages give it (`kanon.yaml`, or the --config path). */
  text: string;
  label: string;
}

/** A file of the home with an unresolved merge conflict at `where` (`kanon.yaml:12`). */
export function conflictError(where: string): KanonError {
  return new KanonError(
    `${where}: unresolved merge conflict (<<<<<<< … >>>>>>>): keep the version you want, delete the marker lines and commit, then run kanon again; nothing was written`,
  );
}

/** The config file does not exist (status treats this as "nothing to report"). */
export class ConfigMissingError extends KanonError {}

let cachedSchema: Schema | undefined;
function configSchema(agentIds: readonly string[]): Schema {
  cachedSchema ??= kanonSchema(
    [...agentIds],
    NEUTRAL_EVENTS.map((e) => e.name),
  );
  return cachedSchema;
}

/**
 * kanon.yaml read, decoded and normalized. `cacheDir`: where the decode of kanon.yaml is kept
 * between runs (yaml-cache.ts); without it, every run decodes.
 */
export async function loadConfig(
  paths: Paths,
  agentIds: readonly string[],
  options: { cacheDir?: string } = {},
): Promise<LoadedConfig> {
  let bytes: Buffer;
  try {
    bytes = readBounded(paths.config, { limit: READ_LIMIT.home }).bytes;
  } catch (e) {
    if (e instanceof ReadRefused) {
      if (e.reason.startsWith("is a directory")) throw new KanonError(`read ${paths.config}: is a directory`);
      throw new KanonError(`read ${e.message}`);
    }
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ENOENT") {
      throw new ConfigMissingError(
        `open ${paths.config}: no such file or directory (run "kanon init" to create a Kanon home, or pass --home)`,
      );
    }
    if (err.code === "EISDIR") throw new KanonError(`read ${paths.config}: is a directory`);
    if (err.code === "ENOTDIR") {
      throw new KanonError(
        `open ${paths.config}: ${dirname(paths.config)} is a file, not a Kanon home directory`,
      );
    }
    throw new KanonError(`open ${paths.config}: ${err.message}`);
  }
  const label = paths.config === join(paths.home, "kanon.yaml") ? "kanon.yaml" : paths.config;
  const text = decodeBytes(bytes);
  const invalid = text.search(ESCAPED_BYTE);
  if (invalid >= 0) {
    const before = text.slice(0, invalid).split("\n");
    const byte = text.charCodeAt(invalid) - 0xdc00;
    throw new KanonError(
      `${label}:${before.length}:${before.at(-1)!.length + 1}: byte 0x${byte.toString(16).toUpperCase()} is not valid UTF-8; save ${label} as UTF-8`,
    );
  }
  const conflict = conflictMarkerLine(text);
  if (conflict !== null) throw conflictError(`${label}:${conflict}`);
  // The YAML library is loaded only for a text the cache does not hold: a small diff of the example
  // home, 208 M -> 204 M instructions (Node 20.20, valgrind, medians of 7 interleaved runs).
  const decoded = await cachedDecode(text, { config: paths.config, label }, options.cacheDir, async () =>
    (await import("./decode.js")).decodeYaml(text, label, configSchema(agentIds)),
  );
  if (decoded.errors.length > 0) throw new KanonError(decoded.errors.join("\n"));
  return {
    paths,
    config: normalizeConfig((decoded.value ?? {}) as Partial<KanonConfig>),
    warnings: decoded.warnings,
    text,
    label,
  };
}

/**
 * Missing lists are empty. A missing version stays 0 and fails validation (`unsupported version 0`):
 * the Go original took it as 1, so an empty or unrelated YAML file passed as a Kanon home.
 */
export function normalizeConfig(raw: Partial<KanonConfig>): KanonConfig {
  return {
    version: raw.version ?? 0,
    ...(raw.agents ? { agents: raw.agents.map((a) => a ?? "") } : {}),
    instructions: { files: raw.instructions?.files ?? [] },
    skills: (raw.skills ?? []).map((s) => s ?? ({} as SkillEntry)),
    mcp: { servers: (raw.mcp?.servers ?? {}) as Record<string, McpServer> },
    hooks: (raw.hooks ?? []).map((h) => ({ ...(h ?? {}), name: h?.name ?? "" }) as HookEntry),
    ...(raw.commands ? { commands: raw.commands.map((e) => e ?? {}) } : {}),
    ...(raw.subagents ? { subagents: raw.subagents.map((e) => e ?? {}) } : {}),
    ...(raw.hooks_envelope ? { hooks_envelope: raw.hooks_envelope } : {}),
    ...(raw.continuity ? { continuity: raw.continuity } : {}),
    ...(raw.stages ? { stages: raw.stages } : {}),
    ...(raw.stage_hooks ? { stage_hooks: raw.stage_hooks.map((h) => h ?? {}) } : {}),
    metadata: raw.metadata ?? {},
  };
}
