/**
 * The first hour of a real user (issue 28), on a HOME configured by hand for all five agents
 * (test/fixtures/import/five-agents: a literal token in Claude, Codex and Kimi Code, `{env:…}` in
 * OpenCode, `$VAR` in Gemini CLI, a bearer variable spelt four ways, comments, the user's own hooks
 * and an OpenCode plugin), then a second machine synced through a real bare repository.
 * The imported kanon.yaml and the warnings are golden files (`UPDATE_GOLDEN=1` rewrites them).
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ROOT, type Sandbox, sandbox, sandboxEnv, snapshot } from "../support/cli.js";
import { InProcessTerminal } from "../support/pty.js";

const TOKEN = "ghp_k4N0nF1xtur3T0k3nAAAAAAAAAAAAAAAAAAAA";
const GOLDEN = join(ROOT, "test/golden/import");

let a: Sandbox;
let b: Sandbox;
let remote: string;
let homeA: string;
let homeB: string;

const ka = async (...args: string[]) => a.run(["--home", homeA, ...args]);
const kb = async (...args: string[]) => b.run(["--home", homeB, ...args]);

function git(s: Sandbox, cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, env: sandboxEnv(s.home), encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** Every file under `dir` but the state directory and the Kanon home: path → bytes and mode. */
const settings = (dir: string) => snapshot(dir, { skip: /^\.local\/state|^\.config\/kanon/ });

const golden = (name: string, text: string) => {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN) writeFileSync(path, text);
  expect(text).toBe(readFileSync(path, "utf8"));
};

const mode = (path: string) => statSync(path).mode & 0o777;

beforeEach(() => {
  a = sandbox();
  b = sandbox();
  cpSync(join(ROOT, "test/fixtures/import/five-agents"), a.home, { recursive: true });
  remote = join(a.work, "remote.git");
  spawnSync("git", ["init", "--quiet", "--bare", remote], { env: sandboxEnv(a.home) });
  homeA = join(a.work, "kanon-home");
  homeB = join(b.home, ".config", "kanon");
});
afterEach(() => {
  a.cleanup();
  b.cleanup();
});

describe("the five-agent machine", () => {
  it("import --write: one server under its own name in every agent, the token in the store; diff says No changes. and apply changes no byte", async () => {
    const before = settings(a.home);
    const r = await ka("import", "--write", "--git");
    expect(r.status).toBe(0);
    golden("five-agents.kanon.yaml", readFileSync(join(homeA, "kanon.yaml"), "utf8"));
    golden("five-agents.warnings", r.stderr.replaceAll(a.home, "~"));
    const yaml = readFileSync(join(homeA, "kanon.yaml"), "utf8");
    // No renamed copies, and the token is not in the home.
    for (const copy of ["opencode-github", "gemini-github", "kimi-github", "claude-docs", "github-2"])
      expect(yaml).not.toContain(copy);
    expect(git(a, homeA, "log", "-p").includes("ghp_")).toBe(false);
    expect(r.stdout).toContain("Stored 1 secret(s) in ");
    expect(r.stdout).toContain("a git repository and committed the import");

    // The store: outside the home, private.
    const store = join(a.home, ".local/state/kanon/secrets.json");
    expect(mode(store)).toBe(0o600);
    expect(mode(join(a.home, ".local/state/kanon"))).toBe(0o700);
    expect(JSON.parse(readFileSync(store, "utf8"))).toEqual({
      version: 1,
      secrets: { GITHUB_PERSONAL_ACCESS_TOKEN: TOKEN },
    });
    expect(await ka("secret", "list")).toMatchObject({ status: 0, stdout: "GITHUB_PERSONAL_ACCESS_TOKEN\n" });

    const diff = await ka("diff");
    expect(diff.stdout).toBe("No changes.\n");
    // The files holding the token existed and are readable by others: kept, with a warning.
    expect(diff.stderr).toContain(
      `${join(a.home, ".claude.json")} holds the secret GITHUB_PERSONAL_ACCESS_TOKEN and other users can read it (mode 0644): chmod 600 ${join(a.home, ".claude.json")}`,
    );
    expect((await ka("apply", "--yes")).stdout).toBe("No changes.\n");
    expect(settings(a.home)).toEqual(before);
    // render shows kanon.yaml's reference, never the value.
    const render = await ka("render");
    expect(render.stdout).toContain(
      '"GITHUB_PERSONAL_ACCESS_TOKEN": "${secret:GITHUB_PERSONAL_ACCESS_TOKEN}"',
    );
    expect(render.stdout).not.toContain(TOKEN);

    // A later import --merge finds nothing new (no gemini-github-2).
    const merge = await ka("import", "--merge", "--write");
    expect(merge).toMatchObject({
      status: 0,
      stdout: "Nothing to import: the Kanon home already has everything found.\n",
    });
    // And the first push is clean: nothing secret leaves.
    git(a, homeA, "remote", "add", "origin", remote);
    expect((await ka("push")).status).toBe(0);
    expect(git(a, remote, "log", "--all", "-p").includes(TOKEN)).toBe(false);
  });

  it("on a second machine: apply names the missing secret and writes nothing; once set, new files holding it are 0600", async () => {
    await ka("import", "--write", "--git");
    git(a, homeA, "remote", "add", "origin", remote);
    expect((await ka("push")).status).toBe(0);

    expect((await kb("init", remote)).status).toBe(0);
    const missing = await kb("apply", "--yes");
    expect(missing.status).toBe(1);
    expect(missing.stderr.trimEnd().split("\n").at(-1)).toBe(
      'secret GITHUB_PERSONAL_ACCESS_TOKEN is not set on this machine (mcp server "github" uses it): set it with "kanon secret set GITHUB_PERSONAL_ACCESS_TOKEN"; nothing was written',
    );
    for (const f of [".claude.json", ".codex", ".gemini", ".kimi-code", ".config/opencode"])
      expect(existsSync(join(b.home, f)), f).toBe(false);

    // From stdin; never echoed.
    const set = await b.run(["secret", "set", "GITHUB_PERSONAL_ACCESS_TOKEN"], { input: `${TOKEN}\n` });
    expect(set.status).toBe(0);
    expect(set.stdout + set.stderr).not.toContain(TOKEN);
    // The value is never shown: the review names kanon.yaml's reference, the diff masks the value.
    const dry = await kb("apply", "-n");
    expect(dry.stdout).toContain(
      'mcp server "github" for codex, claude, opencode, gemini, kimi: github-mcp-server stdio (env: GITHUB_PERSONAL_ACCESS_TOKEN="${secret:GITHUB_PERSONAL_ACCESS_TOKEN}")',
    );
    expect(dry.stdout).toMatch(/"GITHUB_PERSONAL_ACCESS_TOKEN": "<secret [0-9a-f]{4}>"/);
    expect(dry.stdout + dry.stderr).not.toContain(TOKEN);
    // The clone brought hooks and servers: without a terminal to ask on, --trust-hooks puts them in place.
    const apply = await kb("apply", "--yes", "--trust-hooks");
    expect(apply.status).toBe(0);
    expect(apply.stdout + apply.stderr).not.toContain(TOKEN);
    // The agents get the value, in files only this user can read.
    for (const f of [".claude.json", ".codex/config.toml", ".kimi-code/mcp.json"]) {
      expect(readFileSync(join(b.home, f), "utf8"), f).toContain(TOKEN);
      expect(mode(join(b.home, f)), f).toBe(0o600);
    }
    // Gemini and OpenCode read the variable from the environment: no secret, the usual mode.
    expect(readFileSync(join(b.home, ".gemini/settings.json"), "utf8")).toContain('"$GITHUB_TOKEN"');
    expect(mode(join(b.home, ".gemini/settings.json"))).toBe(0o644);
    expect(readFileSync(join(b.home, ".config/opencode/opencode.json"), "utf8")).toContain(
      "{env:GITHUB_TOKEN}",
    );
    expect((await kb("diff")).stdout).toBe("No changes.\n");

    expect((await kb("secret", "rm", "GITHUB_PERSONAL_ACCESS_TOKEN")).status).toBe(0);
    expect((await kb("secret", "list")).stdout).toMatch(/^No secrets stored on this machine/);
    expect((await kb("secret", "rm", "GITHUB_PERSONAL_ACCESS_TOKEN")).stderr).toBe(
      "no secret GITHUB_PERSONAL_ACCESS_TOKEN on this machine (kanon secret list names them)\n",
    );
    expect((await kb("secret", "set", "1BAD")).stderr).toMatch(/^secret name "1BAD" is not valid/);
  });

  it("--secret-policy env writes ${NAME} for the user's variable, keep the value; neither touches the store", async () => {
    const env = await ka("import", "--secret-policy", "env");
    expect(env.stdout).toContain("GITHUB_PERSONAL_ACCESS_TOKEN: ${GITHUB_PERSONAL_ACCESS_TOKEN}\n");
    expect(env.stdout).not.toContain(TOKEN);
    expect(env.stderr).toContain(
      'warning: replaced the plaintext secret at mcp server "github" env.GITHUB_PERSONAL_ACCESS_TOKEN with ${GITHUB_PERSONAL_ACCESS_TOKEN}: set GITHUB_PERSONAL_ACCESS_TOKEN where your agents run (kanon diff shows the change)\n',
    );
    const keep = await ka("import", "--secret-policy", "keep");
    expect(keep.stdout).toContain(`GITHUB_PERSONAL_ACCESS_TOKEN: ${TOKEN}\n`);
    expect(keep.stderr).toContain("because secret policy is keep");
    expect(existsSync(join(a.home, ".local/state/kanon/secrets.json"))).toBe(false);
  });

  it("import says it found nothing on a machine without agent settings", async () => {
    const r = await kb("import", "--write");
    expect(r).toMatchObject({
      status: 0,
      stdout: "",
      stderr:
        "Nothing to import: no instructions, skills, commands, subagents, MCP servers or hooks of codex, claude, opencode, gemini or kimi were found on this machine; nothing was written.\n",
    });
    expect(existsSync(homeB)).toBe(false);
  });
});

describe("kanon push refuses a plaintext secret", () => {
  it("names file:line and the commit, never the value, pushes nothing; --allow-secrets pushes", async () => {
    await ka("import", "--write", "--git", "--secret-policy", "keep");
    git(a, homeA, "remote", "add", "origin", remote);
    const line =
      readFileSync(join(homeA, "kanon.yaml"), "utf8")
        .split("\n")
        .findIndex((l) => l.includes(TOKEN)) + 1;
    const commit = git(a, homeA, "rev-parse", "--short", "HEAD").trim();
    const r = await ka("push");
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `refusing to push a plaintext secret in the Kanon home; nothing was pushed:\n  kanon.yaml:${line}: a GitHub token (commit ${commit})\nMove each value into this machine's secret store (kanon secret set NAME, then \${secret:NAME} in kanon.yaml) and take it out of those commits (git commit --amend, or git rebase -i), or push anyway with kanon push --allow-secrets.\n`,
    );
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    expect(git(a, remote, "for-each-ref")).toBe("");

    // Fixed in a later commit: the earlier commit would still carry it.
    const yaml = readFileSync(join(homeA, "kanon.yaml"), "utf8").replace(TOKEN, "${secret:GITHUB_TOKEN}");
    writeFileSync(join(homeA, "kanon.yaml"), yaml);
    git(a, homeA, "commit", "--quiet", "-am", "use the secret store");
    expect((await ka("push")).stderr).toContain(`kanon.yaml:${line}: a GitHub token (commit ${commit})`);
    // Rewritten: clean.
    git(a, homeA, "reset", "--soft", "HEAD~1");
    git(a, homeA, "commit", "--quiet", "--amend", "-m", "import");
    expect((await ka("push")).status).toBe(0);
    expect(git(a, remote, "for-each-ref").trim()).not.toBe("");

    // A new commit with a token: refused again; --allow-secrets sends it.
    writeFileSync(join(homeA, "instructions/imported.md"), `token: ${TOKEN}\n`);
    git(a, homeA, "commit", "--quiet", "-am", "oops");
    const again = await ka("push");
    expect(again.stderr).toContain("  instructions/imported.md:1: a GitHub token (commit ");
    expect((await ka("push", "--allow-secrets")).status).toBe(0);
    expect(git(a, remote, "log", "-1", "--format=%s").trim()).toBe("oops");
  });
});

describe("apply into a project", () => {
  it("warns before writing a secret into a file git tracks or would track", async () => {
    const project = join(a.work, "project");
    mkdirSync(project);
    git(a, project, "init", "--quiet");
    mkdirSync(homeA);
    writeFileSync(
      join(homeA, "kanon.yaml"),
      "version: 1\nmcp:\n  servers:\n    github:\n      command: gh-mcp\n      env: { GITHUB_TOKEN: '${secret:GITHUB_TOKEN}' }\n      targets: [claude]\n",
    );
    await a.run(["secret", "set", "GITHUB_TOKEN"], { input: TOKEN });
    const r = await ka("--project", project, "apply", "--yes");
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      "warning: .mcp.json will hold the secret GITHUB_TOKEN and git would track it (it is not ignored): add .mcp.json to the project's .gitignore\n",
    );
    expect(mode(join(project, ".mcp.json"))).toBe(0o600);
    git(a, project, "add", ".mcp.json");
    await a.run(["secret", "set", "GITHUB_TOKEN"], { input: `${TOKEN}x` });
    expect((await ka("--project", project, "apply", "--yes")).stderr).toContain(
      "warning: .mcp.json will hold the secret GITHUB_TOKEN and git tracks it: the next commit there would publish it",
    );
    git(a, project, "rm", "--cached", "--force", "--quiet", ".mcp.json");
    writeFileSync(join(project, ".gitignore"), ".mcp.json\n");
    await a.run(["secret", "set", "GITHUB_TOKEN"], { input: TOKEN });
    expect((await ka("--project", project, "apply", "--yes")).stderr).not.toContain(".mcp.json will hold");
  });
});

describe("a home in the middle of a merge or rebase is never applied", () => {
  it("after a conflicting pull --rebase: one line naming the state and the fix, exit 1, nothing written; diff and render say the same", async () => {
    expect((await ka("init")).status).toBe(0);
    git(a, homeA, "remote", "add", "origin", remote);
    expect((await ka("push")).status).toBe(0);
    expect((await kb("init", remote)).status).toBe(0);
    expect((await kb("apply", "--yes")).status).toBe(0);
    writeFileSync(join(homeA, "instructions/shared.md"), "# from A\n");
    git(a, homeA, "commit", "--quiet", "-am", "A");
    expect((await ka("push")).status).toBe(0);
    writeFileSync(join(homeB, "instructions/shared.md"), "# from B\n");
    git(b, homeB, "commit", "--quiet", "-am", "B");
    expect(
      spawnSync("git", ["pull", "--rebase", "--quiet"], { cwd: homeB, env: sandboxEnv(b.home) }).status,
    ).not.toBe(0);
    expect(readFileSync(join(homeB, "instructions/shared.md"), "utf8")).toContain("<<<<<<<");

    const before = settings(b.home);
    const line = `the Kanon home ${homeB} is in the middle of a rebase: resolve the conflicts, git -C ${homeB} add the files and git -C ${homeB} rebase --continue, or git -C ${homeB} rebase --abort, then run kanon again; nothing was written\n`;
    for (const cmd of [["apply", "--yes"], ["diff"], ["render"], ["update", "--yes"]]) {
      const r = await kb(...cmd);
      expect(r, cmd.join(" ")).toMatchObject({ status: 1, stderr: line });
    }
    const status = await kb("status");
    expect(status.status).toBe(1);
    expect(status.stderr).toContain(line);
    expect(settings(b.home)).toEqual(before);

    // The same pull as a merge: the merge is named, and how to finish or abort it.
    git(b, homeB, "rebase", "--abort");
    expect(
      spawnSync("git", ["merge", "--quiet", "@{u}"], { cwd: homeB, env: sandboxEnv(b.home) }).status,
    ).not.toBe(0);
    expect(await kb("apply", "--yes")).toMatchObject({
      status: 1,
      stderr: `the Kanon home ${homeB} is in the middle of a merge: resolve the conflicts and git -C ${homeB} commit, or git -C ${homeB} merge --abort, then run kanon again; nothing was written\n`,
    });
    expect(settings(b.home)).toEqual(before);

    // Conflict markers left in a committed file are refused too, naming the file and line.
    git(b, homeB, "merge", "--abort");
    writeFileSync(
      join(homeB, "instructions/shared.md"),
      "# a\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> abc\n",
    );
    expect(await kb("apply", "--yes")).toMatchObject({
      status: 1,
      stderr:
        "instructions/shared.md:2: unresolved merge conflict (<<<<<<< … >>>>>>>): keep the version you want, delete the marker lines and commit, then run kanon again; nothing was written\n",
    });
    expect(settings(b.home)).toEqual(before);
  });
});

describe("a typo never empties a section", () => {
  it("hoks: is an error, and apply takes none of kanon's hooks out", async () => {
    mkdirSync(homeB, { recursive: true });
    const yaml =
      "version: 1\nhooks:\n  - name: guard\n    event: PreToolUse\n    matcher: Bash\n    command: /usr/local/bin/guard\n";
    writeFileSync(join(homeB, "kanon.yaml"), yaml);
    expect((await kb("apply", "--yes")).status).toBe(0);
    writeFileSync(join(homeB, "kanon.yaml"), yaml.replace("hooks:", "hoks:"));
    const before = settings(b.home);
    for (const cmd of [["validate"], ["apply", "--yes"]])
      expect(await kb(...cmd)).toMatchObject({
        status: 1,
        stderr: 'kanon.yaml:2:1: unknown key "hoks"; did you mean "hooks"?\n',
      });
    expect(settings(b.home)).toEqual(before);
    expect(existsSync(join(b.home, ".config/opencode/plugins/kanon-hooks.js"))).toBe(true);
  });
});

describe("init --force never loses a home", () => {
  it("saves the imported kanon.yaml it replaces and says where", async () => {
    await ka("import", "--write");
    const imported = readFileSync(join(homeA, "kanon.yaml"), "utf8");
    const r = await ka("init", "--force");
    expect(r.status).toBe(0);
    const saved = /Saved the kanon\.yaml it replaces in (\S+)\n/.exec(r.stdout)?.[1];
    expect(saved).toMatch(new RegExp(`^${a.home}/\\.local/state/kanon/backups/.*-init/kanon\\.yaml$`));
    expect(readFileSync(saved!, "utf8")).toBe(imported);
    // A starter over a starter saves nothing.
    expect((await ka("init", "--force")).stdout).not.toContain("Saved");
  });
});

describe("a kanon hook edited by hand", () => {
  it("diff marks it edited, apply puts it back in place (never a second copy), undo brings the edit back", async () => {
    mkdirSync(homeB, { recursive: true });
    writeFileSync(
      join(homeB, "kanon.yaml"),
      "version: 1\nhooks:\n  - name: guard\n    event: PreToolUse\n    matcher: Bash\n    command: /usr/local/bin/guard\n    timeout: 10\n",
    );
    expect((await kb("apply", "--yes")).status).toBe(0);
    const settings = join(b.home, ".claude/settings.json");
    const edited = readFileSync(settings, "utf8").replace('"timeout": 10', '"timeout": 99');
    writeFileSync(settings, edited);
    const diff = await kb("diff");
    expect(diff.stdout).toContain(`${settings} (claude): changed since kanon last wrote it`);
    expect((await kb("status")).stdout).toContain(`  hand-edited: ${settings} (claude)\n`);
    const apply = await kb("apply", "--yes");
    expect(apply.stdout).toMatch(/Saved .*settings\.json.*: backup in /);
    const doc = JSON.parse(readFileSync(settings, "utf8"));
    expect(doc.hooks.PreToolUse).toEqual([
      { matcher: "Bash", hooks: [{ type: "command", command: "/usr/local/bin/guard", timeout: 10 }] },
    ]);
    expect((await kb("diff")).stdout).toBe("No changes.\n");
    expect((await kb("undo", "--yes")).status).toBe(0);
    expect(readFileSync(settings, "utf8")).toBe(edited);
  });
});

describe("the smaller items", () => {
  it("undo at a file changed since names the way forward; --force saves it and goes on", async () => {
    mkdirSync(homeB, { recursive: true });
    writeFileSync(join(homeB, "kanon.yaml"), "version: 1\ninstructions:\n  files: [a.md]\n");
    writeFileSync(join(homeB, "a.md"), "one\n");
    expect((await kb("--agent", "claude", "apply", "-y")).status).toBe(0);
    const claudeMd = join(b.home, ".claude/CLAUDE.md");
    writeFileSync(claudeMd, "mine\n");
    const r = await kb("undo", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      "nothing was restored (it holds edits made after it: keep them and stop here, or run kanon undo --force to undo it anyway, saving what is there now first)",
    );
    const forced = await kb("undo", "--yes", "--force");
    expect(forced.status).toBe(0);
    const backup = new RegExp(`Saved ${claudeMd} as it was: backup in (\\S+)\\n`).exec(forced.stdout)?.[1];
    expect(readFileSync(backup!, "utf8")).toBe("mine\n");
    expect(existsSync(claudeMd)).toBe(false);
  });

  it("status --exit-code without a home exits 1 and says so", async () => {
    const r = await kb("status", "--exit-code");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `No Kanon home: ${join(homeB, "kanon.yaml")} does not exist (kanon init creates one; kanon init <repo> clones yours)\n`,
    );
    expect((await kb("status")).status).toBe(0);
  });

  it("init <repo> whose HEAD names a missing branch shows git's cause and the branches; --branch clones one", async () => {
    expect((await ka("init")).status).toBe(0);
    git(a, homeA, "push", "--quiet", remote, "HEAD:refs/heads/dev");
    git(a, remote, "symbolic-ref", "HEAD", "refs/heads/gone");
    const r = await kb("init", remote);
    expect(r).toMatchObject({
      status: 1,
      stderr: `git clone ${remote}: its HEAD names a branch that does not exist, so nothing was checked out; its branches: dev; pass --branch <name> (kanon init --branch dev ${remote}); nothing was cloned\n`,
    });
    expect(existsSync(homeB)).toBe(false);
    expect(await kb("init", "--branch", "dev", remote)).toMatchObject({
      status: 0,
      stdout: `Cloned ${remote} into ${homeB}\n`,
    });
    expect(existsSync(join(homeB, "kanon.yaml"))).toBe(true);
  });

  it("import names the user's plugins in OpenCode's plugin/ and plugins/ folders", async () => {
    await a.run(["--home", homeA, "import"]);
    mkdirSync(join(a.home, ".config/opencode/plugins"));
    writeFileSync(join(a.home, ".config/opencode/plugins/mine.ts"), "export const M = async () => ({})\n");
    const r = await ka("import");
    for (const p of ["plugin/notify.js", "plugins/mine.ts"])
      expect(r.stderr).toContain(
        `warning: kept your plugin ${join(a.home, ".config/opencode", p)} where it is: OpenCode runs it, and kanon imports hooks only from the kanon-hooks.js it generates\n`,
      );
  });
});

describe("import --write into a folder that is not a git repository", () => {
  it("says how to set git up when nobody can be asked, and does it with --git", async () => {
    const r = await ka("import", "--write");
    expect(r.stdout).toContain(
      `${homeA} is not a git repository yet: kanon import --write --git makes it one as kanon init does, or run git init there and commit, to keep it for your other machines.\n`,
    );
    expect(existsSync(join(homeA, ".git"))).toBe(false);
    expect((await ka("import", "--write", "--force", "--git")).stdout).toContain(
      `Made ${homeA} a git repository and committed the import`,
    );
    expect(git(a, homeA, "log", "--format=%s")).toBe("Import this machine's agent settings\n");
    expect(readFileSync(join(homeA, ".gitignore"), "utf8")).toBe(".kanon/\n");
  });

  it("on a terminal, offers it as kanon init does", async () => {
    // stdin and stdout are a terminal's (isTTY): the question is asked, the answer comes as typed.
    const t = new InProcessTerminal(["--home", homeA, "import", "--write"], {
      cwd: a.work,
      env: { ...sandboxEnv(a.home), TERM: "xterm-256color" } as Record<string, string>,
      cols: 400, // each line on one row
    });
    await t.waitFor("(git init, a first commit)? [Y/n]");
    // Enter, as the terminal's line discipline hands it over (\n).
    t.send("y\n");
    expect(await t.exited).toBe(0);
    const screen = t.screen();
    expect(screen).toContain(
      `${homeA} is not a git repository. Make it one, as kanon init does (git init, a first commit)? [Y/n]`,
    );
    expect(screen).toContain(`Made ${homeA} a git repository and committed the import`);
    expect(git(a, homeA, "status", "--porcelain")).toBe("");
  });
});
