/**
 * The smaller findings of the trials, each with its hostile input: a 10,000-deep native file, a
 * kanon.yaml of references left open (`${a:-` repeated), an unreadable agent folder, names import
 * found that kanon.yaml cannot hold, blank lines a Kimi hook left behind, an empty `hooks` Gemini
 * settings were left with, a token in a remote's URL, a 4 GB limit of virtual memory.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_DOCUMENT_NESTING, nestingDepth } from "../../src/formats/nesting.js";
import { KANON, sandboxEnv, sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();
const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;

describe("a 10,000-deep ~/.claude.json", () => {
  const write = () =>
    s.write(".claude.json", `{"mcpServers": {"x": {"command": "a", "args": ${deep(10_000)}}}}\n`);

  it("is a warning for import, not a stack overflow", async () => {
    write();
    s.writeHome("version: 1\n");
    const r = await s.k("import");
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`lists or objects are nested more than ${MAX_DOCUMENT_NESTING} levels deep`);
  });

  it("is one line for diff and apply, naming the file; nothing is written", async () => {
    write();
    s.writeHome("version: 1\nagents: [claude]\nmcp:\n  servers:\n    docs: {command: docs-mcp}\n");
    const line = `cannot parse ${join(s.home, ".claude.json")} for merge: lists or objects are nested more than ${MAX_DOCUMENT_NESTING} levels deep\n`;
    expect(await s.k("diff")).toMatchObject({ status: 1, stderr: line });
    expect(await s.k("apply", "--yes")).toMatchObject({ status: 1, stderr: line });
  });

  it("nesting is counted outside strings and comments, in JSON, JSONC and TOML", () => {
    expect(nestingDepth('{"a": "[[[{{{", "b": [1, [2]]}', "json")).toBe(3);
    expect(nestingDepth('{"a": "\\"[[["} // [[[\n/* {{{ */', "jsonc")).toBe(1);
    expect(nestingDepth('a = \'[[[\' # [[[\nb = """\n[[["""\nc = [[1]]\n', "toml")).toBe(2);
    expect(nestingDepth(deep(10_000), "json", 600)).toBe(601);
  });
});

describe("a 4 GB limit of virtual memory (ulimit -v)", () => {
  // The trials' kanon reserved about 10 GB of address space for WebAssembly at start-up; only
  // kanon ui loads any now. build.test.ts starts --help so; this runs the commands that do work.
  it("leaves diff, apply and import working", () => {
    s.writeHome("version: 1\nagents: [claude, codex]\ninstructions:\n  files: [i.md]\n", {
      "i.md": "rules\n",
    });
    const limited = (...args: string[]) =>
      spawnSync(
        "sh",
        ["-c", 'ulimit -v 4000000; exec "$0" "$@"', process.execPath, KANON, "--home", s.kh, ...args],
        {
          env: sandboxEnv(s.home),
          encoding: "utf8",
          cwd: s.work,
        },
      );
    for (const args of [["diff"], ["apply", "--yes"], ["import"]]) {
      const r = limited(...args);
      expect(r.stderr, args.join(" ")).toBe("");
      expect(r.status, args.join(" ")).toBe(0);
    }
    expect(s.read(".claude/CLAUDE.md")).toContain("rules");
  });
});

describe("an unreadable ~/.codex", () => {
  // As an unprivileged user: root reads it anyway.
  const asUser = (args: string[]) => {
    const root = process.getuid?.() === 0;
    const cmd = root ? "setpriv" : process.execPath;
    const argv = root
      ? ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, KANON, ...args]
      : [KANON, ...args];
    return spawnSync(cmd, argv, { env: sandboxEnv(s.home), encoding: "utf8", cwd: s.work });
  };

  it("is one line naming the file, not a raw EACCES", () => {
    s.writeHome("version: 1\nagents: [codex]\nmcp:\n  servers:\n    d: {command: x}\n");
    s.write(".codex/config.toml", 'model = "x"\n');
    if (process.getuid?.() === 0) {
      for (const dir of [dirname(s.home), s.home, s.work, s.kh]) chmodSync(dir, 0o755);
      chownSync(s.home, 65534, 65534);
      chownSync(join(s.home, ".codex"), 65534, 65534);
    }
    chmodSync(join(s.home, ".codex"), 0o000);
    try {
      for (const command of [["import"], ["diff"]]) {
        const r = asUser(["--home", s.kh, ...command]);
        expect(r.status, command[0]).toBe(1);
        expect(r.stderr).toMatch(
          new RegExp(
            `^(stat|read) ${join(s.home, ".codex/config.toml").replaceAll("/", "\\/")}: permission denied\\n$`,
          ),
        );
      }
    } finally {
      chmodSync(join(s.home, ".codex"), 0o755);
    }
  });
});

describe("a kanon.yaml of `${a:-` left open, 360 KB in a hook command and 60 KB in MCP values", () => {
  // What a pulled home can hold: each scan for a reference's `}` from every `${a:-` took validate
  // 39 s for the hook alone, and validate, render and diff about 50 s each for 120 KB in the server.
  const open = (n: number) => "${a:-".repeat(n);
  const yaml = [
    "version: 1",
    "agents: [claude, codex]",
    "mcp:",
    "  servers:",
    "    x:",
    "      command: srv",
    `      args: ["${open(12_000)}"]`,
    `      env: {API_TOKEN: "${open(12_000)}"}`,
    "hooks:",
    "  - name: x",
    "    event: Stop",
    `    command: "${open(72_000)}"`,
    "",
  ].join("\n");

  it("is validated, rendered, diffed and applied in seconds", async () => {
    s.writeHome(yaml);
    const start = performance.now();
    expect(await s.k("validate")).toMatchObject({ status: 0, stdout: "kanon.yaml is valid.\n" });
    expect((await s.k("render")).status).toBe(0);
    expect((await s.k("diff")).status).toBe(0);
    expect((await s.k("apply", "--yes")).status).toBe(0);
    expect(await s.k("diff")).toMatchObject({ status: 0, stdout: "No changes.\n" });
    expect(performance.now() - start).toBeLessThan(5000);
    expect(s.read(".claude/settings.json")).toContain(open(72_000));
  });
});

describe("import --write", () => {
  it("leaves out servers kanon.yaml could not hold (a newline, constructor, a NUL), so kanon accepts what it wrote", async () => {
    s.write(
      ".claude.json",
      JSON.stringify({
        mcpServers: {
          "two\nlines": { command: "a" },
          constructor: { command: "b" },
          nul: { command: "c", env: { X: "a\u0000b" } },
          "rtl\u202e": { command: "d" },
          good: { command: "e" },
        },
      }),
    );
    mkdirSync(s.kh, { recursive: true });
    const r = await s.k("import", "--write");
    expect(r.status).toBe(0);
    for (const name of ['"two\\nlines"', '"constructor"', '"nul"', '"rtl\u202e"'])
      expect(r.stderr).toContain(`skipped mcp server ${name.replace("\u202e", "<U+202E>")}`);
    expect(await s.k("validate")).toMatchObject({ status: 0, stdout: "kanon.yaml is valid.\n" });
    expect(s.readHome("kanon.yaml")).toContain("good:");
  });

  it("leaves out skill folders whose name is no safe folder name, and writes nothing for them", async () => {
    const md = "---\nname: x\ndescription: y\n---\nBody.\n";
    s.writeFiles({
      ".claude/skills/-rf/SKILL.md": md,
      ".claude/skills/ok\u001b[2Jx/SKILL.md": md,
      ".claude/skills/good/SKILL.md": md,
    });
    mkdirSync(s.kh, { recursive: true });
    const r = await s.k("import", "--write");
    expect(r.status).toBe(0);
    const why =
      "the name is not one folder name of letters, digits and . _ - : @ + ~ , = (not starting with . or -)";
    expect(r.stderr).toContain(`warning: skipped skill "-rf": ${why}\n`);
    expect(r.stderr).toContain(`warning: skipped skill "ok\\u001b[2Jx": ${why}\n`);
    expect(readdirSync(join(s.kh, "skills"))).toEqual(["good"]);
    expect(await s.k("validate")).toMatchObject({ status: 0, stdout: "kanon.yaml is valid.\n" });
  });
});

describe("Kimi Code's config.toml and Gemini CLI's settings.json", () => {
  it("come back byte for byte after kanon's hook is added and removed, again and again", async () => {
    const kimi = 'default_model = "k2"\n\n[[hooks]]\nevent = "Stop"\ncommand = "mine"\n';
    const gemini = '{\n  "theme": "dark"\n}\n';
    s.writeFiles({ ".kimi-code/config.toml": kimi, ".gemini/settings.json": gemini });
    const withHook =
      "version: 1\nagents: [kimi, gemini]\nhooks:\n  - {name: g, event: PreToolUse, matcher: Bash, command: /bin/true}\n";
    for (let i = 0; i < 3; i++) {
      s.writeHome(withHook);
      expect((await s.k("apply", "--yes")).status).toBe(0);
      expect(s.read(".kimi-code/config.toml")).toContain("# kanon: g");
      s.writeHome("version: 1\nagents: [kimi, gemini]\n");
      expect((await s.k("apply", "--yes")).status).toBe(0);
      expect(s.read(".kimi-code/config.toml")).toBe(kimi);
      expect(s.read(".gemini/settings.json")).toBe(gemini);
    }
  });

  it("keep the user's own hook groups (and so their `hooks`) as they were", async () => {
    const gemini =
      '{\n  "hooks": {\n    "AfterAgent": [{ "hooks": [{ "type": "command", "command": "mine" }] }]\n  }\n}\n';
    s.writeFiles({ ".gemini/settings.json": gemini });
    s.writeHome("version: 1\nagents: [gemini]\nhooks:\n  - {name: g, event: Stop, command: x}\n");
    expect((await s.k("apply", "--yes")).status).toBe(0);
    s.writeHome("version: 1\nagents: [gemini]\n");
    expect((await s.k("apply", "--yes")).status).toBe(0);
    expect(readFileSync(join(s.home, ".gemini/settings.json"), "utf8")).toBe(gemini);
  });
});

describe("a remote URL with a token", () => {
  it("is never printed by pull or push", async () => {
    s.writeHome("version: 1\n");
    const git = (...args: string[]) =>
      spawnSync("git", ["-C", s.kh, ...args], { env: sandboxEnv(s.home), encoding: "utf8" });
    git("init", "--quiet");
    git("add", "-A");
    git("commit", "--quiet", "-m", "one");
    git("remote", "add", "origin", "http://127.0.0.1:9/home.git?private_token=SECRETTOKEN");
    const branch = git("symbolic-ref", "--short", "HEAD").stdout.trim();
    git("config", `branch.${branch}.remote`, "origin");
    git("config", `branch.${branch}.merge`, `refs/heads/${branch}`);
    git("config", "remote.origin.pushurl", "http://user:PUSHSECRET@127.0.0.1:9/home.git");
    for (const command of ["pull", "push"]) {
      const r = await s.k(command);
      expect(r.status, command).toBe(1);
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/SECRETTOKEN|PUSHSECRET/);
      // git drops a URL's user and password itself; its query is kanon's to hide.
      if (command === "pull") expect(r.stderr).toContain("private_token=redacted");
    }
  });
});
