/**
 * Syncing a Kanon home across machines with real git: a bare repository in a temp dir stands for the
 * remote, and two sandboxes (two HOMEs) for two machines. No network is used.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { KANON, type Sandbox, sandbox, sandboxEnv } from "../support/cli.js";

let a: Sandbox;
let b: Sandbox;
let remote: string;
let homeA: string;
let homeB: string;

function git(s: Sandbox, cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, env: sandboxEnv(s.home), encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

const ka = (...args: string[]) => a.run(["--home", homeA, ...args]);
const kb = (...args: string[]) => b.run(["--home", homeB, ...args]);

/**
 * Built once for this file (git processes cost far more than a copy), copied into each test's
 * sandbox: an empty bare remote, and a home that machine A started with kanon init and published to
 * it with kanon push (the tests below check both commands on their own).
 */
let fixture: { sandbox: Sandbox; remote: string; published: { home: string; remote: string } };
beforeAll(async () => {
  const f = sandbox();
  const remote = join(f.work, "remote.git");
  const published = {
    home: join(f.work, "published/kanon-home"),
    remote: join(f.work, "published/remote.git"),
  };
  git(f, f.work, "init", "--quiet", "--bare", remote);
  git(f, f.work, "init", "--quiet", "--bare", published.remote);
  expect((await f.run(["--home", published.home, "init"])).status).toBe(0);
  git(f, published.home, "remote", "add", "origin", published.remote);
  // The first kanon push sets the upstream.
  expect((await f.run(["--home", published.home, "push"])).status).toBe(0);
  fixture = { sandbox: f, remote, published };
});
afterAll(() => fixture.sandbox.cleanup());

const copy = (from: string, to: string) => cpSync(from, to, { recursive: true, verbatimSymlinks: true });

/** Machine A starts a home and publishes it to the bare remote (a copy of the fixture's). */
function publishFromA(): void {
  rmSync(remote, { recursive: true });
  copy(fixture.published.remote, remote);
  copy(fixture.published.home, homeA);
  const config = join(homeA, ".git/config");
  writeFileSync(config, readFileSync(config, "utf8").replace(fixture.published.remote, remote));
}

function commitOnA(text: string): void {
  writeFileSync(join(homeA, "instructions/shared.md"), text);
  git(a, homeA, "commit", "--quiet", "-am", "change instructions");
}

beforeEach(() => {
  a = sandbox();
  b = sandbox();
  remote = join(a.work, "remote.git");
  copy(fixture.remote, remote);
  homeA = join(a.work, "kanon-home");
  homeB = join(b.home, ".config", "kanon");
});
afterEach(() => {
  a.cleanup();
  b.cleanup();
});

describe("init", () => {
  it("scaffolds a commented starter, commits it, and says what to do next", async () => {
    const r = await ka("init");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`Initialized ${homeA}\nCommitted the starter files.\nNext steps:\n`);
    expect(r.stdout).toContain("diff");
    expect(r.stdout).toContain("apply");
    expect(r.stdout).toContain("remote add origin <url>");
    expect(r.stdout).toContain("push");
    expect(git(a, homeA, "log", "--format=%s")).toBe("Start a Kanon home\n");
    expect(git(a, homeA, "status", "--porcelain")).toBe("");
    const yaml = readFileSync(join(homeA, "kanon.yaml"), "utf8");
    // A short comment shows each section, and the file still validates as the Go original's starter.
    const comments = yaml
      .split("\n")
      .filter((l) => l.trimStart().startsWith("#"))
      .join("\n");
    for (const shown of ["AGENTS.md", "name: review", "git: {", "github:", "event: PreToolUse"])
      expect(comments).toContain(shown);
    expect(await ka("validate")).toMatchObject({ status: 0, stdout: "kanon.yaml is valid.\n", stderr: "" });
  });

  it("without a git identity, initializes the home and says how to commit", async () => {
    const r = await a.run(["--home", homeA, "init"], {
      env: {
        GIT_AUTHOR_NAME: undefined,
        GIT_AUTHOR_EMAIL: undefined,
        GIT_COMMITTER_NAME: undefined,
        GIT_COMMITTER_EMAIL: undefined,
        EMAIL: undefined,
      },
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Not committed: git has no identity here");
    expect(existsSync(join(homeA, ".git"))).toBe(true);
    expect(existsSync(join(homeA, "kanon.yaml"))).toBe(true);
  });

  it("refuses a --home that is a file, changing nothing", async () => {
    const file = join(a.work, "file");
    writeFileSync(file, "x");
    const r = await a.run(["--home", file, "init"]);
    expect(r).toMatchObject({
      status: 1,
      stdout: "",
      stderr: `${file} is a file, not a directory; choose another --home\n`,
    });
    expect(readFileSync(file, "utf8")).toBe("x");
  });
});

describe("two machines", () => {
  it("clone, apply, push, status ahead/behind, update", async () => {
    publishFromA();
    const clone = await kb("init", remote);
    expect(clone).toMatchObject({ status: 0, stdout: `Cloned ${remote} into ${homeB}\n`, stderr: "" });
    expect((await kb("apply", "--yes")).status).toBe(0);
    const agentsMd = join(b.home, ".codex/AGENTS.md");
    expect(readFileSync(agentsMd, "utf8")).toContain("Keep changes focused");

    commitOnA("# Shared\n\nSecond version.\n");
    const ahead = await ka("status");
    expect(ahead.stdout).toMatch(
      /^Branch \S+: 1 ahead origin\/\S+ \(as of the last fetch\); kanon push publishes\n/,
    );
    expect((await ka("status", "--json")).status).toBe(0);
    expect(JSON.parse((await ka("status", "--json")).stdout).source).toMatchObject({
      ahead: 1,
      behind: 0,
      git: "clean",
    });
    expect((await ka("push")).status).toBe(0);
    expect((await ka("status")).stdout).toMatch(
      /^Branch \S+: up to date with origin\/\S+ \(as of the last fetch\)\nGit status: clean\n/,
    );

    // status never fetches: B learns of the new commit only after a fetch.
    expect((await kb("status")).stdout).toMatch(/up to date with/);
    git(b, homeB, "fetch", "--quiet");
    expect((await kb("status")).stdout).toMatch(
      /^Branch \S+: 1 behind origin\/\S+ \(as of the last fetch\); kanon update brings them here\n/,
    );

    const update = await kb("update", "--yes");
    expect(update.status).toBe(0);
    expect(update.stdout).toContain("Applied 3 file change(s).\n");
    expect(readFileSync(agentsMd, "utf8")).toBe("# Shared\n\nSecond version.\n");
    expect(await kb("diff", "--exit-code")).toMatchObject({ status: 0, stdout: "No changes.\n" });
  });

  it("a diverged history: pull refuses and update applies nothing", async () => {
    publishFromA();
    expect((await kb("init", remote)).status).toBe(0);
    expect((await kb("apply", "--yes")).status).toBe(0);
    commitOnA("# from A\n");
    expect((await ka("push")).status).toBe(0);
    writeFileSync(join(homeB, "instructions/shared.md"), "# from B\n");
    git(b, homeB, "commit", "--quiet", "-am", "change on B");
    const agentsMd = join(b.home, ".codex/AGENTS.md");
    const before = readFileSync(agentsMd, "utf8");

    const pull = await kb("pull");
    expect(pull.status).toBe(1);
    expect(pull.stderr.trimEnd().split("\n").at(-1)).toBe("git [pull --ff-only]: exit status 128");
    const update = await kb("update", "--yes");
    expect(update.status).toBe(1);
    expect(update.stderr.trimEnd().split("\n").at(-1)).toBe("git [pull --ff-only]: exit status 128");
    expect(update.stdout).not.toContain("Applied");
    expect(readFileSync(agentsMd, "utf8")).toBe(before);
    expect((await kb("status")).stdout).toMatch(/1 ahead, 1 behind .*diverged/);
  });

  it("update -n fetches and shows the incoming diff, moving neither the home nor the agents' files", async () => {
    publishFromA();
    expect((await kb("init", remote)).status).toBe(0);
    expect((await kb("apply", "--yes")).status).toBe(0);
    commitOnA("# dry\n");
    expect((await ka("push")).status).toBe(0);
    const head = git(b, homeB, "rev-parse", "HEAD");
    const agentsMd = readFileSync(join(b.home, ".codex/AGENTS.md"), "utf8");
    const r = await kb("update", "-n");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Dry run: fetched 1 commit\(s\) from origin\/\S+ \(up to [0-9a-f]{7}\); /);
    expect(r.stdout).toContain("+# dry\n");
    expect(r.stdout).toMatch(
      /Dry run: kanon update would apply 3 file change\(s\); nothing pulled or written\.\n$/,
    );
    expect(git(b, homeB, "rev-parse", "HEAD")).toBe(head);
    expect(git(b, homeB, "rev-parse", "@{upstream}")).not.toBe(head);
    expect(readFileSync(join(homeB, "instructions/shared.md"), "utf8")).not.toBe("# dry\n");
    expect(readFileSync(join(b.home, ".codex/AGENTS.md"), "utf8")).toBe(agentsMd);
    // The real update pulls and applies.
    expect((await kb("update", "--yes")).stdout).toContain("Applied 3 file change(s).\n");
    expect(readFileSync(join(b.home, ".codex/AGENTS.md"), "utf8")).toContain("# dry");
  });
});

describe("status of the home", () => {
  it("lists uncommitted changes and shows a branch without upstream", async () => {
    expect((await ka("init")).status).toBe(0);
    writeFileSync(join(homeA, "instructions/shared.md"), "edited\n");
    writeFileSync(join(homeA, "notes.md"), "new\n");
    const r = await ka("status");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^Branch (\S+): no upstream \(git push -u origin \1 sets one\)\nUncommitted changes in the home:\n M instructions\/shared\.md\n\?\? notes\.md\n/,
    );
  });

  it("looks at the home even when GIT_DIR points elsewhere (kanon run from a git hook)", async () => {
    expect((await ka("init")).status).toBe(0);
    writeFileSync(join(homeA, "notes.md"), "new\n");
    const r = await a.run(["--home", homeA, "status"], { env: { GIT_DIR: join(a.work, "nowhere", ".git") } });
    expect(r.stdout).toContain("Uncommitted changes in the home:\n?? notes.md\n");
  });

  it("says once that a home is not a git repository, with what to do", async () => {
    expect((await ka("init", "--no-git")).status).toBe(0);
    const r = await ka("status");
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      `Git status unavailable: ${homeA} is not a git repository; run "git init" there, or "kanon init <repo>" to clone your Kanon home\n`,
    );
    expect(await ka("pull")).toMatchObject({
      status: 1,
      stderr: `${homeA} is not a git repository; run "git init" there, or "kanon init <repo>" to clone your Kanon home\n`,
    });
  });
});

describe("init <repo>: bad input changes nothing", () => {
  const leftovers = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

  it("an existing home is an error naming it", async () => {
    publishFromA();
    mkdirSync(homeB, { recursive: true });
    writeFileSync(join(homeB, "kanon.yaml"), "version: 1\n");
    const r = await kb("init", remote);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `${homeB} already exists and is not empty; remove it or choose another --home (to sync an existing home, run "kanon pull" there)\n`,
    );
    expect(readdirSync(homeB)).toEqual(["kanon.yaml"]);
  });

  it("an unreachable URL with credentials: one line, no secret, no partial home", async () => {
    const url = "http://alice:s3cret-token@127.0.0.1:9/home.git";
    const r = await kb("init", url);
    expect(r.status).toBe(1);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^git clone http:\/\/redacted@127\.0\.0\.1:9\/home\.git: exit status 128: fatal: /,
    );
    expect(r.stderr).not.toContain("s3cret");
    expect(r.stderr).not.toContain("alice");
    expect(existsSync(homeB)).toBe(false);
    expect(leftovers(join(b.home, ".config"))).toEqual([]);
  });

  it("a path that is not a repository", async () => {
    const notRepo = join(b.work, "plain-dir");
    mkdirSync(notRepo);
    const r = await kb("init", notRepo);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^git clone ${notRepo}: exit status 128: fatal: .*\n$`));
    expect(existsSync(homeB)).toBe(false);
  });

  it("a repository without kanon.yaml", async () => {
    const other = join(a.work, "other");
    mkdirSync(other);
    git(a, other, "init", "--quiet");
    writeFileSync(join(other, "README.md"), "not a home\n");
    git(a, other, "add", ".");
    git(a, other, "commit", "--quiet", "-m", "x");
    const r = await kb("init", other);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `${other} has no kanon.yaml at its root, so it is not a Kanon home; nothing was cloned (to start one, run "kanon init", add the repository as a remote and "kanon push")\n`,
    );
    expect(existsSync(homeB)).toBe(false);
    expect(leftovers(join(b.home, ".config"))).toEqual([]);
  });

  it("an empty existing directory is fine", async () => {
    publishFromA();
    mkdirSync(homeB, { recursive: true });
    expect((await kb("init", remote)).status).toBe(0);
    expect(existsSync(join(homeB, "kanon.yaml"))).toBe(true);
  });
});

describe("--home pointing at a file", () => {
  it("every command says so in one line and changes nothing", async () => {
    const file = join(a.work, "file");
    writeFileSync(file, "x");
    for (const cmd of [
      ["diff"],
      ["status"],
      ["apply", "--yes"],
      ["update", "--yes"],
      ["pull"],
      ["push"],
      ["init", remote],
    ]) {
      const r = await a.run(["--home", file, ...cmd]);
      expect(r.status).toBe(1);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(`${file} is a file`);
    }
    expect(readFileSync(file, "utf8")).toBe("x");
  });
});

describe("progress", () => {
  it("a clone on a terminal shows progress; in a pipe it is silent (tested above)", async () => {
    publishFromA();
    const r = await b.run(["--home", homeB, "init", remote], { terminal: true });
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`Cloning ${remote}…`);
    expect(r.stdout + r.stderr).toContain(`Cloned ${remote} into ${homeB}`);
  });
});

describe("a closed stdout", () => {
  /** kanon with its stdout closed before it writes: it exits quietly. */
  function closed(s: Sandbox, args: string[]): Promise<{ status: number | null; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [KANON, ...args], { cwd: s.work, env: sandboxEnv(s.home) });
      child.stdout.destroy();
      child.stdin.end();
      let stderr = "";
      child.stderr.on("data", (b: Buffer) => {
        stderr += b.toString();
      });
      child.on("close", (status) => resolve({ status, stderr }));
    });
  }

  it("init <repo>, pull, push, update and status exit quietly", async () => {
    publishFromA();
    for (const args of [["init", remote], ["pull"], ["push"], ["update", "--yes"], ["status"]]) {
      const r = await closed(b, ["--home", homeB, ...args]);
      expect(r.stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
      expect(r.status).toBe(0);
    }
  });
});
