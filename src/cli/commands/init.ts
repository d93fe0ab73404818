/** `kanon init`: scaffold a new Kanon home (the Go original's starter files, plus comments and a first commit). */
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stateBase } from "../../destination/state.js";
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
  // --force replaces the starter files; anything else there is kept first, never lost.
  const saved = opts.force ? await saveReplaced(home, io) : "";
  for (const dir of ["instructions", "skills", "hooks", ".kanon"]) {
    await mkdir(join(home, dir), { recursive: true, mode: 0o755 }).catch((e: unknown) => {
      throw new KanonError(`cannot create ${join(home, dir)}: ${osErrorText(e)}`);
    });
  }
  await writeFile(config, STARTER_CONFIG, { mode: 0o644 });
  const shared = join(home, "instructions", "shared.md");
  if (opts.force || !(await exists(shared))) await writeFile(shared, STARTER_INSTRUCTIONS, { mode: 0o644 });
  const gitignore = join(home, ".gitignore");
  if (opts.force || !(await exists(gitignore))) await writeFile(gitignore, ".kanon/\n", { mode: 0o644 });
  const note =
    opts.git !== false
      ? await setUpGit(home, io, { message: "Start a Kanon home", done: "Committed the starter files." })
      : "";
  out(io, `Initialized ${home}\n${saved}${note}${nextSteps(flags, home)}`);
}

/**
 * The starter files `init --force` would replace that hold something else (an imported home's
 * kanon.yaml, your instructions) are copied first into the state directory, outside the home and
 * never pushed; returns the lines that say where.
 */
async function saveReplaced(home: string, io: Io): Promise<string> {
  const starter: [string, string][] = [
    ["kanon.yaml", STARTER_CONFIG],
    [join("instructions", "shared.md"), STARTER_INSTRUCTIONS],
    [".gitignore", ".kanon/\n"],
  ];
  const dir = join(
    stateBase(io.env, io.userHome),
    "backups",
    `${new Date().toISOString().replace(/[:.]/g, "-")}-init`,
  );
  let lines = "";
  for (const [rel, text] of starter) {
    const path = join(home, rel);
    let current: Buffer;
    try {
      current = readBounded(path, { limit: READ_LIMIT.home }).bytes;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw new KanonError(
        `cannot save ${path} before replacing it: ${e instanceof ReadRefused ? e.reason : osErrorText(e)}; nothing was replaced`,
      );
    }
    if (current.equals(Buffer.from(text))) continue;
    const backup = join(dir, rel);
    try {
      await mkdir(join(backup, ".."), { recursive: true, mode: 0o700 });
      await writeFile(backup, current, { mode: 0o600, flag: "wx" });
    } catch (e) {
      throw new KanonError(
        `cannot save ${path} before replacing it: ${osErrorText(e)}; nothing was replaced`,
      );
    }
    lines += `Saved the ${rel} it replaces in ${backup}\n`;
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
  if (!(await exists(gitignore))) await writeFile(gitignore, ".kanon/\n", { mode: 0o644 });
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
