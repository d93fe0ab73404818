/**
 * Hooks that arrive from elsewhere are shown before they run. `kanon update` — and `kanon apply`
 * once the Kanon home's git history moved by anything but a commit made here (a pull, a clone, a
 * merge, a reset) — lists every hook, MCP server, skill hook and read outside the home
 * (core/runnable.ts) that is new or changed since the last apply on this machine, and asks, even
 * with `--yes`; `--trust-hooks` applies them without asking. Without a terminal to ask on it stops
 * with one line saying how to go on. What was applied is kept per machine, beside the ownership
 * record (`reviewed.json`), so the same change is never asked about twice.
 */
import { lstatSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import type { ItemDecision } from "../core/items.js";
import { homePathsNamed, type Runnable, runnables } from "../core/runnable.js";
import { maskSecrets } from "../core/secrets.js";
import { READ_LIMIT, readBounded } from "../model/bounded-read.js";
import { instructionPath } from "../model/config.js";
import type { Item, Source } from "../model/source.js";
import { KanonError } from "../model/types.js";
import { homeRead } from "../source/home-files.js";
import { resolveHomePath } from "../source/load.js";
import { type Io, isTerminal, out, readLine } from "./context.js";
import { type Rendered, stateDirOf } from "./pipeline.js";
import { unifiedHunks } from "./unified-diff.js";

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
  /** Keys `kanon update` showed before it pulled, and the user accepted: not asked about again. */
  accepted?: readonly string[];
}

export interface Review {
  /** false: the user said no; nothing is to be written. */
  proceed: boolean;
  /** Remember what this apply put in place (call once it wrote, or found nothing to write). */
  remember(): void;
}

/** What the source runs, what this machine applied before, and how to remember what it applies now. */
function reviewState(r: Rendered, io: Io, outside: (path: string) => boolean) {
  const items = runnables({
    source: r.source,
    agents: r.agents,
    scope: r.scope,
    decisions: r.validation.decisions,
    mcp: r.validation.mcp,
    items: r.validation.items,
    outside,
    reads: readsOf(r.source, r.validation.items),
  });
  const stateFile = join(stateDirOf(r.scope, io), FILE);
  const { value: previous, text: previousText } = readReviewed(stateFile);
  const known = new Set(Object.values(previous?.applied ?? {}).flat());
  return { items, stateFile, previous, previousText, known };
}

/** Asks about what is new since the last apply on this machine when it came from elsewhere. */
export async function reviewArrivals(r: Rendered, opts: ReviewOptions, io: Io): Promise<Review> {
  const outside = (path: string) => homeRead(path, r.paths.home, false).outside;
  const { items, stateFile, previous, previousText, known } = reviewState(r, io, outside);
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
  // What `kanon update` showed of the commits it pulled, and the user accepted.
  for (const key of opts.accepted ?? []) known.add(key);
  // What came from elsewhere: everything new, once the home's history moved by something other
  // than a commit made here since the last apply (on a machine that applied before this file was
  // kept, only a pull made now counts); a provider's skill hooks always.
  const moved = opts.pulledFrom !== undefined && (log?.head ?? null) !== opts.pulledFrom;
  const arrived =
    moved || (previous ? arrivedSince(log, previous.head) : !opts.appliedBefore && arrivedSince(log, null));
  const pending = items.filter((i) => !known.has(i.key) && (arrived || i.foreign));
  if (pending.length === 0) return { proceed: true, remember };
  const lines = listing(pending);
  const proceed = await ask(lines, opts, io, {
    refused: `${lines.length} new or changed hook(s), MCP server(s), command(s), subagent(s) or outside read(s) came from elsewhere (listed above); nothing was written: check them (kanon diff), then run again with --trust-hooks, or in a terminal to be asked`,
    cancelled: "Apply cancelled: nothing was written.\n",
  });
  return { proceed, remember };
}

/**
 * Lists what is to be put in place and asks, even with --yes: true to go on. A dry run or
 * --trust-hooks goes on without asking; without a terminal to ask on it stops with `refused`.
 */
async function ask(
  lines: readonly string[],
  opts: { trustHooks?: boolean; dryRun?: boolean; quiet?: boolean },
  io: Io,
  say: { refused: string; cancelled: string },
): Promise<boolean> {
  if (!opts.quiet)
    out(
      io,
      `New or changed since the last apply on this machine, and not written here:\n${lines.join("\n")}\n`,
    );
  if (opts.dryRun || opts.trustHooks) return true;
  if (!io.stdin.isTTY || !isTerminal(io.stdout)) throw new KanonError(say.refused);
  out(io, "Put these in place? They run commands in your agents. [y/N] ");
  const answer = (await readLine(io.stdin)).trim().toLowerCase();
  if (answer !== "y" && answer !== "yes") {
    out(io, say.cancelled);
    return false;
  }
  return true;
}

/** What `kanon update` would pull, for its review before the home moves (cli/incoming.ts). */
export interface IncomingPull {
  /** The Kanon home; the render reviewed is of the incoming tree, written out elsewhere. */
  home: string;
  /** Where the incoming tree is written out. */
  tree: string;
  /** The paths (relative to the home, `/`-separated) the pull changes. */
  changed: ReadonlySet<string>;
  /** A changed path's text before and after the pull (null: absent on that side). */
  text(rel: string): Promise<{ before: string | null; after: string | null }>;
}

/**
 * `kanon update`, before it moves the home: lists what the incoming commits would make the agents
 * run that was not applied on this machine, and every file of the home that a hook or MCP server
 * (new or kept) runs which the pull changes, with its diff; asks, even with --yes, unless
 * --trust-hooks. `accepted` is what was shown, for the apply after the pull not to ask again.
 */
export async function reviewIncoming(
  r: Rendered,
  pull: IncomingPull,
  opts: { trustHooks?: boolean; dryRun?: boolean },
  io: Io,
): Promise<{ proceed: boolean; accepted: string[] }> {
  // A path inside either the home or its incoming tree is the home's.
  const outside = (path: string) =>
    homeRead(path, r.paths.home, false).outside && homeRead(path, pull.home, false).outside;
  const { items, known } = reviewState(r, io, outside);
  const pending = items.filter((i) => !known.has(i.key));
  const scripts = scriptsRun(items, pull, r.paths.userHome);
  if (pending.length === 0 && scripts.size === 0) return { proceed: true, accepted: [] };
  const lines = listing(pending);
  const count = lines.length + scripts.size;
  for (const [rel, by] of scripts) lines.push(...(await scriptLines(rel, by, pull)));
  const proceed = await ask(lines, opts, io, {
    refused: `${count} new or changed hook(s), MCP server(s), command(s), subagent(s), script(s) or outside read(s) came with the pull (listed above); nothing was pulled or written: check them, then run again with --trust-hooks, or in a terminal to be asked`,
    cancelled: "Update cancelled: nothing was pulled or written.\n",
  });
  return { proceed, accepted: pending.map((i) => i.key) };
}

/**
 * The changed files of the home that the items run: each file their command lines name
 * (core/runnable.ts homePathsNamed), everything under a folder they name, and the other files in
 * a named file's folder (a library the script sources), the home's top folder aside. A file one
 * item names is shown as run by that item, not by the ones that only name a file beside it.
 */
function scriptsRun(
  items: readonly Runnable[],
  pull: IncomingPull,
  userHome: string,
): Map<string, Runnable[]> {
  const scripts = new Map<string, Runnable[]>();
  if (pull.changed.size === 0) return scripts;
  const where = { home: pull.home, userHome };
  const exists = (rel: string) =>
    pull.changed.has(rel) || lexists(join(pull.home, rel)) || lexists(join(pull.tree, rel));
  const named = new Map<string, Runnable[]>();
  const beside = new Map<string, Runnable[]>();
  const add = (to: Map<string, Runnable[]>, path: string, item: Runnable) =>
    to.set(path, [...(to.get(path) ?? []), item]);
  const within = (path: string, folder: string) => folder !== "." && path.startsWith(`${folder}/`);
  for (const item of items) {
    if (!item.runs) continue;
    for (const rel of homePathsNamed(item.runs, where)) {
      if (!exists(rel)) continue;
      if (pull.changed.has(rel)) add(named, rel, item);
      for (const path of pull.changed)
        if (within(path, rel)) add(named, path, item);
        else if (path !== rel && within(path, posix.dirname(rel))) add(beside, path, item);
    }
  }
  for (const [path, by] of beside) if (!named.has(path)) named.set(path, by);
  return new Map([...named].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const lexists = (path: string) => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

/** Larger than this, a script's diff is not computed: its size is shown instead. */
const SCRIPT_DIFF_LIMIT = 1024 * 1024;

/** `script "hooks/guard.sh" for claude, codex: run by hook "guard"`, then its diff, indented. */
async function scriptLines(rel: string, by: readonly Runnable[], pull: IncomingPull): Promise<string[]> {
  const agents = [...new Set(by.map((i) => i.agent))];
  const runners = [...new Set(by.map((i) => `${i.kind} ${JSON.stringify(i.name)}`))];
  const { before, after } = await pull.text(rel);
  const head = `  script ${JSON.stringify(rel)} for ${agents.join(", ")}: run by ${runners.join(", ")}; the pull ${after === null ? "deletes" : before === null ? "adds" : "changes"} it`;
  let diff: string[];
  const binary = (t: string | null) => t?.slice(0, 8000).includes("\u0000") === true;
  if ((before?.length ?? 0) > SCRIPT_DIFF_LIMIT || (after?.length ?? 0) > SCRIPT_DIFF_LIMIT)
    diff = [
      `(${after?.length ?? 0} characters, too large to show here: git diff HEAD @{upstream} -- ${rel})`,
    ];
  else if (binary(before) || binary(after)) diff = [`Binary files ${rel} differ`];
  else {
    const hunks = unifiedHunks(before ?? "", after ?? "");
    diff = [
      `--- ${before === null ? "/dev/null" : `a/${rel}`}`,
      `+++ ${after === null ? "/dev/null" : `b/${rel}`}`,
      ...(hunks.length > 0 ? hunks.map(maskSecrets) : ["(only its mode changes)"]),
    ];
  }
  return [head, ...diff.map((l) => `      ${l}`)];
}

/** After an apply with nothing to write: what is in place is remembered as applied. */
export async function rememberApplied(r: Rendered, io: Io): Promise<void> {
  (await reviewArrivals(r, { appliedBefore: true, trustHooks: true, quiet: true }, io)).remember();
}

/** The paths the home reads: instruction files, local skill folders, command and subagent files. */
function readsOf(
  source: Source,
  items: readonly ItemDecision[],
): { label: string; path: string; targets: string[] | undefined }[] {
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
  // A command's or subagent's file (kanon.yaml's `path:`, or the home's folder), for the agents given it.
  const given = new Map<Item, string[]>();
  for (const d of items) if (d.native) given.set(d.item, [...(given.get(d.item) ?? []), d.agent]);
  for (const [item, agents] of given)
    out.push({
      label: `${item.kind} ${item.name}`,
      path: resolveHomePath(item.file, home, userHome),
      targets: agents,
    });
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
