/**
 * What the UI reviews and applies, behind one small interface per mode: `load` plans and lists the
 * changes, `apply` plans again and writes only the selected changes that are still exactly what was
 * reviewed.
 */
import { Writable } from "node:stream";
import { AGENT_IDS, AGENTS, selectAgents } from "../../agents/index.js";
import { secretRefs } from "../../core/secrets.js";
import { ChangedError, destinationDirs, removeLeftovers } from "../../destination/apply.js";
import { applyImport, applyPlan, selectChanges } from "../../destination/apply-plan.js";
import type { Change } from "../../destination/plan.js";
import { addSecrets, secretStorePath } from "../../destination/secrets.js";
import { type MachineFlags, readMachine } from "../../import/machine.js";
import { type Basis, homeChange, type ImportUnit, importPlan } from "../../import/plan.js";
import { KanonError } from "../../model/types.js";
import { ConfigMissingError, type LoadedConfig, loadConfig } from "../../source/load.js";
import type { GlobalFlags, Io } from "../context.js";
import { loadPlan, machineOf, pathsOf, rootOf, scopeOf, stateDirOf } from "../pipeline.js";
import type { DiffSource } from "./diff-pane.js";
import { type AgentRow, displayPath, type Mode } from "./model.js";

/** A change as it was reviewed: what the diff pane showed, and whether it can be applied. */
export interface Reviewed {
  /** Destination path (apply) or import unit path: the row's identity. */
  path: string;
  agent: string;
  action: "create" | "update" | "delete";
  attention?: string;
  conflict?: string;
  /** The files whose diffs the pane shows, in order (computed when the row is first shown). */
  parts(): DiffSource[];
  /** What the change is made from and would write: applying needs all of it unchanged. */
  basis: readonly Basis[];
}

export interface Review {
  mode: Mode;
  changes: Reviewed[];
  agents: AgentRow[];
  /** Warnings the plan printed (kept off the screen's stderr). */
  warnings: string[];
}

export interface Applied {
  count: number;
  /** What else the user should know: backups saved. */
  note?: string;
}

export interface Reviewer {
  load(): Promise<Review>;
  /** Plan again, check the selection against `reviewed`, write it (unless dry-run). */
  apply(reviewed: readonly Reviewed[], paths: readonly string[], dryRun: boolean): Promise<Applied>;
}

const same = (a: Basis | undefined, b: Basis | undefined) =>
  a instanceof Uint8Array && b instanceof Uint8Array ? Buffer.from(a).equals(b) : a === b;

/**
 * The selected changes as they are now, in selection order, if each one still matches what was
 * reviewed (action, attention, basis: both sides' bytes and the mode); otherwise an error naming the
 * first one that does not.
 */
export function checkReviewed<T extends Reviewed>(
  reviewed: readonly Reviewed[],
  fresh: readonly T[],
  paths: readonly string[],
  userHome: string,
): T[] {
  const before = new Map(reviewed.map((r) => [r.path, r]));
  const now = new Map(fresh.map((f) => [f.path, f]));
  const out: T[] = [];
  for (const path of paths) {
    const fail = (why: string) => new KanonError(`${displayPath(path, userHome)}: selected file ${why}`);
    const r = before.get(path);
    const f = now.get(path);
    if (!r || !f) throw fail("no longer has a pending change; reload before applying");
    if (f.conflict !== undefined) throw fail("now has conflicts; reload before applying");
    if (
      r.action !== f.action ||
      r.attention !== f.attention ||
      r.basis.length !== f.basis.length ||
      r.basis.some((b, i) => !same(b, f.basis[i]))
    ) {
      throw fail("changed since it was reviewed; reload before applying");
    }
    out.push(f);
  }
  return out;
}

/** A plan change as the UI reviews it (the change itself is kept to apply it). */
type Planned = Reviewed & { change: Change };

/** Why a change needs attention: it replaces or deletes content kanon did not write (backed up). */
const ATTENTION = {
  foreign: "not written by kanon; a backup is saved when applied",
  edited: "changed since kanon last wrote it; a backup is saved when applied",
};

function reviewedOf(c: Change): Planned {
  const attention = c.replaces ? ATTENTION[c.replaces] : undefined;
  return {
    path: c.path,
    agent: c.file.agent,
    action: c.action,
    parts: () => [{ ...c, masked: c.file.merge !== undefined }],
    basis: [c.before, c.after, c.mode],
    ...(attention !== undefined ? { attention } : {}),
    change: c,
  };
}

export function agentRows(flag: string): AgentRow[] {
  const active = new Set(selectAgents(flag).map((a) => a.manifest.id));
  return AGENTS.map((a) => ({ id: a.manifest.id, active: active.has(a.manifest.id) }));
}

/** An Io whose stderr collects the warnings instead of printing them over the screen. */
function quietIo(io: Io): { io: Io; warnings: () => string[] } {
  let text = "";
  const stderr = new Writable({
    write(chunk, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  const warnings = () => [
    ...new Set(
      text
        .split("\n")
        .filter((l) => l.startsWith("warning: "))
        .map((l) => l.slice("warning: ".length)),
    ),
  ];
  return { io: { ...io, stderr }, warnings };
}

export function applyReviewer(flags: GlobalFlags, io: Io): Reviewer {
  const plan = async () => {
    const q = quietIo(io);
    const p = await loadPlan(flags, q.io);
    return { p, changes: p.plan.changes.map(reviewedOf), warnings: q.warnings() };
  };
  return {
    async load() {
      const p = await plan();
      return { mode: "apply", changes: p.changes, agents: agentRows(flags.agent), warnings: p.warnings };
    },
    async apply(reviewed, paths, dryRun) {
      const fresh = await plan();
      const selected = checkReviewed(reviewed, fresh.changes, paths, io.userHome);
      if (dryRun) return { count: selected.length };
      // As `kanon apply` does: temporary files of an interrupted apply go when this one writes.
      const removed = removeLeftovers(destinationDirs(fresh.p.files, io.fs), io.fs);
      // Through kanon apply's path (backups, record, history: `kanon undo` undoes it); the record
      // claims only what the selection writes.
      const { p } = fresh;
      const { backups, written } = applyPlan(
        selectChanges(
          p.plan,
          p.record.record,
          selected.map((s) => s.change),
        ),
        p.record,
        io.fs,
      );
      const notes = [
        ...(backups.length > 0 ? [`Saved ${backups.length} backup(s); kanon undo restores them.`] : []),
        ...(removed > 0 ? [`Removed ${removed} temporary file(s) left by an interrupted apply.`] : []),
      ];
      return { count: written, ...(notes.length > 0 ? { note: notes.join(" ") } : {}) };
    },
  };
}

/** An import unit as the UI reviews it (the unit itself is kept to write it). */
type Unit = Reviewed & { unit: ImportUnit };

function unitOf(u: ImportUnit): Unit {
  return {
    path: u.path,
    agent: u.agent,
    action: u.action,
    parts: u.writes,
    basis: u.basis,
    ...(u.replaces !== undefined ? { attention: u.replaces } : {}),
    unit: u,
  };
}

/**
 * Import mode: `kanon import`'s findings as units, each written into the Kanon home only when
 * selected (kanon.yaml edited in place, as `kanon import --merge --force` does).
 */
export function importReviewer(flags: GlobalFlags, machine: MachineFlags, io: Io): Reviewer {
  const plan = async () => {
    const paths = pathsOf(flags, io);
    const imported = await readMachine(machineOf(flags, io), machine);
    let existing: LoadedConfig | null = null;
    try {
      existing = await loadConfig(paths, AGENT_IDS);
    } catch (e) {
      if (!(e instanceof ConfigMissingError)) throw e;
    }
    const p = await importPlan({ home: paths.home, config: paths.config, existing }, imported);
    return {
      p,
      secrets: imported.secrets,
      changes: p.units.map(unitOf),
      warnings: [...(existing?.warnings ?? []), ...imported.warnings],
    };
  };
  return {
    async load() {
      const r = await plan();
      const agents = [...agentRows(flags.agent), { id: "all", active: true }];
      return { mode: "import", changes: r.changes, agents, warnings: r.warnings };
    },
    async apply(reviewed, paths, dryRun) {
      const fresh = await plan();
      const selected = checkReviewed(reviewed, fresh.changes, paths, io.userHome);
      if (dryRun) return { count: selected.length };
      const writes = fresh.p.writes(selected.map((s) => s.unit));
      const changes = writes.map(homeChange);
      // The secrets the selected servers refer to go into the store first (--secret-policy store).
      const config = writes.find((w) => w.path === pathsOf(flags, io).config)?.after;
      const used = new Set(config ? secretRefs(Buffer.from(config).toString("utf8")) : []);
      const stored = addSecrets(
        secretStorePath(io.env, io.userHome),
        Object.fromEntries(Object.entries(fresh.secrets).filter(([n]) => used.has(n))),
      );
      const scope = scopeOf(flags, io);
      let removed: number;
      try {
        // As `kanon import --write` does: all or nothing, each file only if it is still what was
        // planned from, with a history entry (`kanon undo` takes it back).
        removed = applyImport(stateDirOf(scope, io), rootOf(scope), changes, io.fs);
      } catch (e) {
        if (!(e instanceof ChangedError) || e.written.length > 0) throw e;
        // Named as the re-plan check names it: the first selected unit that writes that file.
        const unit = selected.find((s) => s.unit.writes().some((w) => homeChange(w).path === e.path));
        throw new KanonError(
          `${displayPath(unit?.path ?? e.path, io.userHome)}: selected file changed since it was reviewed; reload before applying`,
        );
      }
      const note =
        [
          removed > 0 ? `Removed ${removed} temporary file(s) left by an interrupted import or apply.` : "",
          stored ?? "",
        ]
          .filter(Boolean)
          .join(" ") || undefined;
      return { count: selected.length, ...(note ? { note } : {}) };
    },
  };
}
