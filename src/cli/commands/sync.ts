/**
 * Sync the Kanon home across machines: `init <repo>` clones it, `pull` and `push` run git in it, and
 * `update` pulls and then applies exactly as `kanon apply` does.
 */
import { lstat, mkdir, mkdtemp, readdir, rename, rm, rmdir } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { osErrorText } from "../../model/fs-errors.js";
import { KanonError } from "../../model/types.js";
import { redactUrl } from "../../providers/git.js";
import { err, type GlobalFlags, type Io, isTerminal, out } from "../context.js";
import { git, gitReason, remoteUrls } from "../home-git.js";
import { homeHeadLog } from "../hook-review.js";
import { pathsOf } from "../pipeline.js";
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
export async function cloneCommand(flags: GlobalFlags, repo: string, io: Io): Promise<void> {
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
    const r = await git(["clone", ...(progress ? ["--progress"] : ["--quiet"]), "--", repo, dest], {
      io,
      stream: progress,
      secretUrl: repo,
    });
    if (r.failure) {
      const reason = gitReason(r.output);
      throw new KanonError(`git clone ${shown}: ${r.failure}${reason ? `: ${reason}` : ""}`);
    }
    if ((await cloneTarget(join(dest, "kanon.yaml"))) === "missing") {
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

/** git in the home, its output streamed; a failure is `git [args]: exit status N` (the reference's form). */
async function gitInHome(flags: GlobalFlags, args: string[], io: Io, config: string[] = []): Promise<void> {
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
  const progress = isTerminal(io.stderr) ? ["--progress"] : [];
  const secretUrls = await remoteUrls(home, io);
  const r = await git(["-C", home, ...config, ...args, ...progress], { io, stream: true, secretUrls });
  if (r.failure) throw new KanonError(`git [${args.join(" ")}]: ${r.failure}`);
}

export async function pullCommand(flags: GlobalFlags, io: Io): Promise<void> {
  await gitInHome(flags, ["pull", "--ff-only"], io);
}

/** The first push of a new home sets its upstream (push.autoSetupRemote): add a remote, then kanon push. */
export async function pushCommand(flags: GlobalFlags, io: Io): Promise<void> {
  await gitInHome(flags, ["push"], io, ["-c", "push.autoSetupRemote=true"]);
}

/** Pull, then the apply command itself (prompt, dry run, ownership rules); a failed pull applies nothing. */
export async function updateCommand(flags: GlobalFlags, opts: ApplyOptions, io: Io): Promise<void> {
  const pulledFrom = homeHeadLog(pathsOf(flags, io).home)?.head ?? null;
  await pullCommand(flags, io);
  await applyCommand(flags, { ...opts, pulledFrom }, io);
}
