/**
 * The docs' reliability promises (docs/ownership.md, docs/configuration.md) through kanon's command
 * line: leftovers of an interrupted apply, bytes that are not UTF-8, and kanon.yaml values that used
 * to crash or change silently.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandboxPerTest } from "../support/cli.js";
import { deadPid } from "../support/dead-pid.js";

const s = sandboxPerTest((s) => mkdirSync(join(s.kh, "instructions"), { recursive: true }));
const { k, writeHome: yaml } = s;

describe("after an interrupted apply", () => {
  it("the next apply shreds and removes kanon's temporary files and says how many", async () => {
    yaml("version: 1\nmcp:\n  servers:\n    docs:\n      command: docs\n");
    mkdirSync(join(s.home, ".codex"));
    const pid = deadPid();
    writeFileSync(join(s.home, `..claude.json.kanon-${pid}-0123456789ab.tmp`), '{"token": "t"}\n');
    writeFileSync(join(s.home, ".codex", `.config.toml.kanon-${pid}-0123456789ab.tmp`), "x\n");
    const r = await k("apply", "--yes");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Removed 2 temporary file\(s\) left by an interrupted apply\.\n/);
    expect(
      readdirSync(s.home, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith(".tmp")),
    ).toEqual([]);
    // A dry run neither removes them nor writes anything.
    writeFileSync(join(s.home, `..claude.json.kanon-${pid}-0123456789ab.tmp`), "x\n");
    expect((await k("apply", "--dry-run")).stdout).not.toContain("Removed");
    expect((await k("apply", "--yes")).stdout).toBe(
      "Removed 1 temporary file(s) left by an interrupted apply.\nNo changes.\n",
    );
  });
});

describe("after an apply interrupted while writing the state directory", () => {
  it("the next apply removes the record's temporary files and a half-written history entry", async () => {
    yaml("version: 1\nmcp:\n  servers:\n    docs:\n      command: docs\n");
    expect((await k("apply", "--yes")).status).toBe(0);
    const roots = join(s.home, ".local/state/kanon/roots");
    const root = join(roots, readdirSync(roots)[0]!);
    const pid = deadPid();
    // The record's own atomic write, and a history entry staged with a backup (it may hold tokens).
    writeFileSync(join(root, `.record.json.kanon-${pid}-0123456789ab.tmp`), "{}\n");
    const staged = join(root, "applies", `.000009-20260101T000000Z-abcdef.kanon-${pid}-0123456789ab.tmp`);
    mkdirSync(join(staged, "files"), { recursive: true });
    writeFileSync(join(staged, "files", "0-.claude.json"), '{"token": "t"}\n');
    writeFileSync(join(staged, "apply.json"), "{}\n");
    // A live process's (vitest's, the parent of this test's): kanon leaves it.
    const running = join(root, `.record.json.kanon-${process.ppid}-bbbbbbbbbbbb.tmp`);
    writeFileSync(running, "{}\n");
    expect((await k("apply", "--yes")).stdout).toBe(
      "Removed 3 temporary file(s) left by an interrupted apply.\nNo changes.\n",
    );
    expect(readdirSync(join(root, "applies")).filter((n) => n.startsWith("."))).toEqual([]);
    expect(readdirSync(root).filter((n) => n.endsWith(".tmp"))).toEqual([running.slice(root.length + 1)]);
    // The history still undoes the last real apply.
    expect((await k("undo", "--yes")).stdout).toContain("Undid 3 file change(s).\n");
  });
});

describe("after an apply killed while writing files that are no longer rendered", () => {
  it("the next apply removes the temporary files beside them, named by the interrupted apply's history", async () => {
    yaml("version: 1\nmcp:\n  servers:\n    docs:\n      command: docs\n");
    expect((await k("apply", "--yes")).status).toBe(0);
    const roots = join(s.home, ".local/state/kanon/roots");
    const root = join(roots, readdirSync(roots)[0]!);
    const record = JSON.parse(readFileSync(join(root, "record.json"), "utf8"));
    // An apply that was writing a skill, killed before it wrote its record; kanon.yaml has no skill now.
    const skill = join(s.home, ".claude/skills/gone");
    mkdirSync(skill, { recursive: true });
    const pid = deadPid();
    writeFileSync(join(skill, `.SKILL.md.kanon-${pid}-0123456789ab.tmp`), "x\n");
    const id = "999999-20260101T000000Z-abcdef";
    mkdirSync(join(root, "applies", id));
    const change = { path: join(skill, "SKILL.md"), agent: "claude", action: "create", before: null };
    writeFileSync(
      join(root, "applies", id, "apply.json"),
      JSON.stringify({
        version: 1,
        id,
        root: s.home,
        time: "2026-01-01T00:00:00.000Z",
        previous: record,
        next: { ...record, lastApply: id },
        changes: [{ ...change, after: { sha256: "0", mode: "0644" }, backup: null }],
      }),
    );
    expect((await k("apply", "--yes")).stdout).toBe(
      "Removed 1 temporary file(s) left by an interrupted apply.\nNo changes.\n",
    );
    expect(readdirSync(skill)).toEqual([]);
  });
});

describe("bytes that are not UTF-8", () => {
  it("in an instruction file are written as they are", async () => {
    yaml("version: 1\ninstructions:\n  files: [instructions/a.md]\n");
    writeFileSync(join(s.kh, "instructions/a.md"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(readFileSync(join(s.home, ".claude/CLAUDE.md"))).toEqual(
      Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    );
    expect((await k("diff")).stdout).toBe("No changes.\n");
  });

  it("in a co-owned config.toml are kept outside kanon's entries", async () => {
    yaml("version: 1\nmcp:\n  servers:\n    docs:\n      command: docs\n");
    mkdirSync(join(s.home, ".codex"));
    const mine = Buffer.concat([Buffer.from("# caf"), Buffer.from([0xe9]), Buffer.from('\nmodel = "o4"\n')]);
    writeFileSync(join(s.home, ".codex/config.toml"), mine);
    expect((await k("apply", "--yes")).status).toBe(0);
    const after = readFileSync(join(s.home, ".codex/config.toml"));
    expect(after.subarray(0, mine.length)).toEqual(mine);
    expect(after.toString("latin1")).toContain("[mcp_servers.docs]");
  });

  it("in kanon.yaml are an error at their position", async () => {
    yaml(
      Buffer.concat([Buffer.from("version: 1\nmetadata:\n  a: caf"), Buffer.from([0xe9]), Buffer.from("\n")]),
    );
    expect(await k("validate")).toMatchObject({
      status: 1,
      stderr: "kanon.yaml:3:9: byte 0xE9 is not valid UTF-8; save kanon.yaml as UTF-8\n",
    });
  });
});

describe("kanon.yaml values that used to crash or change silently", () => {
  const server = (extra: string) => `version: 1\nmcp:\n  servers:\n    s:\n      command: x\n${extra}`;
  it.each([
    [server("      args: [~]\n"), "kanon.yaml:6:14: mcp.servers.s.args[0]: expected a string, got null"],
    [
      "version: 1\nhooks:\n  - name: h\n    command: x\n    args: [null]\n",
      "kanon.yaml:5:12: hooks[0].args[0]: expected a string, got null",
    ],
    [
      "version: 1\ninstructions: {files: [~]}\n",
      "kanon.yaml:2:24: instructions.files[0]: expected a string, got null",
    ],
    [
      "version: 1\nhooks:\n  - name: h\n    command: x\n    targets: [~]\n",
      "kanon.yaml:5:15: hooks[0].targets[0]: expected a string, got null",
    ],
    [
      "version: 1\nhooks:\n  - name: h\n    command: x\n    timeout: -5\n",
      "kanon.yaml:5:14: hooks[0].timeout: expected an integer from 0 to 2147483647, got number -5",
    ],
    [
      server("      startup_timeout_sec: 9007199254740993\n"),
      "kanon.yaml:6:28: mcp.servers.s.startup_timeout_sec: expected an integer from 0 to 2147483647, got number 9007199254740993",
    ],
    [
      server('      args: ["a\\0b"]\n'),
      "kanon.yaml:6:14: mcp.servers.s.args[0]: contains a NUL character, which no agent can take",
    ],
    [
      "version: 1\nmcp:\n  servers:\n    __proto__:\n      command: x\n",
      'kanon.yaml:4:5: mcp.servers.__proto__: "__proto__" cannot be used as a name',
    ],
    [
      "version: 1\n---\nversion: 1\n",
      'kanon.yaml:2:1: a second YAML document starts here; kanon.yaml holds one document (remove the "---" line)',
    ],
    ["version: 2\n", "kanon.yaml:1:10: unsupported version 2"],
    [
      "version: 1\nhooks:\n  - name: x\n    command: y\n    targets: [cursor]\n",
      'kanon.yaml:5:15: hook "x" has unsupported target "cursor"',
    ],
  ])("%j → one located error, nothing written", async (text, error) => {
    yaml(text);
    for (const cmd of ["validate", "apply"]) {
      const r = await k(cmd, ...(cmd === "apply" ? ["--yes"] : []));
      expect(r, cmd).toMatchObject({ status: 1, stderr: `${error}\n` });
    }
    expect(readdirSync(s.home)).toEqual([]);
  });

  it("a hook that takes its fields from a merge key renders with them", async () => {
    yaml(
      "version: 1\nx-guard: &guard\n  event: PreToolUse\n  matcher: Bash\n  command: /bin/guard\nhooks:\n  - name: g\n    <<: *guard\n    timeout: 5\n",
    );
    const r = await k("render", "--agent", "codex");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('"command": "/bin/guard"');
    expect(r.stdout).toContain('"timeout": 5');
  });

  it("an event, a handler type or a variable named like an Object.prototype member is an ordinary name", async () => {
    yaml(
      "version: 1\nhooks:\n  - name: a\n    event: toString\n    command: x\n  - name: b\n    event: Stop\n    command: ${constructor}\n",
    );
    const r = await k("render");
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      'warning: hook "a" is not rendered for codex: event "toString" is not supported',
    );
    expect(r.stderr).toContain('hook "a": unknown event "toString"');
    expect(r.stderr).toContain("references unset environment variable constructor");
    // A handler type kanon does not know is an error, named like a prototype member or not.
    yaml("version: 1\nhooks:\n  - name: b\n    event: Stop\n    type: constructor\n    command: x\n");
    expect(await k("render")).toMatchObject({
      status: 1,
      stderr:
        'kanon.yaml:5:11: hook "b": unknown type "constructor" (known: command, http, mcp_tool, prompt, agent)\n',
    });
  });

  it("an MCP server named toString is an ordinary name", async () => {
    yaml("version: 1\nmcp:\n  servers:\n    toString:\n      command: x\n");
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(JSON.parse(readFileSync(join(s.home, ".claude.json"), "utf8")).mcpServers.toString.command).toBe(
      "x",
    );
    expect(existsSync(join(s.home, ".codex/config.toml"))).toBe(true);
  });
});
