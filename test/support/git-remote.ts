/**
 * A remote for a Kanon home, and someone else who pushes to it: a bare repository and a clone of it,
 * with real git.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { type Run, restoredSandbox, type Sandbox, sandboxEnv } from "./cli.js";
import { importCommit } from "./git-import.js";

export interface OtherClone {
  /** Makes the empty remote and clones it. */
  create(): void;
  /** `git ...args` in `dir`, as this machine's user; its stdout. Throws on failure. */
  git(dir: string, ...args: string[]): string;
  /**
   * Writes `files` (paths relative to the clone) in the clone, commits them and pushes the commit.
   * The clone's index is not kept up to date (test/support/git-import.ts): git in the clone sees the
   * files as staged for removal, and `push` is all that works there.
   */
  push(files: Record<string, string>): void;
}

/**
 * A bare repository at `remote` and a clone of it at `other` (made by `create`), git's environment
 * that of `home`'s sandbox. `push` publishes a commit as `git push` leaves it: the new objects in the
 * remote (in the pack fast-import wrote, where a push of a few would leave them loose: the same
 * objects), its branch at the commit, the clone's origin/<branch> with it. Copying them takes no
 * process; the push took five (receive-pack, pack-objects, unpack-objects, rev-list, for-each-ref),
 * ~0.1 s of CPU here. The commit is one `git fast-import` where `git add` and `git commit` took two.
 */
export function otherClone(remote: string, other: string, home: string): OtherClone {
  const git = (dir: string, ...args: string[]): string => {
    const r = spawnSync("git", args, { cwd: dir, env: sandboxEnv(home), encoding: "utf8" });
    if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  return {
    git,
    create() {
      git(dirname(remote), "init", "--quiet", "--bare", remote);
      git(dirname(other), "clone", "--quiet", remote, other);
    },
    push(files) {
      for (const [rel, text] of Object.entries(files)) {
        mkdirSync(dirname(join(other, rel)), { recursive: true });
        writeFileSync(join(other, rel), text);
      }
      const ref = /^ref: refs\/heads\/(.+)\n$/.exec(readFileSync(join(other, ".git/HEAD"), "utf8"))![1]!;
      const tip = (repo: string) =>
        existsSync(join(repo, ref)) ? readFileSync(join(repo, ref), "utf8") : "";
      // As git push would refuse it: the remote's branch moved since this clone last pushed.
      if (tip(join(remote, "refs/heads")) !== tip(join(other, ".git/refs/heads"))) {
        throw new Error(`push to ${remote}: not a fast-forward`);
      }
      const sha = `${importCommit(other, sandboxEnv(home), `refs/heads/${ref}`, files, "change")}\n`;
      // Objects the remote has are the same files: copying leaves them as they are.
      cpSync(join(other, ".git/objects"), join(remote, "objects"), { recursive: true, force: false });
      writeFileSync(join(remote, "refs/heads", ref), sha);
      mkdirSync(join(other, ".git/refs/remotes/origin"), { recursive: true });
      writeFileSync(join(other, ".git/refs/remotes/origin", ref), sha);
    },
  };
}

/** This machine, with a Kanon home cloned from a remote and applied, and someone else who pushes to it. */
export interface ClonedMachine extends OtherClone {
  /** This machine's sandbox: $HOME, and a work folder that holds the remote and the other clone. */
  machine: Sandbox;
  /** The bare repository, `<work>/remote.git`. */
  remote: string;
  /** This machine's Kanon home, `~/.config/kanon`, as `kanon init <remote>` made it. */
  home: string;
  /** `kanon --home <home> ...args` on this machine. */
  k(...args: string[]): Promise<Run>;
}

/**
 * A home as a user has it after `kanon init <remote>` and `kanon apply`: someone else pushed `files`
 * (paths relative to the home) to the remote, this machine cloned and applied it. Built once for the
 * calling file, put back before each test (restoredSandbox).
 */
export function clonedMachine(files: Record<string, string>): ClonedMachine {
  const machine = restoredSandbox(async () => {
    other.create();
    other.push(files);
    expect((await k("init", remote)).status).toBe(0);
    expect((await k("apply", "--yes", "--trust-hooks")).status).toBe(0);
  });
  const remote = join(machine.work, "remote.git");
  const home = join(machine.home, ".config", "kanon");
  const other = otherClone(remote, join(machine.work, "other"), machine.home);
  const k = (...args: string[]) => machine.run(["--home", home, ...args]);
  return { ...other, machine, remote, home, k };
}
