/** render, diff and apply: the target state, its difference from disk, and writing it. */
import { isAbsolute, resolve } from "node:path";
import { AGENTS } from "../../agents/index.js";
import { agentDestinations } from "../../core/homes.js";
import { maskSecretLines } from "../../core/secrets.js";
import { applyChanges, destinationDirs, removeLeftovers } from "../../destination/apply.js";
import { applyPlan } from "../../destination/apply-plan.js";
import { dryRunFs, realFs } from "../../destination/fs.js";
import type { Change } from "../../destination/plan.js";
import { assertWritable, forcedUndo, planUndo, runUndo, saveBeforeUndo } from "../../destination/state.js";
import { KanonError, type Scope, type TargetFile } from "../../model/types.js";
import { type GlobalFlags, type Io, out, outPainted, progressOf, readLine, warn } from "../context.js";
import { changeDiff, PLAIN, paintFor, planDiff, planSummary, replacesNote } from "../diff-text.js";
import { rememberApplied, reviewArrivals } from "../hook-review.js";
import { isRunnerPath, loadPlan, loadRendered, recordOf, scopeOf } from "../pipeline.js";
import { trackedSecretWarnings } from "../project-secrets.js";

export async function renderCommand(flags: GlobalFlags, opts: { json?: boolean }, io: Io): Promise<void> {
  const r = await loadRendered(flags, io, { references: true });
  if (opts.json) {
    out(io, jsonText({ files: r.files.map(fileJson), warnings: r.warnings }));
    return;
  }
  out(io, renderListing(r.files));
}

/**
 * `==> [agent] path` then the content, files separated by a blank line (the Go original's format).
 * Built from the content bytes as they are: a large home renders megabytes of skill files.
 */
export function renderListing(targets: readonly TargetFile[]): Buffer {
  if (targets.length === 0) return Buffer.from("No target files.\n");
  const files = targets.map(masked);
  const heads = files.map((f, i) => `${i > 0 ? "\n" : ""}==> [${f.agent}] ${f.path}\n`);
  const unended = (f: TargetFile) => f.content.length > 0 && f.content[f.content.length - 1] !== 0x0a;
  let size = 0;
  files.forEach((f, i) => {
    size += Buffer.byteLength(heads[i]!) + f.content.length + (unended(f) ? 1 : 0);
  });
  // One buffer, each part copied in once (concatenating thousands of parts costs an object each).
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  files.forEach((f, i) => {
    at += out.write(heads[i]!, at);
    out.set(f.content, at);
    at += f.content.length;
    if (unended(f)) out[at++] = 0x0a;
  });
  return out;
}

/** A co-owned file's content with its secret values masked (core/secrets.ts): what render shows. */
function masked(f: TargetFile): TargetFile {
  return f.merge
    ? { ...f, content: Buffer.from(maskSecretLines(Buffer.from(f.content).toString("utf8"))) }
    : f;
}

function fileJson(target: TargetFile) {
  const f = masked(target);
  const binary = Buffer.from(f.content).subarray(0, 8000).includes(0);
  return {
    agent: f.agent,
    path: f.path,
    mode: `0${f.mode.toString(8)}`,
    ...(f.merge ? { merge: f.merge } : {}),
    encoding: binary ? "base64" : "utf8",
    content: Buffer.from(f.content).toString(binary ? "base64" : "utf8"),
  };
}

export function changeJson(c: Change) {
  return {
    agent: c.file.agent,
    path: c.path,
    action: c.action,
    mode: `0${c.mode.toString(8)}`,
    replaces: c.replaces ?? null,
    removed: c.removed ?? [],
    diff: changeDiff(c, PLAIN).join("\n"),
  };
}

/**
 * JSON for scripts. JSON.stringify escapes C0 controls already; the other characters that act on a
 * terminal (C1 controls, bidirectional controls, separators) are escaped too: the same data, and
 * safe to print.
 */
export const jsonText = (value: unknown) =>
  `${JSON.stringify(value, null, 2).replace(JSON_ACTING, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`;
const JSON_ACTING = /[\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

export interface DiffOptions {
  json?: boolean;
  stat?: boolean;
  exitCode?: boolean;
}

/** With `--exit-code`, 1 when anything would change (git's convention), 0 when in sync. */
export async function diffCommand(flags: GlobalFlags, opts: DiffOptions, io: Io): Promise<number> {
  const p = await loadPlan(flags, io);
  const changes = p.plan.changes;
  if (opts.json) out(io, jsonText({ files: changes.map(changeJson), warnings: p.warnings }));
  else if (opts.stat) out(io, planSummary(changes));
  else outPainted(io, planDiff(changes, paintFor(io.stdout as NodeJS.WriteStream, io.env)));
  return opts.exitCode && changes.length > 0 ? 1 : 0;
}

export interface ApplyOptions {
  yes?: boolean;
  dryRun?: boolean;
  /** Show only the summary, not the diff, before the prompt. */
  stat?: boolean;
  /** Put hooks and MCP servers that arrived from elsewhere in place without asking (cli/hook-review.ts). */
  trustHooks?: boolean;
  /** Set by `kanon update`: the home's HEAD before its pull. */
  pulledFrom?: string | null;
  /** Set by `kanon update`: what it showed before it pulled, and the user accepted. */
  accepted?: readonly string[];
}

/** The diff (unless `stat`) and the summary of what an apply would write. */
function previewChanges(changes: readonly Change[], opts: { stat?: boolean }, io: Io): void {
  if (!opts.stat) outPainted(io, planDiff(changes, paintFor(io.stdout as NodeJS.WriteStream, io.env)));
  out(io, planSummary(changes));
}

/** A dry run's preview, then the write path without writing: a folder in the way is the error apply would give. */
export function dryRunChanges(changes: readonly Change[], opts: { stat?: boolean }, io: Io): void {
  previewChanges(changes, opts, io);
  applyChanges(changes, dryRunFs);
}

/** Applies of at least this many files say so on a terminal while they write. */
const LARGE_APPLY = 200;

export async function applyCommand(flags: GlobalFlags, opts: ApplyOptions, io: Io): Promise<void> {
  const p = await loadPlan(flags, io);
  const changes = p.plan.changes;
  // What arrived from elsewhere is shown, and asked about, before anything else (even with --yes).
  const review =
    changes.length === 0
      ? null
      : await reviewArrivals(
          p,
          {
            appliedBefore: p.record.record !== null,
            ...(opts.pulledFrom !== undefined ? { pulledFrom: opts.pulledFrom } : {}),
            ...(opts.accepted ? { accepted: opts.accepted } : {}),
            ...(opts.trustHooks ? { trustHooks: true } : {}),
            ...(opts.dryRun ? { dryRun: true } : {}),
          },
          io,
        );
  if (review && !review.proceed) return;
  const fs = io.fs ?? realFs;
  // Temporary files of an interrupted apply go when this one writes (or has nothing to write):
  // beside the destination files here, in the state directory by applyPlan.
  const write = () => {
    const removed = removeLeftovers(destinationDirs(p.files, fs), fs);
    const { backups, swept, written } = applyPlan(p.plan, p.record, fs);
    if (removed + swept > 0)
      out(io, `Removed ${removed + swept} temporary file(s) left by an interrupted apply.\n`);
    return { backups, written };
  };
  warn(io, await trackedSecretWarnings(p.scope, changes, p.secrets, io));
  if (changes.length === 0) {
    // The record may still change: entries adopted, or an apply killed before it wrote the record.
    if (!opts.dryRun) {
      write();
      await rememberApplied(p, io);
    }
    out(io, "No changes.\n");
    return;
  }
  const preview = () => previewChanges(changes, opts, io);
  if (opts.dryRun) {
    dryRunChanges(changes, opts, io);
    out(io, `Dry run: would apply ${changes.length} file change(s); nothing written.\n`);
    return;
  }
  if (!opts.yes) {
    preview();
    const notes = changes.map(replacesNote).filter((n) => n !== null);
    if (notes.length > 0) {
      out(
        io,
        "These files hold content kanon did not write or that changed since; apply saves a backup first:\n",
      );
      for (const n of notes) out(io, `  ${n}\n`);
    }
    out(io, "Apply these changes? [y/N] ");
    const answer = (await readLine(io.stdin)).trim().toLowerCase();
    if (answer !== "y" && answer !== "yes") {
      out(io, "Apply cancelled.\n");
      return;
    }
  }
  if (changes.length >= LARGE_APPLY) progressOf(io).progress?.(`Writing ${changes.length} files…`);
  const { backups, written } = write();
  review?.remember();
  for (const b of backups) {
    const note = replacesNote(b.change);
    if (note) out(io, `Saved ${note}: backup in ${b.path}\n`);
  }
  out(io, `Applied ${written} file change(s).\n`);
}

/**
 * Undoes the newest entry of the scope's history: an apply (its files and the record) or an import
 * (the Kanon home files it wrote). Each undo goes one entry further back.
 */
export async function undoCommand(
  flags: GlobalFlags,
  opts: { yes?: boolean; dryRun?: boolean; force?: boolean },
  io: Io,
): Promise<void> {
  const scope = scopeOf(flags, io);
  const loaded = recordOf(scope, io);
  const fs = io.fs ?? realFs;
  const plan = planUndo(loaded.dir, loaded.record, fs);
  if (!plan) {
    out(io, "Nothing to undo.\n");
    return;
  }
  const what = `the ${plan.kind} of ${plan.time}`;
  if (plan.damaged.length > 0) {
    throw new KanonError(
      `cannot undo ${what}: ${plan.damaged.join("; ")}; nothing was restored (remove ${plan.entry} to undo the ones before it)`,
    );
  }
  // The history is kanon's own file, but a damaged or hand-edited one must not make undo write
  // anywhere an apply could not have (core/homes.ts), nor through `..` in an import's path.
  const stray = plan.steps.find((s) =>
    plan.kind === "apply"
      ? !isRecordable(s.agent, s.path, scope)
      : !isAbsolute(s.path) || resolve(s.path) !== s.path,
  );
  if (stray)
    throw new KanonError(
      `cannot undo ${what}: its history names ${JSON.stringify(stray.path)}, where kanon writes nothing; nothing was restored`,
    );
  if (plan.changed.length > 0 && !opts.force) {
    const them = plan.changed.length > 1 ? "they hold" : "it holds";
    throw new KanonError(
      `cannot undo ${what}: changed since then: ${plan.changed.join(", ")}; nothing was restored (${them} edits made after it: keep them and stop here, or run kanon undo --force to undo it anyway, saving what is there now first)`,
    );
  }
  // --force: each file changed since is taken as it is now (saved below before undo replaces it).
  const undo = opts.force ? forcedUndo(plan, fs) : plan;
  // An import writes the Kanon home, no agent's file: its steps name no agent.
  const listing = plan.steps.map(
    (s) =>
      `  ${s.action === "remove" ? "remove " : "restore"} ${s.path}${plan.kind === "apply" ? ` (${s.agent})` : ""}\n`,
  );
  out(io, `Undo ${what}:\n${listing.join("")}`);
  if (opts.dryRun) {
    // Every check undo makes (each backup against its sha256), writing nothing.
    runUndo(loaded.dir, undo, what, dryRunFs);
    out(io, `Dry run: would undo ${plan.steps.length} file change(s); nothing written.\n`);
    return;
  }
  if (!opts.yes) {
    out(io, "Undo these changes? [y/N] ");
    const answer = (await readLine(io.stdin)).trim().toLowerCase();
    if (answer !== "y" && answer !== "yes") {
      out(io, "Undo cancelled.\n");
      return;
    }
  }
  assertWritable(loaded.dir, fs);
  for (const path of plan.changed) {
    const saved = saveBeforeUndo(loaded.dir, plan.id, path, fs);
    if (saved) out(io, `Saved ${path} as it was: backup in ${saved}\n`);
  }
  const removed = runUndo(loaded.dir, undo, what, fs);
  if (removed > 0) out(io, `Removed ${removed} temporary file(s) left by an interrupted ${plan.kind}.\n`);
  out(io, `Undid ${plan.steps.length} file change(s).\n`);
}

/** Whether an agent's apply could have written `path` in this scope (kanon's hook runner included). */
function isRecordable(agent: string, path: string, scope: Scope): boolean {
  const m = AGENTS.find((a) => a.manifest.id === agent)?.manifest;
  return m !== undefined && (agentDestinations(m, scope)(path) || isRunnerPath(path, scope));
}
