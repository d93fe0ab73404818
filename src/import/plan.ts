/**
 * The import plan that `kanon ui` reviews in import mode (reference §5.8.7): what `kanon import`
 * found, as units — an instruction file, a skill, an MCP server, a hook — each with the change it
 * alone would make to the Kanon home (kanon.yaml edited in place as `import --merge` does, keeping
 * its comments and layout, plus the files the unit writes), so that only the selected ones are
 * written. Entries the home already has are no units at all.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { type Change, symlinkTarget } from "../destination/plan.js";
import { READ_LIMIT, readBounded } from "../model/bounded-read.js";
import type { KanonConfig } from "../model/config.js";
import { compareBytes } from "../model/text.js";
import { normalizeConfig } from "../source/load.js";
import { compareWithHome, type HomeComparison, type SkillAgainstHome } from "./home.js";
import type { HomeFile, Imported } from "./read.js";
import { applyEdits, type EntryKind, type MergeEdit, mergeEdits, readableHome } from "./yaml.js";

/** One file the import writes into the home (or deletes from it), as the diff pane shows it. */
export type HomeWrite = Pick<Change, "path" | "action" | "before" | "after" | "mode" | "beforeMode">;

/** Values a unit's writes are made from: equal bases write equal bytes. */
export type Basis = Uint8Array | string | number | null;

export interface ImportUnit {
  /**
   * The row's identity: `<home>/instructions/<file>`, `<home>/skills/<name>/SKILL.md`,
   * `<kanon.yaml>#skills.git.<provider>`, `<kanon.yaml>#mcp.servers.<name>` or `<kanon.yaml>#hooks.<name>`.
   */
  path: string;
  kind: EntryKind;
  name: string;
  /** Its one target agent, or "all" (no targets, or several). */
  agent: string;
  action: "create" | "update";
  /** What different thing of the home's it replaces (shown above its diff). */
  replaces?: string;
  /** Its writes, kanon.yaml as this unit alone would leave it first (computed when first asked). */
  writes(): HomeWrite[];
  basis: Basis[];
}

export interface ImportPlan {
  units: ImportUnit[];
  /** The writes of `units` together: kanon.yaml edited once, then their files in path order. */
  writes(units: readonly ImportUnit[]): HomeWrite[];
}

export interface HomeState {
  home: string;
  config: string;
  /** kanon.yaml as loaded, or null when the home has none yet. */
  existing: { text: string; config: KanonConfig } | null;
}

/** kanon.yaml of a home that has none: what the units are added to. */
const EMPTY_HOME = "version: 1\n";

/** A unit before it is bound to kanon.yaml: its row, its edits of kanon.yaml and its files. */
interface UnitParts {
  row: Omit<ImportUnit, "writes" | "basis">;
  edits: MergeEdit[];
  files: HomeWrite[];
}

/** The edits of one entry (an entry's edits all belong to its unit). */
type EditsOf = (kind: EntryKind, name: string) => MergeEdit[];

/**
 * The units of an import against the home: what `import --merge --force` would do, cut into units
 * (instruction files, skills, skill providers, servers, hooks) that can each be chosen alone, in
 * path order. Entries the home already has make no unit.
 */
export async function importPlan(state: HomeState, imported: Imported): Promise<ImportPlan> {
  const existing = state.existing?.config ?? normalizeConfig({});
  const compared = await compareWithHome(state.home, existing, imported);
  const { edits } = mergeEdits({
    existing,
    imported: imported.config,
    instructions: compared.instructions.map((i) => i.entry),
    skills: compared.skills,
    items: compared.items,
    force: true,
  });
  const config = configWriter(state);
  const editsOf = editsByEntry(edits);
  const units = [
    ...fileUnits(state.home, compared, editsOf),
    ...configUnits(state.config, imported.config, edits, editsOf),
  ]
    .filter((parts) => parts.edits.length > 0 || parts.files.length > 0)
    .map((parts) => importUnit(parts, config))
    .sort((a, b) => compareBytes(a.path, b.path));

  const editsByUnit = new Map(units.map((u) => [u, editsOf(u.kind, u.name)]));
  return {
    units,
    writes(selected) {
      const chosen = new Set(selected.flatMap((u) => editsByUnit.get(u) ?? []));
      const files = selected
        .flatMap((u) => u.writes())
        .filter((w) => w.path !== state.config)
        .sort((a, b) => compareBytes(a.path, b.path));
      // In the import's own order (instructions, skills, servers, hooks), not the rows'.
      return [...config.write(edits.filter((e) => chosen.has(e))), ...files];
    },
  };
}

/** kanon.yaml as it is now, and its write once some edits are made (no write for none). */
function configWriter(state: HomeState) {
  const text = state.existing?.text ?? EMPTY_HOME;
  const before = state.existing ? readBounded(state.config, { limit: READ_LIMIT.home }).bytes : null;
  const mode = state.existing ? statSync(state.config).mode & 0o7777 : null;
  const write = (edits: readonly MergeEdit[]): HomeWrite[] =>
    edits.length === 0
      ? []
      : [
          {
            path: state.config,
            action: before ? "update" : "create",
            before,
            after: Buffer.from(readableHome(applyEdits(text, edits), state.config), "utf8"),
            mode: mode ?? 0o644,
            beforeMode: mode,
          },
        ];
  return { before, write };
}

function editsByEntry(edits: readonly MergeEdit[]): EditsOf {
  const byEntry = new Map<string, MergeEdit[]>();
  for (const e of edits) {
    const key = `${e.kind}\0${e.name}`;
    byEntry.set(key, [...(byEntry.get(key) ?? []), e]);
  }
  return (kind, name) => byEntry.get(`${kind}\0${name}`) ?? [];
}

/** Its one target agent, or "all" (no targets, or several). */
const agentOf = (targets: string[] | undefined) => (targets?.length === 1 ? targets[0]! : "all");

/**
 * A unit whose writes are kanon.yaml with its edits alone, then its files (computed when first
 * asked); its basis holds everything those writes are made from.
 */
function importUnit(parts: UnitParts, config: ReturnType<typeof configWriter>): ImportUnit {
  let cached: HomeWrite[] | undefined;
  return {
    ...parts.row,
    writes: () => (cached ??= [...config.write(parts.edits), ...parts.files]),
    basis: [
      config.before,
      JSON.stringify(parts.edits.map((e) => [e.change, e.value])),
      ...parts.files.flatMap((f) => [f.path, f.before, f.after, f.mode]),
    ],
  };
}

/** Instruction files, skills, commands and subagents: units that write files into the home (and maybe edit kanon.yaml). */
function fileUnits(home: string, compared: HomeComparison, editsOf: EditsOf): UnitParts[] {
  const instructions = compared.instructions.map(
    ({ entry, file }): UnitParts => ({
      row: {
        path: join(home, file.rel),
        kind: "instructions",
        name: file.rel,
        agent: agentOf(typeof entry === "string" ? undefined : entry.targets),
        action: "create",
      },
      edits: editsOf("instructions", file.rel),
      files: fileWrites(home, [file]),
    }),
  );
  const skills = compared.skills.map(
    (sk): UnitParts => ({
      row: {
        path: join(home, "skills", sk.name, "SKILL.md"),
        kind: "skill",
        name: sk.name,
        agent: agentOf(sk.targets),
        action: sk.home === "missing" ? "create" : "update",
        ...(sk.home === "differs" ? { replaces: `replaces the different files in skills/${sk.name}/` } : {}),
      },
      edits: editsOf("skill", sk.name),
      files: sk.home === "same" ? [] : skillWrites(home, sk),
    }),
  );
  const items = compared.items.map(
    (item): UnitParts => ({
      row: {
        path: join(home, item.file.rel),
        kind: item.kind,
        name: item.name,
        agent: agentOf(item.targets),
        action: item.home === "missing" ? "create" : "update",
        ...(item.home === "differs" ? { replaces: `replaces the different ${item.file.rel}` } : {}),
      },
      edits: editsOf(item.kind, item.name),
      files: item.home === "same" ? [] : fileWrites(home, [item.file]),
    }),
  );
  return [...instructions, ...skills, ...items];
}

/** Skill providers, MCP servers and hooks: units that only edit kanon.yaml. */
function configUnits(
  configPath: string,
  imported: KanonConfig,
  edits: readonly MergeEdit[],
  editsOf: EditsOf,
): UnitParts[] {
  const providers = edits
    .filter((x) => x.kind === "provider")
    .map(
      (e): UnitParts => ({
        row: {
          path: `${configPath}#skills.git.${e.name}`,
          kind: "provider",
          name: e.name,
          agent: agentOf((e.value as string[] | null) ?? undefined),
          action: "update",
        },
        edits: [e],
        files: [],
      }),
    );
  // A server or hook replaces kanon.yaml's when its edit does (`--force` on a different entry).
  const entry = (
    kind: "mcp" | "hook",
    path: string,
    name: string,
    targets: string[] | undefined,
  ): UnitParts => {
    const e = editsOf(kind, name);
    const replaces = e.some((x) => x.replaces);
    const what = kind === "mcp" ? "mcp server" : "hook";
    return {
      row: {
        path: `${configPath}#${path}`,
        kind,
        name,
        agent: agentOf(targets),
        action: replaces ? "update" : "create",
        ...(replaces ? { replaces: `replaces the different ${what} "${name}" in kanon.yaml` } : {}),
      },
      edits: e,
      files: [],
    };
  };
  const servers = Object.entries(imported.mcp.servers).map(([name, s]) =>
    entry("mcp", `mcp.servers.${name}`, name, s.targets),
  );
  const hooks = imported.hooks.map((h) => entry("hook", `hooks.${h.name}`, h.name, h.targets));
  return [...providers, ...servers, ...hooks];
}

/** Writes of home files that differ from what the home has (a file already equal is no write). */
function fileWrites(home: string, files: readonly HomeFile[]): HomeWrite[] {
  const out: HomeWrite[] = [];
  for (const f of files) {
    const path = join(home, f.rel);
    const st = statSync(path, { throwIfNoEntry: false });
    const before = st?.isFile() ? readBounded(path, { limit: READ_LIMIT.home }).bytes : null;
    const beforeMode = st ? st.mode & 0o7777 : null;
    if (before?.equals(f.content) && beforeMode === f.mode) continue;
    out.push({ path, action: st ? "update" : "create", before, after: f.content, mode: f.mode, beforeMode });
  }
  return out;
}

/** A skill's files, and the removal of the home's files that the imported skill does not have. */
function skillWrites(home: string, sk: SkillAgainstHome): HomeWrite[] {
  const prefix = `skills/${sk.name}/`;
  const theirs = new Set(sk.files.map((f) => f.rel.slice(prefix.length)));
  const removed: HomeWrite[] = sk.ours
    .filter((f) => !theirs.has(f.rel))
    .map((f) => ({
      path: join(home, prefix, f.rel),
      action: "delete",
      before: f.content,
      after: null,
      mode: f.mode,
      beforeMode: f.mode,
    }));
  return [...fileWrites(home, sk.files), ...removed];
}

/**
 * A write as the staged, all-or-nothing writer takes it (the same one `kanon apply` uses); a home
 * file that is a symlink (a kanon.yaml kept in a dotfiles repository) is written at its target, so
 * it stays a link. It is written only if the home still holds `before` right before the rename: the
 * user may edit kanon.yaml between the plan and the write.
 */
export function homeChange(w: HomeWrite): Change {
  return {
    file: { agent: "kanon", path: w.path, content: w.after ?? new Uint8Array(), mode: w.mode },
    // A symlink itself is what a deletion removes, never the file it points to.
    path: w.action === "delete" ? w.path : symlinkTarget(w.path),
    action: w.action,
    before: w.before,
    after: w.after,
    mode: w.mode,
    beforeMode: w.beforeMode,
    guard: true,
  };
}
