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

/** What every command and subagent of the home has, as loaded from its file. */
interface ItemBase {
  name: string;
  /** The file as messages name it: relative to the home (`commands/review.md`), or as kanon.yaml writes it. */
  file: string;
  /** The agents it is for (kanon.yaml's entry, else the front matter); undefined: every agent. */
  targets: string[] | undefined;
  /**
   * Where each front-matter field is written, and `file` (its first line), as message prefixes
   * (`commands/review.md:4:1: `); `targets` may point into kanon.yaml (`kanon.yaml:12:5: `).
   */
  at: Readonly<Record<string, string>> & { file: string };
  description?: string;
  /** The prompt (a command's) or the system prompt (a subagent's), as written after the front matter. */
  body: string;
  /** The line of the file where the body starts, for messages about it. */
  bodyLine: number;
}

/** A slash command: `commands/<name>.md`. */
export interface CommandItem extends ItemBase {
  kind: "command";
  argumentHint?: string;
}

/** A subagent: `agents/<name>.md`. */
export interface SubagentItem extends ItemBase {
  kind: "subagent";
  /** Neutral (Claude Code) tool names. */
  tools?: string[];
  /** One model name for every agent, or one per agent id (an agent missing there gets none). */
  model?: string | Readonly<Record<string, string>>;
}

export type Item = CommandItem | SubagentItem;

export interface InstructionText {
  text: string;
  targets: string[] | undefined;
}

export interface Source {
  paths: Paths;
  config: KanonConfig;
  /** Instruction texts in kanon.yaml order, each with the agents it is for (undefined: every agent). */
  instructions: InstructionText[];
  localSkills: LocalSkill[];
  providers: ProviderSkills[];
  /**
   * Rewrites a provider skill's SKILL.md `name:` (a pure function; present when there are providers,
   * so the YAML parser it needs is loaded only then).
   */
  renameSkillMd: ((skillMd: Uint8Array, renderName: string) => Uint8Array) | null;
}
