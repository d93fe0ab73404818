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
import { err, type GlobalFlags, type Io, isTerminal, out } from "../context.js";
import { branchState, git, gitReason, remoteUrls } from "../home-git.js";
import { homeHeadLog, type IncomingPull, reviewIncoming } from "../hook-review.js";
import { changedPaths, textAt, type Upstream, upstreamOf, withTree } from "../incoming.js";
import { loadRendered, pathsOf, type Rendered } from "../pipeline.js";
import { pushRefusal, secretsToPush } from "../push-guard.js";
import { type ApplyOptions, applyCommand } from "./render.js";

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
 * pull, a refusal or a "no" leave the home where it was, and apply nothing. A dry run changes
 * nothing, the home included: it does not pull, and says what apply would do with the home as it is.
 */
export async function updateCommand(flags: GlobalFlags, opts: ApplyOptions, io: Io): Promise<void> {
  const home = await gitHome(flags, io);
  if (opts.dryRun) {
    const b = await branchState(home, io);
    const behind =
      "error" in b || b.behind === 0 || !b.upstream
        ? ""
        : ` (${b.behind} commit(s) behind ${b.upstream} as of the last fetch, which a real update pulls first)`;
    out(io, `Dry run: not pulling; what apply would change with the home as it is now${behind}:\n`);
    await applyCommand(flags, opts, io);
    return;
  }
  // A home mid-merge or mid-rebase says so (git's own pull error would not say what to do).
  assertSettledHome(home);
  const pulledFrom = homeHeadLog(home)?.head ?? null;
  // The remotes' URLs to hide, read once for both halves (a git process less than asking each time).
  const secretUrls = await remoteUrls(home, io);
  await gitInHome(flags, ["fetch"], io, { failure: PULL_FAILED, secretUrls });
  const next = await upstreamOf(home, io, PULL_FAILED);
  let accepted: string[] | undefined;
  if (next.moves) {
    const seen = await reviewPull(flags, home, next, opts, io);
    if (!seen.proceed) return;
    accepted = seen.accepted;
  }
  await gitInHome(flags, ["merge", "--ff-only", next.upstream], io, {
    failure: PULL_FAILED,
    progress: false,
    secretUrls,
  });
  await applyCommand(flags, { ...opts, pulledFrom, ...(accepted ? { accepted } : {}) }, io);
}

/** The review of what the pull would bring, on its tree written out beside the home; messages name the home. */
async function reviewPull(
  flags: GlobalFlags,
  home: string,
  next: Upstream,
  opts: ApplyOptions,
  io: Io,
): Promise<{ proceed: boolean; accepted: string[] }> {
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
    return reviewIncoming(r, pull, opts, io);
  });
}

const short = (commit: string | null) => (commit === null ? "no commit" : commit.slice(0, 7));
