/** `kanon init`: scaffold a new Kanon home (the Go original's starter files, plus comments and a first commit). */
import { lstat, mkdir, readlink, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { stateBase } from "../../destination/state.js";
import { tempPathFor } from "../../destination/temp-name.js";
import { READ_LIMIT, ReadRefused, readBounded } from "../../model/bounded-read.js";
import { osErrorText } from "../../model/fs-errors.js";
import { KanonError } from "../../model/types.js";
import { type GlobalFlags, type Io, out } from "../context.js";
import { git, gitReason } from "../home-git.js";
import { pathsOf } from "../pipeline.js";

/** The starter kanon.yaml: the Go original's, with a short comment showing each section. */
export const STARTER_CONFIG = `# The source of your coding agents' settings. kanon diff shows what it renders; kanon apply writes it.
# Every field: kanon schema. Paths are relative to this Kanon home.
version: 1
instructions:
  # Joined with a blank line into AGENTS.md / CLAUDE.md of every agent.
  files:
    - instructions/shared.md
# skills/<name>/SKILL.md renders for every agent; entries narrow or disable a skill, or add a git provider:
#   - name: review
#     targets: [claude, codex]
#   - git: { url: https://github.com/acme/agent-skills.git, ref: main }
skills: []
# commands/<name>.md (slash commands) and agents/<name>.md (subagents) render for every agent that
# has them (kanon commands, kanon agents); entries under commands: and subagents: narrow, disable or
# rename one, as for skills.
mcp:
  # MCP servers by name, e.g.
  #   github:
  #     command: github-mcp
  #     env: { GITHUB_TOKEN: "\${GITHUB_TOKEN}" }
  servers: {}
# Hooks in Claude Code's shape; kanon hooks shows how each one renders for each agent:
#   - name: guard-bash
#     event: PreToolUse
#     matcher: Bash
#     command: /usr/local/bin/guard
hooks: []
`;
export const STARTER_INSTRUCTIONS =
  "# Shared Agent Instructions\n\nKeep changes focused and explain tradeoffs clearly.\n";

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

/** A starter file init writes, and what is at its path now (null: nothing). */
interface Starter {
  rel: string;
  path: string;
  text: string;
  found: { bytes: Buffer } | { link: string } | null;
}

export async function initCommand(
  flags: GlobalFlags,
  opts: { force?: boolean; git?: boolean },
  io: Io,
): Promise<void> {
  const { home } = pathsOf(flags, io);
  const st = await stat(home).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return null;
    if (e.code === "ENOTDIR") return { isDirectory: () => false };
    throw new KanonError(`stat ${home}: ${osErrorText(e)}`);
  });
  if (st && !st.isDirectory())
    throw new KanonError(`${home} is a file, not a directory; choose another --home`);
  const config = join(home, "kanon.yaml");
  if ((await exists(config)) && !opts.force) {
    throw new KanonError(`${config} already exists; pass --force to overwrite`);
  }
  const wasRepository = await exists(join(home, ".git"));
  // kanon.yaml always; the others when missing, or with --force. A file that already holds the
  // starter's bytes is left as it is; anything else is copied into the state directory first.
  const starters: Starter[] = [];
  for (const [rel, text] of [
    ["kanon.yaml", STARTER_CONFIG],
    [join("instructions", "shared.md"), STARTER_INSTRUCTIONS],
    [".gitignore", GITIGNORE],
  ] as const) {
    const path = join(home, rel);
    if (rel !== "kanon.yaml" && !opts.force && (await lexists(path))) continue;
    const found = await foundAt(path);
    if (found && "bytes" in found && found.bytes.equals(Buffer.from(text))) continue;
    starters.push({ rel, path, text, found });
  }
  for (const dir of FOLDERS) {
    const at = join(home, dir);
    if ((await stat(at).catch(() => null))?.isDirectory() === false || (await brokenLink(at)))
      throw new KanonError(`cannot create the folder ${at}: a file is in the way; nothing was changed`);
  }
  const saved = await writeStarters(home, starters, io);
  const written = starters.length > 0;
  const note =
    opts.git === false
      ? ""
      : wasRepository
        ? written
          ? `Not committed: ${home} was a git repository already (git -C ${home} status lists the starter files).\n`
          : ""
        : await setUpGit(home, io, { message: "Start a Kanon home", done: "Committed the starter files." });
  out(io, `Initialized ${home}\n${saved}${note}${nextSteps(flags, home)}`);
}

const GITIGNORE = ".kanon/\n";
const FOLDERS = ["instructions", "skills", "hooks", ".kanon"];

/** A symlink whose target does not exist (mkdir fails on it as on a file). */
const brokenLink = async (p: string) =>
  (await lstat(p).catch(() => null))?.isSymbolicLink() === true && !(await exists(p));

const lexists = (p: string) =>
  lstat(p).then(
    () => true,
    () => false,
  );

/**
 * What is at a starter file's path: nothing, a symlink (replaced by the file, its target left as it
 * is), or a regular file's bytes. Anything else stops init before it changes anything.
 */
async function foundAt(path: string): Promise<Starter["found"]> {
  const refuse = (why: string) => new KanonError(`cannot write ${path}: ${why}; nothing was changed`);
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    throw refuse(code === "ENOTDIR" ? "a folder above it is a file" : osErrorText(e));
  }
  if (st.isSymbolicLink()) return { link: await readlink(path) };
  if (st.isDirectory()) throw refuse("it is a directory");
  try {
    return { bytes: readBounded(path, { limit: READ_LIMIT.home }).bytes };
  } catch (e) {
    throw refuse(`cannot save a copy of it: ${e instanceof ReadRefused ? e.reason : osErrorText(e)}`);
  }
}

/**
 * Writes the starter files, all or none: the home's folders are made, each file init replaces is
 * copied into the state directory (outside the home, never pushed), every file is written beside
 * its place, and only then are they renamed into place. A failure before the renames takes back
 * what this run made (folders, copies, temporary files). Returns the lines that say where each
 * copy is.
 */
async function writeStarters(home: string, starters: readonly Starter[], io: Io): Promise<string> {
  const backups = join(
    stateBase(io.env, io.userHome),
    "backups",
    `${new Date().toISOString().replace(/[:.]/g, "-")}-init`,
  );
  const made: string[] = [];
  const staged: string[] = [];
  const mkdirs = async (dir: string, mode: number) => {
    const first = await mkdir(dir, { recursive: true, mode });
    if (first) made.push(first);
  };
  let lines = "";
  try {
    for (const dir of FOLDERS) await mkdirs(join(home, dir), 0o755);
    for (const s of starters) {
      if (!s.found) continue;
      const copy = join(backups, s.rel);
      try {
        await mkdirs(dirname(copy), 0o700);
        if ("link" in s.found) await symlink(s.found.link, copy);
        else await writeFile(copy, s.found.bytes, { mode: 0o600, flag: "wx" });
      } catch (e) {
        throw new KanonError(`cannot save a copy of ${s.path} in ${backups}: ${osErrorText(e)}`);
      }
      const what = "link" in s.found ? `, a symlink to ${s.found.link} (that file is left as it is),` : "";
      lines += `Saved the ${s.rel} it replaces${what} in ${copy}\n`;
    }
    for (const s of starters) {
      const temp = tempPathFor(s.path);
      staged.push(temp);
      // Named by the file it becomes: the temporary name means nothing to the user.
      await writeFile(temp, s.text, { mode: 0o644, flag: "wx" }).catch((e: unknown) => {
        throw new KanonError(`cannot write ${s.path}: ${osErrorText(e)}`);
      });
    }
  } catch (e) {
    const quietly = (p: Promise<unknown>) => p.catch(() => {});
    for (const temp of staged) await quietly(rm(temp, { force: true }));
    for (const dir of made.reverse()) await quietly(rm(dir, { recursive: true, force: true }));
    const why =
      e instanceof KanonError
        ? e.message
        : `cannot write ${(e as NodeJS.ErrnoException).path ?? home}: ${osErrorText(e)}`;
    throw new KanonError(`${why}; nothing was changed`);
  }
  // Renames in the home's own folders: the copies are saved, so none of them can lose anything.
  for (const [i, s] of starters.entries()) {
    try {
      await rename(staged[i]!, s.path);
    } catch (e) {
      for (const temp of staged.slice(i)) await rm(temp, { force: true }).catch(() => {});
      const done = starters.slice(0, i).map((d) => d.rel);
      throw new KanonError(
        `cannot write ${s.path}: ${osErrorText(e)}${done.length > 0 ? `; ${done.join(", ")} written before it` : "; nothing was changed"}${lines ? ` (copies of the files replaced are in ${backups})` : ""}`,
      );
    }
  }
  return lines;
}

/**
 * A home that is not a git repository yet becomes one (the .gitignore for kanon's own folder, git
 * init, a first commit): what `kanon init` and `kanon import --write` do. Returns what to tell the user.
 */
export async function setUpGit(
  home: string,
  io: Io,
  commit: { message: string; done: string },
): Promise<string> {
  if (await exists(join(home, ".git"))) return "";
  const gitignore = join(home, ".gitignore");
  if (!(await exists(gitignore))) await writeFile(gitignore, GITIGNORE, { mode: 0o644 });
  const init = await git(["-C", home, "init", "--quiet"], { io });
  if (init.failure) throw new KanonError(`git init: ${init.failure}: ${gitReason(init.output)}`);
  return firstCommit(home, io, commit);
}

/**
 * Commit the starter files when git knows who you are (user.useConfigOnly: never an identity git
 * guessed from the host name); otherwise say how to set one. Either way the home is ready.
 */
async function firstCommit(home: string, io: Io, c: { message: string; done: string }): Promise<string> {
  const add = await git(["-C", home, "add", "--all"], { io });
  const commit = add.failure
    ? add
    : await git(["-C", home, "-c", "user.useConfigOnly=true", "commit", "--quiet", "-m", c.message], {
        io,
      });
  if (!commit.failure) return `${c.done}\n`;
  const identity = /user\.email|user\.name|identity|who you are/i.test(commit.output);
  return identity
    ? 'Not committed: git has no identity here (git config --global user.name "…" and user.email "…", then commit).\n'
    : `Not committed: git commit: ${commit.failure}: ${gitReason(commit.output)}\n`;
}

function nextSteps(flags: GlobalFlags, home: string): string {
  const k = flags.home ? `kanon --home ${flags.home}` : "kanon";
  return `Next steps:
  1. edit ${join(home, "kanon.yaml")} and ${join(home, "instructions", "shared.md")}
  2. ${k} diff      see what it would write
  3. ${k} apply     write it
  4. git -C ${home} remote add origin <url> && ${k} push      keep it for your other machines
`;
}
