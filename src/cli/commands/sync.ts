/**
 * Sync the Kanon home across machines: `init <repo>` clones it, `pull` and `push` run git in it, and
 * `update` fetches, reviews what the incoming commits would run, fast-forwards, and then applies
 * exactly as `kanon apply` does.
 */
import { lstat, mkdir, mkdtemp, readdir, rename, rm, rmdir } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { isInside } from "../../core/names.js";
import { osErrorText } from "../../model/fs-errors.js";
import { KanonError } from "../../model/types.js";
import { redactUrl } from "../../providers/git.js";
import { assertSettledHome } from "../../source/home-state.js";
import { err, type GlobalFlags, type Io, isTerminal, out, warn } from "../context.js";
import { git, gitReason, remoteUrls } from "../home-git.js";
import { homeHeadLog, type IncomingPull, reviewIncoming } from "../hook-review.js";
import { changedPaths, textAt, type Upstream, upstreamOf, withTree } from "../incoming.js";
import { loadRendered, pathsOf, planOf, type Rendered } from "../pipeline.js";
import { trackedSecretWarnings } from "../project-secrets.js";
import { pushRefusal, secretsToPush } from "../push-guard.js";
import { type ApplyOptions, applyCommand, dryRunChanges } from "./render.js";

/** What is at `path`: nothing, an empty directory, or something that stops a clone. */
async function cloneTarget(path: string): Promise<"missing" | "empty" | "file" | "full"> {
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "missing";
    if (code === "ENOTDIR") return "file";
    throw new KanonError(`stat ${path}: ${osErrorText(e)}`);
  }
  if (!st.isDirectory()) return "file";
  return (await readdir(path)).length === 0 ? "empty" : "full";
}

/**
 * `kanon init <repo>`: clone into a temporary directory beside the home, check that it is a Kanon
 * home, then rename it into place. A failed clone or a repository without kanon.yaml leaves nothing.
 */
export async function cloneCommand(
  flags: GlobalFlags,
  repo: string,
  io: Io,
  opts: { branch?: string } = {},
): Promise<void> {
  const { home } = pathsOf(flags, io);
  const shown = redactUrl(repo);
  if (repo.trim() === "" || repo.startsWith("-")) {
    throw new KanonError(`init: ${JSON.stringify(shown)} is not a git repository URL or path`);
  }
  const target = await cloneTarget(home);
  if (target === "full") {
    throw new KanonError(
      `${home} already exists and is not empty; remove it or choose another --home (to sync an existing home, run "kanon pull" there)`,
    );
  }
  if (target === "file") throw new KanonError(`${home} is a file, not a directory; choose another --home`);
  const parent = dirname(home);
  const createdParent = await mkdir(parent, { recursive: true }).catch((e: unknown) => {
    throw new KanonError(`cannot create ${parent}: ${osErrorText(e)}`);
  });
  const tmp = await mkdtemp(join(parent, `.${basename(home)}.clone-`));
  let cloned = false;
  try {
    const dest = join(tmp, "home");
    const progress = isTerminal(io.stderr);
    if (progress) err(io, `Cloning ${shown}…\n`);
    const branch = opts.branch ? ["--branch", opts.branch] : [];
    const r = await git(
      ["clone", ...(progress ? ["--progress"] : ["--quiet"]), ...branch, "--", repo, dest],
      {
        io,
        stream: progress,
        secretUrl: repo,
      },
    );
    if (r.failure) {
      const reason = gitReason(r.output);
      throw new KanonError(`git clone ${shown}: ${r.failure}${reason ? `: ${reason}` : ""}`);
    }
    if ((await cloneTarget(join(dest, "kanon.yaml"))) === "missing") {
      // git's own reason first: a HEAD naming a branch that does not exist checks out nothing.
      const branches = (
        await git(["-C", dest, "branch", "-r", "--format=%(refname:lstrip=3)"], { io })
      ).stdout
        .split("\n")
        .filter((b) => b !== "" && b !== "HEAD");
      if (/remote HEAD refers to nonexistent ref/.test(r.output) && branches.length > 0)
        throw new KanonError(
          `git clone ${shown}: its HEAD names a branch that does not exist, so nothing was checked out; its branches: ${branches.join(", ")}; pass --branch <name> (kanon init --branch ${branches[0]} ${shown}); nothing was cloned`,
        );
      if (branches.length === 0)
        throw new KanonError(
          `${shown} is an empty repository: there is no Kanon home to clone yet (publish one from a machine that has it: add the remote there and run kanon push); nothing was cloned`,
        );
      throw new KanonError(
        `${shown} has no kanon.yaml at its root, so it is not a Kanon home; nothing was cloned (to start one, run "kanon init", add the repository as a remote and "kanon push")`,
      );
    }
    if (target === "empty") await rmdir(home);
    await rename(dest, home);
    cloned = true;
  } finally {
    await rm(tmp, { recursive: true, force: true });
    // Directories made for the home go too: a failed clone leaves the disk as it was.
    if (!cloned && createdParent) await rm(createdParent, { recursive: true, force: true });
  }
  out(io, `Cloned ${shown} into ${home}\n`);
}

/** The home, checked to be a git repository (what pull and push run in). */
async function gitHome(flags: GlobalFlags, io: Io): Promise<string> {
  const { home } = pathsOf(flags, io);
  const target = await cloneTarget(home);
  if (target === "missing")
    throw new KanonError(
      `${home} does not exist; run "kanon init <repo>" to clone your Kanon home, or pass --home`,
    );
  if (target === "file") throw new KanonError(`${home} is a file, not a directory; pass --home`);
  if ((await cloneTarget(join(home, ".git"))) === "missing") {
    throw new KanonError(
      `${home} is not a git repository; run "git init" there, or "kanon init <repo>" to clone your Kanon home`,
    );
  }
  return home;
}

/**
 * git in the home, its output streamed (with progress on a terminal); a failure is
 * `git [args]: exit status N` (the reference's form), or `failure: exit status N` when given.
 */
async function gitInHome(
  flags: GlobalFlags,
  args: string[],
  io: Io,
  options: { config?: string[]; failure?: string; progress?: boolean; secretUrls?: string[] } = {},
): Promise<void> {
  const home = await gitHome(flags, io);
  const progress = options.progress !== false && isTerminal(io.stderr) ? ["--progress"] : [];
  const secretUrls = options.secretUrls ?? (await remoteUrls(home, io));
  const r = await git(["-C", home, ...(options.config ?? []), ...args, ...progress], {
    io,
    stream: true,
    secretUrls,
  });
  if (r.failure) throw new KanonError(`${options.failure ?? `git [${args.join(" ")}]`}: ${r.failure}`);
}

export async function pullCommand(flags: GlobalFlags, io: Io): Promise<void> {
  await gitInHome(flags, ["pull", "--ff-only"], io);
}

/**
 * The first push of a new home sets its upstream (push.autoSetupRemote): add a remote, then kanon push.
 * What it would send is scanned first: a plaintext secret stops it (unless --allow-secrets).
 */
export async function pushCommand(
  flags: GlobalFlags,
  io: Io,
  opts: { allowSecrets?: boolean } = {},
): Promise<void> {
  const home = await gitHome(flags, io);
  if (!opts.allowSecrets) {
    const findings = await secretsToPush(home, io);
    if (findings.length > 0) throw pushRefusal(findings);
  }
  await gitInHome(flags, ["push"], io, { config: ["-c", "push.autoSetupRemote=true"] });
}

/** What the Go original names a failed pull in update: the fetch and the fast-forward are its two halves. */
const PULL_FAILED = "git [pull --ff-only]";

/**
 * `git pull --ff-only` in its two halves with a review between them, then the apply command itself
 * (prompt, ownership rules). After the fetch, when the fast-forward would move the home, the
 * incoming commits are rendered from their own tree and what they would make the agents run is
 * reviewed (cli/hook-review.ts reviewIncoming) before `git merge --ff-only` moves the home: a failed
 * pull, a refusal or a "no" leave the home where it was, and apply nothing. A dry run fetches and
 * shows what the update would bring (updateDryRun).
 */
export async function updateCommand(flags: GlobalFlags, opts: ApplyOptions, io: Io): Promise<number> {
  const home = await gitHome(flags, io);
  if (opts.dryRun) return updateDryRun(flags, home, opts, io);
  // A home mid-merge or mid-rebase says so (git's own pull error would not say what to do).
  assertSettledHome(home);
  const pulledFrom = homeHeadLog(home)?.head ?? null;
  // The remotes' URLs to hide, read once for both halves (a git process less than asking each time).
  const secretUrls = await remoteUrls(home, io);
  await gitInHome(flags, ["fetch"], io, { failure: PULL_FAILED, secretUrls });
  const next = await upstreamOf(home, io, PULL_FAILED);
  let accepted: string[] | undefined;
  if (next.moves) {
    const seen = await withIncoming(flags, home, next, io, (r, pull) => reviewIncoming(r, pull, opts, io));
    if (!seen.proceed) return 0;
    accepted = seen.accepted;
  }
  await gitInHome(flags, ["merge", "--ff-only", next.upstream], io, {
    failure: PULL_FAILED,
    progress: false,
    secretUrls,
  });
  await applyCommand(flags, { ...opts, pulledFrom, ...(accepted ? { accepted } : {}) }, io);
  return 0;
}

/**
 * `kanon update -n`: `git fetch` (it moves the remote-tracking refs, nothing else), then what the
 * update would bring — the review of the incoming commit and the diff applying it would make —
 * from its tree written out beside the home; the home's HEAD, index and files, the agents' files,
 * the record and reviewed.json are not touched. With nothing to pull it is `apply -n`. When the
 * update would stop before it applies (the fetch fails, no upstream, diverged histories) it says
 * why in one line on stderr, shows `apply -n` of the home as it is, and exits 1, as the update would.
 */
async function updateDryRun(flags: GlobalFlags, home: string, opts: ApplyOptions, io: Io): Promise<number> {
  assertSettledHome(home);
  const secretUrls = await remoteUrls(home, io);
  const fetched = await git(["-C", home, "fetch", "--quiet"], { io, secretUrls });
  const asItIs = async (why: string, status: number) => {
    if (status !== 0) err(io, `${why}\n`);
    out(
      io,
      `Dry run: ${status === 0 ? `${why}; ` : ""}what apply would change with the home as it is now:\n`,
    );
    await applyCommand(flags, opts, io);
    return status;
  };
  const cannot = "kanon update would stop here, so nothing incoming is shown";
  if (fetched.failure)
    return asItIs(`git fetch: ${gitReason(fetched.output) || fetched.failure}; ${cannot}`, 1);
  let next: Upstream;
  try {
    next = await upstreamOf(home, io, "git rev-parse @{upstream}");
  } catch (e) {
    if (!(e instanceof KanonError)) throw e;
    return asItIs(`${e.message}; ${cannot}`, 1);
  }
  const name = await upstreamName(home, io);
  if (!next.moves) {
    if (next.head === next.upstream) return asItIs(`nothing to pull (the home is at ${name})`, 0);
    const ahead = await git(["-C", home, "merge-base", "--is-ancestor", next.upstream, "HEAD"], { io });
    if (ahead.failure === null) return asItIs(`nothing to pull (the home is ahead of ${name})`, 0);
    return asItIs(
      `the home and ${name} have diverged (git merge --ff-only cannot join them: merge or rebase in the home first); ${cannot}`,
      1,
    );
  }
  const count = await git(
    ["-C", home, "rev-list", "--count", next.head ? `${next.head}..${next.upstream}` : next.upstream],
    { io },
  );
  out(
    io,
    `Dry run: fetched ${count.stdout.trim()} commit(s) from ${name} (up to ${short(next.upstream)}); what kanon update would bring, without pulling or writing:\n`,
  );
  const changes = await withIncoming(flags, home, next, io, async (r, pull) => {
    await reviewIncoming(r, pull, { dryRun: true }, io);
    const { changes } = (await planOf(r, io)).plan;
    // As the update's apply would, before it writes: a secret going into a file a project's git tracks.
    warn(io, await trackedSecretWarnings(r.scope, changes, r.secrets, io));
    return changes;
  });
  if (changes.length === 0) out(io, "No changes.\n");
  else {
    dryRunChanges(changes, opts, io);
    out(
      io,
      `Dry run: kanon update would apply ${changes.length} file change(s); nothing pulled or written.\n`,
    );
  }
  return 0;
}

/** The upstream's short name (`origin/main`), for messages. */
async function upstreamName(home: string, io: Io): Promise<string> {
  const r = await git(["-C", home, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"], {
    io,
  });
  return r.failure ? "the upstream" : r.stdout.trim();
}

/**
 * `use` on what the pull would bring: the incoming commit rendered from its tree, written out beside
 * the home, and the files it changes; messages name the home, not the temporary tree.
 */
async function withIncoming<T>(
  flags: GlobalFlags,
  home: string,
  next: Upstream,
  io: Io,
  use: (r: Rendered, pull: IncomingPull) => Promise<T>,
): Promise<T> {
  const changed = await changedPaths(home, next.head, next.upstream, io);
  return withTree(home, next.upstream, io, async (tree) => {
    const config = pathsOf(flags, io).config;
    const incoming: GlobalFlags = {
      ...flags,
      home: tree,
      config: isInside(home, config) ? join(tree, relative(home, config)) : config,
    };
    let r: Rendered;
    try {
      r = await loadRendered(incoming, io);
    } catch (e) {
      if (!(e instanceof KanonError)) throw e;
      throw new KanonError(
        `${e.message.replaceAll(tree, home)}\n(in the commits kanon update would pull, up to ${short(next.upstream)}: nothing was pulled or written)`,
      );
    }
    const pull: IncomingPull = {
      home,
      tree,
      changed,
      text: async (rel) => ({
        before: await textAt(home, next.head, rel, io),
        after: await textAt(home, next.upstream, rel, io),
      }),
    };
    return use(r, pull);
  });
}

const short = (commit: string | null) => (commit === null ? "no commit" : commit.slice(0, 7));
