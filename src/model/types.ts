/**
 * Shared vocabulary of the pipeline: source state (the Kanon home) → target state (TargetFile[]) →
 * destination state (files on disk). Nothing here does I/O.
 */

/** An agent's id as it appears in `targets:` and `--agent` (registered in src/agents/index.ts). */
export type AgentId = string;

/**
 * `homes`: the directories that the agents' home variables (CODEX_HOME, …) name in this run, absolute,
 * by variable name; a variable missing here is unset (core/homes.ts).
 */
export type Scope = (
  | { kind: "user"; userHome: string }
  | { kind: "project"; userHome: string; dir: string }
) & { homes?: Readonly<Record<string, string>> };

/**
 * How a co-owned destination file is merged. The rendered `content` is what a fresh file would hold;
 * when the destination already exists, only `managed` changes inside it and every other byte stays.
 */
export type MergeSpec =
  | {
      /** Entries under `key` are kanon's by name: each one given in `managed[key]` replaces its namesake. */
      kind: "entries";
      format: "json" | "jsonc" | "toml";
      key: string;
    }
  | {
      /** The whole value of `key` is kanon's. */
      kind: "value";
      format: "json" | "jsonc" | "toml";
      key: string;
    }
  | {
      /**
       * A Claude-shaped hook document under `key` (`{ "<Event>": [{ matcher?, hooks: [handler] }] }`)
       * shared with the user: kanon's groups are those whose handlers are all named `namePrefix…`.
       * They are replaced; the user's groups stay, and kanon's come after them in each event.
       */
      kind: "hook-groups";
      format: "json" | "jsonc";
      key: string;
      namePrefix: string;
    }
  | {
      /**
       * A TOML array of tables `[[key]]` shared with the user (Kimi Code `[[hooks]]`): kanon's tables
       * are those whose header line ends with the comment `# <marker>: <label>`. They are replaced
       * where the first of them was (else appended); the user's tables and comments stay.
       */
      kind: "tables";
      format: "toml";
      key: string;
      marker: string;
      /** One label per managed table (the hook name), written in its header comment. */
      labels: string[];
    }
  | {
      /** Several of the above in one file (Gemini settings.json: `mcpServers` entries and `hooks`). */
      kind: "regions";
      format: "json" | "jsonc" | "toml";
      regions: Exclude<MergeSpec, { kind: "regions" }>[];
    }
  | {
      /**
       * `key` holds a Claude-shaped hook document (Claude settings.json `hooks`, Codex hooks.json):
       * kanon's handlers are its own, identified by content; every other handler is the user's.
       */
      kind: "handlers";
      format: "json" | "jsonc";
      key: string;
    };

export interface TargetFile {
  agent: AgentId;
  /** Absolute destination path. */
  path: string;
  content: Uint8Array;
  /** Permission bits for a new file (an existing file keeps its own mode). */
  mode: number;
  /** Absent: kanon owns the whole file and replaces it. */
  merge?: MergeSpec;
  /** For merged files: the managed document, e.g. `{ mcpServers: { github: {...} } }`. */
  managed?: Record<string, unknown>;
  /**
   * For an `entries` merge, by its key: members of each entry that the agent assumes when they are
   * absent, with the value it assumes (the manifest's `mcp.implied`).
   */
  implied?: Record<string, Record<string, string>>;
  /**
   * Other paths that hold the same co-owned document (e.g. opencode.jsonc for opencode.json): the
   * first one of `[path, ...alternatives]` that exists is merged; a new file is created at `path`.
   */
  alternatives?: string[];
  /** Fixed text that the diff of a new file summarises in one line each (see ElidedLines). */
  elided?: ElidedLines[];
  /**
   * The other agents that render this same file (project AGENTS.md for Codex, OpenCode and Kimi):
   * the ownership record keeps it until none of them renders it.
   */
  sharedWith?: AgentId[];
}

/**
 * Lines [from, to) (0-based) of generated text that is the same for every home, e.g. the runtime
 * of OpenCode's hook plugin: showing a new file, the diff says `what` instead of printing them.
 */
export interface ElidedLines {
  from: number;
  to: number;
  what: string;
}

/** One error line for the user; `KanonError`s are printed without a stack trace and exit 1. */
export class KanonError extends Error {
  override name = "KanonError";
}
