/**
 * Smoke tests of what ships: the built `dist/kanon.js` (`npm run build`), each run a process of its
 * own, as a user starts it. The command tests call `main` in-process; these cover what only the real
 * binary shows: the one bundle running each command and loading the UI chunk, exit statuses as the
 * shell sees them, stdin and stdout that are pipes, terminals and readers that go away.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KANON, listFiles, ROOT, type Run, sandboxEnv, sandboxPerTest } from "../support/cli.js";
import { builtUiQuits } from "../support/pty.js";

const EXAMPLE = join(ROOT, "examples/home");
const s = sandboxPerTest();
/** `dist/kanon.js --home <a copy of the example home> ...args`. */
const k = (...args: string[]): Run => s.spawn(["--home", s.kh, ...args]);
const withExample = () => cpSync(EXAMPLE, s.kh, { recursive: true });

/** `sh -c script` in the sandbox, `$KANON` the built binary; its status, stdout and stderr. */
const shell = (script: string, env: Record<string, string> = {}): Run => {
  const r = spawnSync("/bin/sh", ["-c", script], {
    cwd: s.work,
    encoding: "utf8",
    env: sandboxEnv(s.home, { KANON: `${process.execPath} ${KANON}`, ...env }),
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
};

/** `kanon ...args` on a terminal (util-linux `script`): what it printed there. */
const onTerminal = (args: string[], env: Record<string, string | undefined> = {}): Run => {
  const cmd = [process.execPath, KANON, ...args].map((w) => `'${w}'`).join(" ");
  const r = spawnSync("script", ["-qec", cmd, "/dev/null"], {
    cwd: s.work,
    encoding: "utf8",
    env: sandboxEnv(s.home, { TERM: "xterm-256color", ...env }),
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
};
const hasScript = spawnSync("script", ["--version"]).status === 0;
const ESC = "\u001b[";

describe("the command line", () => {
  it("--help prints the usage on stdout, exit 0", () => {
    const r = s.spawn(["--help"]);
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(r.stdout).toMatch(/^Usage: kanon \[options\] \[command\]\n/);
    expect(r.stdout).toContain("\n  apply ");
  });

  it("bare kanon prints the help, exit 0", () => {
    const r = s.spawn([]);
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(r.stdout).toMatch(/^Usage: kanon /);
  });

  it("a subcommand's --help, exit 0", () => {
    const r = s.spawn(["apply", "--help"]);
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(r.stdout).toMatch(/^Usage: kanon apply \[options\]\n/);
  });

  it("--version prints the package's version", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(s.spawn(["--version"])).toEqual({ status: 0, stdout: `${pkg.version}\n`, stderr: "" });
  });

  it("a usage error: one message on stderr, exit 1", () => {
    const r = s.spawn(["diff", "--bogus"]);
    expect(r).toMatchObject({ status: 1, stdout: "" });
    expect(r.stderr).toContain("unknown option '--bogus'");
  });

  it("an unknown command suggests the nearest, exit 1", () => {
    const r = s.spawn(["difff"]);
    expect(r).toMatchObject({ status: 1, stdout: "" });
    expect(r.stderr).toContain("unknown command 'difff'");
    expect(r.stderr).toContain("diff");
  });

  it("an error: one line on stderr, exit 1, as the shell sees it", () => {
    const r = shell('$KANON --home "$PWD/missing" validate; echo "status $?"');
    expect(r.stdout).toBe("status 1\n");
    expect(r.stderr).toMatch(/^open .*\/missing\/kanon\.yaml: no such file or directory \(run "kanon init"/);
    expect(r.stderr.split("\n")).toHaveLength(2);
  });

  it("diff --exit-code: 1 when files would change", () => {
    withExample();
    expect(k("diff", "--exit-code").status).toBe(1);
  });
});

describe("the example home, round trip", () => {
  it("validate, render, diff, apply --yes, diff, undo --yes", () => {
    withExample();
    const validate = k("validate");
    expect(validate).toMatchObject({ status: 0, stdout: "kanon.yaml is valid.\n" });
    // The example's hooks that some agents cannot run are named, each once.
    expect(validate.stderr).toContain('warning: hook "notify-waiting" is not rendered for codex');
    const render = k("render");
    expect(render.status).toBe(0);
    expect(render.stdout).toContain(`==> [claude] ${join(s.home, ".claude/CLAUDE.md")}`);
    const diff = k("diff");
    expect(diff.status).toBe(0);
    expect(diff.stdout).toContain(`+++ ${join(s.home, ".codex/AGENTS.md")}`);
    const apply = k("apply", "--yes");
    expect(apply.status).toBe(0);
    expect(apply.stdout).toMatch(/Applied \d+ file change\(s\)\.\n$/);
    // The file written is what render showed under its name.
    const header = `==> [codex] ${join(s.home, ".codex/AGENTS.md")}\n`;
    expect(render.stdout).toContain(header);
    const shown = render.stdout.slice(render.stdout.indexOf(header) + header.length).split("\n==> ")[0];
    expect(s.read(".codex/AGENTS.md")).toBe(shown);
    expect(k("diff")).toMatchObject({ status: 0, stdout: "No changes.\n" });
    const undo = k("undo", "--yes");
    expect(undo.status).toBe(0);
    expect(undo.stdout).toMatch(/Undid \d+ file change\(s\)\.\n$/);
    expect(s.exists(".codex/AGENTS.md")).toBe(false);
  });

  it("the [y/N] prompt answered y on stdin applies; anything else cancels", () => {
    withExample();
    const no = s.spawn(["--home", s.kh, "apply"], { input: "n\n" });
    expect(no.status).toBe(0);
    expect(no.stdout).toMatch(/Apply these changes\? \[y\/N\] Apply cancelled\.\n$/);
    expect(s.exists(".codex/AGENTS.md")).toBe(false);
    const yes = s.spawn(["--home", s.kh, "apply"], { input: "y\n" });
    expect(yes.status).toBe(0);
    expect(yes.stdout).toMatch(/Apply these changes\? \[y\/N\] Applied \d+ file change\(s\)\.\n$/);
    expect(s.exists(".codex/AGENTS.md")).toBe(true);
  });

  it("finds the home through KANON_HOME, and ~/.config/kanon without it", () => {
    withExample();
    const r = s.spawn(["validate"], { env: { KANON_HOME: s.kh } });
    expect(r).toMatchObject({ status: 0, stdout: "kanon.yaml is valid.\n" });
    const missing = s.spawn(["validate"]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(
      `open ${join(s.home, ".config/kanon/kanon.yaml")}: no such file or directory`,
    );
  });

  it("status --json and diff --json print JSON", () => {
    withExample();
    expect(JSON.parse(k("status", "--json").stdout)).toHaveProperty("source");
    expect(JSON.parse(k("diff", "--json").stdout)).toBeTypeOf("object");
  });

  it("status and hooks run from the bundle", () => {
    withExample();
    expect(k("status").status).toBe(0);
    const hooks = k("hooks");
    expect(hooks.status).toBe(0);
    expect(hooks.stdout).toContain("session-banner");
  });
});

describe("init and import", () => {
  it("init scaffolds a home and commits it with git", () => {
    const r = k("init");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`Initialized ${s.kh}\n`);
    expect(existsSync(join(s.kh, ".git"))).toBe(true);
    expect(k("validate").status).toBe(0);
  });

  it("import reads the machine's settings into kanon.yaml", () => {
    s.writeFiles({
      ".claude/CLAUDE.md": "Be brief.\n",
      ".claude.json": JSON.stringify({ mcpServers: { docs: { command: "docs-mcp" } } }),
    });
    const r = k("--agent", "claude", "import", "--write", "--no-git");
    expect(r).toMatchObject({ status: 0, stdout: `Wrote imported config to ${join(s.kh, "kanon.yaml")}\n` });
    expect(s.readHome("kanon.yaml")).toContain("command: docs-mcp");
    expect(listFiles(s.kh)).toContain("instructions/imported.md");
  });

  it("schema prints JSON", () => {
    const r = s.spawn(["schema"]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty("$schema");
  });
});

describe("pipes and terminals", () => {
  it("a reader that goes away (| head -1) ends kanon quietly, exit 0", () => {
    // Output well past a pipe's buffer: kanon is still writing when head has gone.
    s.writeHome("version: 1\ninstructions:\n  files: [instructions/big.md]\n", {
      "instructions/big.md": "A line of instructions that is long enough.\n".repeat(8000),
    });
    const r = shell(`{ $KANON --home '${s.kh}' render; echo "kanon exit $?" >&2; } | head -1`);
    expect(r).toEqual({
      status: 0,
      stdout: `==> [claude] ${join(s.home, ".claude/CLAUDE.md")}\n`,
      stderr: "kanon exit 0\n",
    });
  });

  it("output to a pipe has no colour; on a terminal diff is coloured, not with NO_COLOR", () => {
    withExample();
    expect(k("diff").stdout).not.toContain(ESC);
    if (!hasScript) return;
    const coloured = onTerminal(["--home", s.kh, "diff"]);
    expect(coloured.status).toBe(0);
    expect(coloured.stdout).toContain(`${ESC}32m+`);
    const plain = onTerminal(["--home", s.kh, "diff"], { NO_COLOR: "1" });
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain("+++ ");
    expect(plain.stdout).not.toContain(`${ESC}32m`);
  });

  it("output to a file is written whole", () => {
    withExample();
    const file = join(s.work, "render.txt");
    expect(shell(`$KANON --home '${s.kh}' render > '${file}'`).status).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(k("render").stdout);
  });

  it("kanon ui loads its chunk (Ink and React) and quits with q", async () => {
    withExample();
    expect(await builtUiQuits(s.kh, s.work, s.home)).toBe(0);
  });
});
