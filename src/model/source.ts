/**
 * The source state as loaded into memory: everything rendering needs, so that rendering is a pure
 * function of a `Source` (loading lives in src/source/ and src/providers/).
 */
import type { KanonConfig } from "./config.js";

export interface Paths {
  /** The Kanon home (source state). */
  home: string;
  /** kanon.yaml (or --config). */
  config: string;
  /** The user's home directory (destinations of user scope). */
  userHome: string;
}

export interface TreeFile {
  /** Path relative to the tree root, `/`-separated. */
  rel: string;
  content: Uint8Array;
  /** Permission bits (e.g. 0o755 for an executable script). */
  mode: number;
}

export interface ProviderSkills {
  name: string;
  entryIndex: number;
  targets: string[] | undefined;
  /** The selected children in render order, every file read (SKILL.md untouched). */
  children: { name: string; files: TreeFile[] }[];
}

export interface LocalSkill {
  /** Render name: the directory name under skills/, or the config entry's name. */
  name: string;
  targets: string[] | undefined;
  files: TreeFile[];
}

export interface Source {
  paths: Paths;
  config: KanonConfig;
  /** Joined instructions, or null when there are none. */
  instructions: string | null;
  localSkills: LocalSkill[];
  providers: ProviderSkills[];
  /**
   * Rewrites a provider skill's SKILL.md `name:` (a pure function; present when there are providers,
   * so the YAML parser it needs is loaded only then).
   */
  renameSkillMd: ((skillMd: Uint8Array, renderName: string) => Uint8Array) | null;
}
