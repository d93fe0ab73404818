/** The command line as people and scripts meet it: exit codes, closed pipes, help, the apply summary. */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KANON, ROOT, sandboxEnv, sandboxPerTest } from "../support/cli.js";

const EXAMPLE = join(ROOT, "examples/home");

const s = sandboxPerTest();

const k = (...args: string[]) => s.run(["--home", EXAMPLE, ...args]);

describe("--exit-code", () => {
  it("diff and status: 1 when files would change, 0 in sync; without the flag always 0", async () => {
    expect((await k("diff")).status).toBe(0);
    expect((await k("diff", "--exit-code")).status).toBe(1);
    expect((await k("diff", "--exit-code", "--json")).status).toBe(1);
    expect((await k("status")).status).toBe(0);
    expect((await k("status", "--exit-code")).status).toBe(1);
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(await k("diff", "--exit-code")).toMatchObject({ status: 0, stdout: "No changes.\n" });
    expect((await k("status", "--exit-code")).status).toBe(0);
  });

  it("an error is still exit 1 with its message", async () => {
    const r = await s.run(["--home", join(s.work, "missing"), "diff", "--exit-code"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("no such file or directory");
  });
});

describe("the apply prompt", () => {
  it("ends with a per-agent summary right above [y/N]", async () => {
    const r = await s.run(["--home", EXAMPLE, "apply"], { input: "n\n" });
    expect(r.status).toBe(0);
    const tail = r.stdout.slice(r.stdout.lastIndexOf("+++"));
    expect(tail).toMatch(
      /\n {2}codex: {4}\d+ to create\n {2}claude: {3}\d+ to create\n {2}opencode: \d+ to create\n\d+ file change\(s\): \d+ to create\nApply these changes\? \[y\/N\] Apply cancelled\.\n$/,
    );
  });

  it("--stat prints only the summary, for diff and apply", async () => {
    const stat = await k("diff", "--stat");
    expect(stat.stdout).not.toContain("+++");
    expect(stat.stdout).toMatch(
      /^ {2}codex: {4}\d+ to create\n {2}claude: {3}\d+ to create\n {2}opencode: \d+ to create\n\d+ file change\(s\): \d+ to create\n$/,
    );
    const apply = await s.run(["--home", EXAMPLE, "apply", "--stat"], { input: "n\n" });
    expect(apply.stdout).toBe(`${stat.stdout}Apply these changes? [y/N] Apply cancelled.\n`);
    await k("apply", "--yes");
    expect((await k("diff", "--stat")).stdout).toBe("No changes.\n");
  });

  it("shows a new OpenCode plugin as its hook table, the runtime in one line each side", async () => {
    const diff = (await k("--agent", "opencode", "diff")).stdout;
    const header = `+++ ${join(s.home, ".config/opencode/plugins/kanon-hooks.js")}\n`;
    expect(diff).toContain(header);
    const shown = diff.slice(diff.indexOf(header) + header.length - 1).split("\n--- ")[0] ?? "";
    expect(shown).toMatch(
      /\n@@ … \d+ lines of the kanon-hooks runtime \(kanon render shows them\) @@\n\+\/\/ kanon:hooks-begin\n\+const HOOKS = \[\n/,
    );
    expect(shown).toMatch(
      /\n\+\/\/ kanon:hooks-end\n@@ … \d+ lines of the kanon-hooks runtime \(kanon render shows them\) @@$/,
    );
    expect(shown).not.toContain("spawn(");
    expect(diff.split("\n").length).toBeLessThan(120);
    // The file written is the whole plugin.
    await k("--agent", "opencode", "apply", "--yes");
    expect(readFileSync(join(s.home, ".config/opencode/plugins/kanon-hooks.js"), "utf8")).toContain("spawn(");
  });
});

describe("a closed stdout", () => {
  /** Run kanon with its stdout closed before it writes: it must exit quietly (no stack, no EPIPE). */
  function closed(args: string[], input = ""): Promise<{ status: number | null; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [KANON, ...args], {
        cwd: s.work,
        env: sandboxEnv(s.home),
        stdio: ["pipe", "pipe", "pipe"],
      });
      child.stdout.destroy();
      child.stdin.end(input);
      let stderr = "";
      child.stderr.on("data", (b: Buffer) => {
        stderr += b.toString();
      });
      child.on("close", (status) => resolve({ status, stderr }));
    });
  }

  const commands: string[][] = [
    [],
    ["--help"],
    ["--version"],
    ["validate"],
    ["render"],
    ["render", "--json"],
    ["diff"],
    ["diff", "--stat"],
    ["apply", "-n"],
    ["apply"],
    ["status"],
    ["status", "--json"],
    ["hooks"],
    ["schema"],
    ["lock", "--help"],
    ["update", "--help"],
  ];
  for (const args of commands) {
    it(`kanon ${args.join(" ") || "(bare)"}`, async () => {
      const r = await closed(["--home", EXAMPLE, ...args]);
      expect(r.stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
      expect(r.status).toBe(0);
    });
  }

  it("kanon apply waiting at its prompt writes nothing", async () => {
    await closed(["--home", EXAMPLE, "apply"], "y\n");
    expect((await k("diff", "--exit-code")).status).toBe(1);
  });

  it("kanon init, and errors still exit 1", async () => {
    const home = join(s.work, "new-home");
    expect((await closed(["--home", home, "init"])).status).toBe(0);
    const r = await closed(["--home", join(s.work, "missing"), "render"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("no such file or directory");
  });
});

describe("help", () => {
  it("bare kanon prints the help to stdout and exits 0", async () => {
    const r = await s.run([]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^Usage: kanon \[options\] \[command\]\n/);
    for (const c of [
      "init",
      "validate",
      "render",
      "diff",
      "apply",
      "status",
      "update",
      "pull",
      "push",
      "hooks",
      "lock",
    ])
      expect(r.stdout).toMatch(new RegExp(`\\n  ${c} `));
  });

  it("global options without a command print the help too", async () => {
    const r = await s.run(["--home", EXAMPLE, "--agent", "codex"]);
    expect(r).toMatchObject({ status: 0, stderr: "" });
    expect(r.stdout).toMatch(/^Usage: kanon /);
  });

  it("a run that names its command still rejects options no command has", async () => {
    const r = await s.run(["--home", EXAMPLE, "--bogus", "diff"]);
    expect(r).toMatchObject({ status: 1, stdout: "" });
    expect(r.stderr).toContain("unknown option '--bogus'");
    expect((await s.run(["--home", EXAMPLE, "diff", "--bogus"])).stderr).toContain(
      "unknown option '--bogus'",
    );
  });

  it("an unknown command is still an error", async () => {
    expect(await s.run(["difff"])).toMatchObject({ status: 1, stdout: "" });
    expect((await s.run(["difff"])).stderr).toContain("unknown command 'difff'");
  });

  const all = [
    ["init"],
    ["validate"],
    ["render"],
    ["diff"],
    ["apply"],
    ["status"],
    ["update"],
    ["pull"],
    ["push"],
    ["hooks"],
    ["schema"],
    ["import"],
    ["ui"],
    ["undo"],
    ["lock"],
    ["lock", "check"],
    ["lock", "update"],
  ];
  for (const cmd of all) {
    it(`kanon ${cmd.join(" ")} --help lists the global options and one example`, async () => {
      const r = await s.run([...cmd, "--help"]);
      expect(r.status).toBe(0);
      for (const flag of ["--home <path>", "--config <path>", "--project <dir>", "--agent <name>"])
        expect(r.stdout).toContain(flag);
      expect(r.stdout).toMatch(new RegExp(`\\nExample:\\n  kanon ${cmd.join(" ")}`));
      expect(r.stdout).not.toMatch(/\[none/);
    });
  }

  it("argument names read as words", async () => {
    expect((await s.run(["init", "--help"])).stdout).toMatch(
      /^Usage: kanon init \[options\] \[repository\]\n/,
    );
    expect((await s.run(["lock", "update", "--help"])).stdout).toMatch(
      /^Usage: kanon lock update \[options\] \[provider\.\.\.\]\n/,
    );
    expect((await s.run(["lock", "--help"])).stdout).toMatch(/^Usage: kanon lock \[options\] \[command\]\n/);
  });

  it("lock still refuses stray arguments", async () => {
    expect(await k("lock", "extra")).toMatchObject({
      status: 1,
      stderr: 'unknown command "extra" for "kanon lock"\n',
    });
  });
});

describe("warnings", () => {
  const yaml = `version: 1
mcp:
  servers:
    github:
      command: github-mcp
      env:
        GITHUB_TOKEN: "\${GITHUB_TOKEN}"
hooks:
  - name: h
    event: SessionStart
    command: echo \${NOPE_VAR}
`;
  const home = () => {
    const dir = join(s.work, "warn-home");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "kanon.yaml"), yaml);
    return dir;
  };

  it("an unset ${VAR} names its kanon.yaml position, once per run", async () => {
    const dir = home();
    for (const cmd of [["validate"], ["render"], ["diff"], ["status"], ["apply", "-n"]]) {
      const r = await s.run(["--home", dir, ...cmd]);
      expect(r.status).toBe(0);
      const warnings = r.stderr.split("\n").filter((l) => l.startsWith("warning:"));
      expect(warnings).toEqual([
        "warning: kanon.yaml:7:23: references unset environment variable GITHUB_TOKEN",
        "warning: kanon.yaml:11:14: references unset environment variable NOPE_VAR",
      ]);
    }
    expect(
      (await s.run(["--home", dir, "validate"], { env: { GITHUB_TOKEN: "x", NOPE_VAR: "y" } })).stderr,
    ).toBe("");
  });
});

describe("progress", () => {
  it("a large apply says so on a terminal, and nothing in a pipe", async () => {
    const dir = join(s.work, "large-home");
    for (let i = 0; i < 70; i++) {
      mkdirSync(join(dir, "skills", `skill-${i}`), { recursive: true });
      writeFileSync(
        join(dir, "skills", `skill-${i}`, "SKILL.md"),
        `---\nname: skill-${i}\ndescription: d\n---\n`,
      );
    }
    writeFileSync(join(dir, "kanon.yaml"), "version: 1\n");
    const piped = await s.run(["--home", dir, "apply", "-n"]);
    expect(piped.stdout).toContain("Dry run: would apply 210 file change(s)");
    const tty = await s.run(["--home", dir, "apply", "--yes"], { terminal: true });
    expect(tty.status).toBe(0);
    expect(tty.stderr).toContain("Writing 210 files…");
    expect(tty.stdout).toContain("Applied 210 file change(s).");
    const quiet = await s.run(["--home", dir, "apply", "--yes"], {
      env: { HOME: join(s.work, "other-home") },
    });
    expect(quiet).toMatchObject({ status: 0, stderr: "", stdout: "Applied 210 file change(s).\n" });
  });
});
