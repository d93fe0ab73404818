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
import { compareWithHome, type SkillAgainstHome } from "./home.js";
import type { HomeFile, Imported } from "./read.js";
import { applyEdits, type EntryKind, type MergeEdit, mergeEdits } from "./yaml.js";

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

export async function importPlan(state: HomeState, imported: Imported): Promise<ImportPlan> {
  const existing = state.existing?.config ?? normalizeConfig({});
  const text = state.existing?.text ?? EMPTY_HOME;
  const compared = await compareWithHome(state.home, existing, imported);
  const { edits } = mergeEdits({
    existing,
    imported: imported.config,
    instructions: compared.instructions.map((i) => i.entry),
    skills: compared.skills,
    force: true,
  });
  const configBefore = state.existing ? readBounded(state.config, { limit: READ_LIMIT.home }).bytes : null;
  const configMode = state.existing ? statSync(state.config).mode & 0o7777 : null;
  const configWrite = (unitEdits: readonly MergeEdit[]): HomeWrite[] =>
    unitEdits.length === 0
      ? []
      : [
          {
            path: state.config,
            action: configBefore ? "update" : "create",
            before: configBefore,
            after: Buffer.from(applyEdits(text, unitEdits), "utf8"),
            mode: configMode ?? 0o644,
            beforeMode: configMode,
          },
        ];
  const byEntry = new Map<string, MergeEdit[]>();
  for (const e of edits) {
    const key = `${e.kind}\0${e.name}`;
    byEntry.set(key, [...(byEntry.get(key) ?? []), e]);
  }
  const editsOf = (kind: EntryKind, name: string) => byEntry.get(`${kind}\0${name}`) ?? [];
  const agentOf = (targets: string[] | undefined) => (targets?.length === 1 ? targets[0]! : "all");

  const units: ImportUnit[] = [];
  const unit = (
    u: Omit<ImportUnit, "writes" | "basis">,
    unitEdits: MergeEdit[],
    files: HomeWrite[],
  ): void => {
    if (unitEdits.length === 0 && files.length === 0) return;
    let cached: HomeWrite[] | undefined;
    units.push({
      ...u,
      writes: () => (cached ??= [...configWrite(unitEdits), ...files]),
      basis: [
        configBefore,
        JSON.stringify(unitEdits.map((e) => [e.change, e.value])),
        ...files.flatMap((f) => [f.path, f.before, f.after, f.mode]),
      ],
    });
  };

  for (const { entry, file } of compared.instructions) {
    const targets = typeof entry === "string" ? undefined : entry.targets;
    unit(
      {
        path: join(state.home, file.rel),
        kind: "instructions",
        name: file.rel,
        agent: agentOf(targets),
        action: "create",
      },
      editsOf("instructions", file.rel),
      fileWrites(state.home, [file]),
    );
  }
  for (const sk of compared.skills) {
    unit(
      {
        path: join(state.home, "skills", sk.name, "SKILL.md"),
        kind: "skill",
        name: sk.name,
        agent: agentOf(sk.targets),
        action: sk.home === "missing" ? "create" : "update",
        ...(sk.home === "differs" ? { replaces: `replaces the different files in skills/${sk.name}/` } : {}),
      },
      editsOf("skill", sk.name),
      sk.home === "same" ? [] : skillWrites(state.home, sk),
    );
  }
  for (const e of edits.filter((x) => x.kind === "provider")) {
    unit(
      {
        path: `${state.config}#skills.git.${e.name}`,
        kind: "provider",
        name: e.name,
        agent: agentOf((e.value as string[] | null) ?? undefined),
        action: "update",
      },
      [e],
      [],
    );
  }
  for (const name of Object.keys(imported.config.mcp.servers)) {
    const e = editsOf("mcp", name);
    unit(
      {
        path: `${state.config}#mcp.servers.${name}`,
        kind: "mcp",
        name,
        agent: agentOf(imported.config.mcp.servers[name]!.targets),
        action: e.some((x) => x.replaces) ? "update" : "create",
        ...(e.some((x) => x.replaces)
          ? { replaces: `replaces the different mcp server "${name}" in kanon.yaml` }
          : {}),
      },
      e,
      [],
    );
  }
  for (const h of imported.config.hooks) {
    const e = editsOf("hook", h.name);
    unit(
      {
        path: `${state.config}#hooks.${h.name}`,
        kind: "hook",
        name: h.name,
        agent: agentOf(h.targets),
        action: e.some((x) => x.replaces) ? "update" : "create",
        ...(e.some((x) => x.replaces)
          ? { replaces: `replaces the different hook "${h.name}" in kanon.yaml` }
          : {}),
      },
      e,
      [],
    );
  }
  units.sort((a, b) => compareBytes(a.path, b.path));

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
      return [...configWrite(edits.filter((e) => chosen.has(e))), ...files];
    },
  };
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
