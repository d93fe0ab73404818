/**
 * `kanon update -n` fetches and shows what the update would bring (the review of the incoming
 * commit and the diff applying it would make) without moving the home or writing anything else:
 * with real git, a bare remote and someone else's clone that pushes to it.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { snapshot } from "../support/cli.js";
import { clonedMachine } from "../support/git-remote.js";

const YAML = `version: 1
agents: [claude, codex]
instructions:
  files: [instructions/team.md]
hooks:
  - {name: fmt, event: PostToolUse, matcher: Edit, command: prettier --write}
`;
const INCOMING = `${YAML}  - {name: guard, event: PreToolUse, matcher: Bash, command: ~/.config/kanon/hooks/guard.sh}
mcp:
  servers:
    docs: {command: docs-mcp, args: [--stdio]}
`;
const GUARD = "#!/bin/sh\necho guarded\n";

// A home cloned from the remote and applied, as a user has it after `kanon init <remote>` and
// `kanon apply`: built once, put back before each test.
const { machine, home, git, push, k } = clonedMachine({
  "kanon.yaml": YAML,
  "instructions/team.md": "Be brief.\n",
});
const rev = (name: string) => git(home, "rev-parse", name).trim();

/**
 * Everything under $HOME as bytes, modes and link targets (the agents' files, kanon's state with the
 * record and reviewed.json, the home's files, its HEAD, index and branches), but what a fetch may
 * change: the objects it brings, FETCH_HEAD, and the remote-tracking refs and their logs.
 */
const everything = () =>
  snapshot(machine.home, {
    skip: /^\.config\/kanon\/\.git\/(objects|FETCH_HEAD|refs\/remotes|logs\/refs\/remotes|packed-refs)/,
  });

describe("kanon update -n with commits to pull", () => {
  it("fetches, shows the review and the diff of the incoming commit, and moves nothing else", async () => {
    push({ "kanon.yaml": INCOMING, "instructions/team.md": "Be terse.\n", "hooks/guard.sh": GUARD });
    const pushed = git(join(machine.work, "other"), "rev-parse", "HEAD").trim();
    const before = { tracking: rev("@{upstream}"), head: rev("HEAD"), all: everything() };
    expect(before.tracking).not.toBe(pushed);

    const r = await k("update", "-n");
    expect(r.status, r.stderr).toBe(0);
    // The fetch moved the remote-tracking ref, and nothing the user sees.
    expect(rev("@{upstream}")).toBe(pushed);
    expect(rev("HEAD")).toBe(before.head);
    expect(everything()).toEqual(before.all);
    expect(git(home, "status", "--porcelain")).toBe("");

    expect(r.stdout).toMatch(
      new RegExp(
        `^Dry run: fetched 1 commit\\(s\\) from origin/\\S+ \\(up to ${pushed.slice(0, 7)}\\); what kanon update would bring, without pulling or writing:\\n`,
      ),
    );
    // The review update would ask about: the hook, the server, and the script the pull adds, with its diff.
    expect(r.stdout).toContain(
      "New or changed since the last apply on this machine, and not written here:\n" +
        '  hook "guard" for codex, claude: PreToolUse Bash: ~/.config/kanon/hooks/guard.sh\n' +
        '  mcp server "docs" for codex, claude: docs-mcp --stdio\n' +
        '  script "hooks/guard.sh" for codex, claude: run by hook "guard"; the pull adds it\n' +
        "      --- /dev/null\n" +
        "      +++ b/hooks/guard.sh\n" +
        "      @@ -0,0 +1,2 @@\n" +
        "      +#!/bin/sh\n" +
        "      +echo guarded\n",
    );
    const n = /Dry run: kanon update would apply (\d+) file change\(s\); nothing pulled or written\.\n$/.exec(
      r.stdout,
    );
    expect(n).not.toBeNull();
    // The diff is what applying the incoming commit would change: once the home is there, diff says the same.
    const shown = r.stdout.slice(r.stdout.indexOf("--- ", r.stdout.indexOf("+echo guarded")), n!.index);
    git(home, "merge", "--quiet", "--ff-only", "@{upstream}");
    const diff = await k("diff");
    const stat = await k("diff", "--stat");
    expect(shown).toBe(diff.stdout + stat.stdout);
    expect(shown).toContain("+Be terse.\n");
    // And the update applies that many files.
    git(home, "reset", "--quiet", "--hard", before.head);
    const update = await k("update", "--yes", "--trust-hooks");
    expect(update.stdout).toContain(`Applied ${n![1]} file change(s).\n`);
  });

  it("--stat shows the review and the summary only", async () => {
    push({ "kanon.yaml": INCOMING, "hooks/guard.sh": GUARD });
    const r = await k("update", "-n", "--stat");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('  hook "guard" for codex, claude');
    // Right after the review (the script's diff ends it), the summary: no file's diff.
    expect(r.stdout).toMatch(
      /\+echo guarded\n {2}claude: 1 to create, 1 to update\n {2}codex: {2}1 to create, 1 to update\n4 file change\(s\): 2 to create, 2 to update\nDry run: kanon update would apply 4 file change\(s\); nothing pulled or written\.\n$/,
    );
  });
});

describe("kanon update -n into a project", () => {
  it("warns, as the update does, of a secret going into a file the project's git would track", async () => {
    const project = join(machine.work, "project");
    mkdirSync(project);
    git(project, "init", "--quiet");
    const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyz";
    expect((await machine.run(["--home", home, "secret", "set", "GH"], { input: token })).status).toBe(0);
    push({
      "kanon.yaml": `${YAML}mcp:\n  servers:\n    gh: {command: gh-mcp, env: {GITHUB_TOKEN: "\${secret:GH}"}, targets: [claude]}\n`,
    });
    const warning =
      "warning: .mcp.json will hold the secret GH and git would track it (it is not ignored): add .mcp.json to the project's .gitignore\n";
    const dry = await k("--project", project, "update", "-n");
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stderr).toBe(warning);
    expect(dry.stdout + dry.stderr).not.toContain(token);
    expect(existsSync(join(project, ".mcp.json"))).toBe(false);
    const update = await k("--project", project, "update", "--yes", "--trust-hooks");
    expect(update.status, update.stderr).toBe(0);
    expect(update.stderr).toBe(warning);
    expect(existsSync(join(project, ".mcp.json"))).toBe(true);
  });
});

describe("kanon update -n with nothing to pull", () => {
  it("says so, and shows what apply -n shows", async () => {
    push({ "instructions/team.md": "Be terse.\n" });
    git(home, "pull", "--quiet", "--ff-only");
    const before = everything();
    const r = await k("update", "-n");
    const apply = await k("apply", "-n");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      `Dry run: nothing to pull (the home is at origin/${git(home, "branch", "--show-current").trim()}); what apply would change with the home as it is now:\n${apply.stdout}`,
    );
    expect(r.stdout).toContain("+Be terse.\n");
    expect(everything()).toEqual(before);
  });

  it("says so when the home is ahead of its upstream (a commit not pushed yet)", async () => {
    writeFileSync(join(home, "instructions/team.md"), "Be kind.\n");
    git(
      home,
      "-c",
      "user.name=me",
      "-c",
      "user.email=me@example.invalid",
      "commit",
      "--quiet",
      "-am",
      "mine",
    );
    const before = everything();
    const r = await k("update", "-n");
    const apply = await k("apply", "-n");
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(r.stdout).toBe(
      `Dry run: nothing to pull (the home is ahead of origin/${git(home, "branch", "--show-current").trim()}); what apply would change with the home as it is now:\n${apply.stdout}`,
    );
    expect(r.stdout).toContain("+Be kind.\n");
    expect(everything()).toEqual(before);
  });
});

describe("kanon update -n when the update would stop", () => {
  const cases: [string, () => void, RegExp][] = [
    [
      "the fetch fails (the remote cannot be reached), its credentials never shown",
      () => git(home, "remote", "set-url", "origin", "https://me:s3cr3t-t0ken@127.0.0.1:1/home.git"),
      /^git fetch: .*; kanon update would stop here, so nothing incoming is shown\n$/,
    ],
    [
      "no upstream",
      () => git(home, "branch", "--quiet", "--unset-upstream"),
      /^git rev-parse @\{upstream\}: fatal: no upstream configured for branch '\S+'; kanon update would stop here, so nothing incoming is shown\n$/,
    ],
    [
      "the histories diverged",
      () => {
        push({ "instructions/team.md": "Be terse.\n" });
        git(
          home,
          "-c",
          "user.name=me",
          "-c",
          "user.email=me@example.invalid",
          "commit",
          "--quiet",
          "--allow-empty",
          "-m",
          "mine",
        );
      },
      /^the home and origin\/\S+ have diverged \(git merge --ff-only cannot join them: merge or rebase in the home first\); kanon update would stop here, so nothing incoming is shown\n$/,
    ],
  ];
  for (const [name, arrange, line] of cases) {
    it(`${name}: one line on stderr, the home as it is on stdout, exit status 1`, async () => {
      arrange();
      const before = everything();
      const r = await k("update", "-n");
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(line);
      expect(r.stderr).not.toContain("s3cr3t");
      expect(r.stdout).toBe(
        `Dry run: what apply would change with the home as it is now:\n${(await k("apply", "-n")).stdout}`,
      );
      expect(everything()).toEqual(before);
    });
  }
});
