/**
 * Hooks that arrive from elsewhere are shown before they run. `kanon update` — and `kanon apply`
 * once the Kanon home's git history moved by anything but a commit made here (a pull, a clone, a
 * merge, a reset) — lists every hook, MCP server, skill hook and read outside the home
 * (core/runnable.ts) that is new or changed since the last apply on this machine, and asks, even
 * with `--yes`; `--trust-hooks` applies them without asking. Without a terminal to ask on it stops
 * with one line saying how to go on. What was applied is kept per machine, beside the ownership
 * record (`reviewed.json`), so the same change is never asked about twice.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type Runnable, runnables } from "../core/runnable.js";
import { READ_LIMIT, readBounded } from "../model/bounded-read.js";
import { instructionPath } from "../model/config.js";
import type { Source } from "../model/source.js";
import { KanonError } from "../model/types.js";
import { homeRead } from "../source/home-files.js";
import { resolveHomePath } from "../source/load.js";
import { type Io, isTerminal, out, readLine } from "./context.js";
import { type Rendered, stateDirOf } from "./pipeline.js";

interface Reviewed {
  version: 1;
  /** The home's HEAD commit at the last apply (null: not a git repository). */
  head: string | null;
  /** Per agent, the keys of what was applied. */
  applied: Record<string, string[]>;
}

const FILE = "reviewed.json";

export interface ReviewOptions {
  /** `kanon update`: the home's HEAD before its pull (null: none); a pull that moved it brought something. */
  pulledFrom?: string | null;
  /** kanon applied to this destination root before (its ownership record exists). */
  appliedBefore: boolean;
  trustHooks?: boolean;
  dryRun?: boolean;
  /** List nothing (rememberApplied). */
  quiet?: boolean;
}

export interface Review {
  /** false: the user said no; nothing is to be written. */
  proceed: boolean;
  /** Remember what this apply put in place (call once it wrote, or found nothing to write). */
  remember(): void;
}

/** Asks about what is new since the last apply on this machine when it came from elsewhere. */
export async function reviewArrivals(r: Rendered, opts: ReviewOptions, io: Io): Promise<Review> {
  const items = runnables({
    source: r.source,
    agents: r.agents,
    scope: r.scope,
    decisions: r.validation.decisions,
    mcp: r.validation.mcp,
    outside: (path) => homeRead(path, r.paths.home, false).outside,
    reads: readsOf(r.source),
  });
  const stateFile = join(stateDirOf(r.scope, io), FILE);
  const { value: previous, text: previousText } = readReviewed(stateFile);
  const log = homeHeadLog(r.paths.home);
  const remember = () => {
    // Nothing runs and nothing was remembered: no file (a state directory is made only when needed).
    if (items.length === 0 && previousText === null) return;
    const applied: Record<string, string[]> = { ...previous?.applied };
    for (const a of r.agents) applied[a.manifest.id] = [];
    for (const i of items) applied[i.agent]!.push(i.key);
    // Sorted and once each: the same things in another order are the same file.
    for (const a of r.agents) applied[a.manifest.id] = [...new Set(applied[a.manifest.id])].sort();
    const text = `${JSON.stringify({ version: 1, head: log?.head ?? null, applied })}\n`;
    if (text !== previousText) writeReviewed(stateFile, text);
  };
  const known = new Set(Object.values(previous?.applied ?? {}).flat());
  // What came from elsewhere: everything new, once the home's history moved by something other
  // than a commit made here since the last apply (on a machine that applied before this file was
  // kept, only a pull made now counts); a provider's skill hooks always.
  const moved = opts.pulledFrom !== undefined && (log?.head ?? null) !== opts.pulledFrom;
  const arrived =
    moved || (previous ? arrivedSince(log, previous.head) : !opts.appliedBefore && arrivedSince(log, null));
  const pending = items.filter((i) => !known.has(i.key) && (arrived || i.foreign));
  if (pending.length === 0) return { proceed: true, remember };

  const lines = listing(pending);
  if (!opts.quiet)
    out(
      io,
      `New or changed since the last apply on this machine, and not written here:\n${lines.join("\n")}\n`,
    );
  if (opts.dryRun || opts.trustHooks) return { proceed: true, remember };
  if (!io.stdin.isTTY || !isTerminal(io.stdout)) {
    throw new KanonError(
      `${lines.length} new or changed hook(s), MCP server(s) or outside read(s) came from elsewhere (listed above); nothing was written: check them (kanon diff), then run again with --trust-hooks, or in a terminal to be asked`,
    );
  }
  out(io, "Put these in place? They run commands in your agents. [y/N] ");
  const answer = (await readLine(io.stdin)).trim().toLowerCase();
  if (answer !== "y" && answer !== "yes") {
    out(io, "Apply cancelled: nothing was written.\n");
    return { proceed: false, remember };
  }
  return { proceed: true, remember };
}

/** After an apply with nothing to write: what is in place is remembered as applied. */
export async function rememberApplied(r: Rendered, io: Io): Promise<void> {
  (await reviewArrivals(r, { appliedBefore: true, trustHooks: true, quiet: true }, io)).remember();
}

/** The paths kanon.yaml names for reading: instruction files and local skill folders. */
function readsOf(source: Source): { label: string; path: string; targets: string[] | undefined }[] {
  const { home, userHome } = source.paths;
  const out: { label: string; path: string; targets: string[] | undefined }[] = [];
  for (const f of source.config.instructions.files) {
    const rel = instructionPath(f);
    out.push({
      label: `instruction ${rel}`,
      path: resolveHomePath(rel, home, userHome),
      targets: typeof f === "string" ? undefined : f.targets,
    });
  }
  for (const s of source.config.skills) {
    if (s.git || !s.path || s.enabled === false) continue;
    out.push({
      label: `skill ${s.name ?? ""}`,
      path: resolveHomePath(s.path, home, userHome),
      targets: s.targets,
    });
  }
  return out;
}

/** One line per item: `hook "guard" for claude, codex: PreToolUse Bash: curl … | sh`. */
function listing(items: readonly Runnable[]): string[] {
  const groups = new Map<string, { item: Runnable; agents: string[] }>();
  for (const i of items) {
    const id = `${i.kind}\u0000${i.name}\u0000${i.what}`;
    const g = groups.get(id) ?? { item: i, agents: [] };
    g.agents.push(i.agent);
    groups.set(id, g);
  }
  return [...groups.values()].map(
    ({ item, agents }) =>
      `  ${item.kind} ${JSON.stringify(item.name)} for ${agents.join(", ")}: ${item.what}`,
  );
}

/** The file's value (null when missing or malformed: nothing is known as applied) and its text. */
function readReviewed(path: string): { value: Reviewed | null; text: string | null } {
  let text: string;
  try {
    text = readBounded(path, { limit: READ_LIMIT.state }).bytes.toString("utf8");
  } catch {
    return { value: null, text: null };
  }
  try {
    const value = JSON.parse(text);
    if (value?.version !== 1 || typeof value.applied !== "object" || value.applied === null)
      return { value: null, text };
    const applied: Record<string, string[]> = {};
    for (const [agent, keys] of Object.entries(value.applied))
      if (Array.isArray(keys)) applied[agent] = keys.filter((k): k is string => typeof k === "string");
    return { value: { version: 1, head: typeof value.head === "string" ? value.head : null, applied }, text };
  } catch {
    return { value: null, text };
  }
}

function writeReviewed(path: string, text: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, path);
  } catch {
    // Not remembered: the next update asks again, which is the safe side.
  }
}

interface HeadLog {
  /** The current HEAD commit. */
  head: string | null;
  /** HEAD's moves, oldest first: the commit it moved to, and how (`commit: …`, `pull: …`, `clone: …`). */
  moves: { from: string; to: string; how: string }[];
}

/**
 * The home's HEAD reflog, read from the file git keeps it in (no git process): null when the home is
 * not a git repository or keeps no reflog.
 */
export function homeHeadLog(home: string): HeadLog | null {
  let gitDir = join(home, ".git");
  try {
    // A worktree's `.git` is a file: `gitdir: <path>`.
    const pointer = readBounded(gitDir, { limit: 4096 }).bytes.toString("utf8");
    const m = /^gitdir: (.+)$/m.exec(pointer);
    if (m) gitDir = m[1]!.startsWith("/") ? m[1]! : join(home, m[1]!);
  } catch {}
  let text: string;
  try {
    text = readBounded(join(gitDir, "logs", "HEAD"), { limit: READ_LIMIT.state }).bytes.toString("utf8");
  } catch {
    return null;
  }
  const moves: HeadLog["moves"] = [];
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]{40,64}) ([0-9a-f]{40,64}) [^\t]*\t?(.*)$/.exec(line);
    if (m) moves.push({ from: m[1]!, to: m[2]!, how: m[3]! });
  }
  return { head: moves.at(-1)?.to ?? null, moves };
}

/** A commit made here: `git commit` (first, amended). Anything else may bring someone else's content. */
const LOCAL = /^commit(?: \((?:initial|amend)\))?:/;

/**
 * Whether HEAD moved since `head` (the last apply's) by anything but a local commit: a pull, clone,
 * merge, reset, checkout or rebase. Without a reflog kanon cannot tell, and treats a HEAD that
 * changed as moved from elsewhere.
 */
function arrivedSince(log: HeadLog | null, head: string | null): boolean {
  if (log === null) return false;
  let start = 0;
  if (head !== null) {
    const at = log.moves.findLastIndex((m) => m.to === head);
    if (at < 0) return log.head !== head;
    start = at + 1;
  }
  return log.moves.slice(start).some((m) => m.from !== m.to && !LOCAL.test(m.how));
}
