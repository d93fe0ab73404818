/**
 * The write phase under races and crashes: a write by someone else inside kanon's window is never
 * overwritten, leftovers of an interrupted apply are found and removed, symlinks stay symlinks, and
 * bytes that are not UTF-8 survive. The races are driven deterministically through a file system that
 * acts right before kanon's writes (test/support/window-fs.ts).
 */
import {
  appendFileSync,
  closeSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyChanges, destinationDirs, removeLeftovers } from "../../src/destination/apply.js";
import { planChanges } from "../../src/destination/plan.js";
import { emptyRecord, sha256 } from "../../src/destination/record.js";
import type { TargetFile } from "../../src/model/types.js";
import { deadPid } from "../support/dead-pid.js";
import { windowFs } from "../support/window-fs.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kanon-races-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const owned = (rel: string, content: string): TargetFile => ({
  agent: "claude",
  path: join(dir, rel),
  content: Buffer.from(content),
  mode: 0o644,
});
const settings = (rel = "settings.json"): TargetFile => ({
  agent: "claude",
  path: join(dir, rel),
  content: Buffer.from('{\n  "hooks": {}\n}\n'),
  mode: 0o644,
  merge: { kind: "value", format: "json", key: "hooks" },
  managed: { hooks: { Stop: [] } },
});
const skills = (n: number) =>
  Array.from({ length: n }, (_, i) => owned(`a-skills/s${i}/SKILL.md`, `skill ${i}\n`));
const temps = (d: string) =>
  readdirSync(d, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".tmp"));

describe("a write inside kanon's window", () => {
  it("to an existing co-owned file once everything is staged stops kanon; the write is kept", async () => {
    const path = join(dir, "settings.json");
    writeFileSync(path, '{"theme": "dark"}\n');
    const plan = await planChanges([...skills(50), settings()]);
    const fs = windowFs((op, p) => {
      if (op === "stage" && p === path) writeFileSync(path, '{"theme": "light"}\n');
    });
    expect(() => applyChanges(plan.changes, fs)).toThrow(
      `${path} changed while kanon was applying; nothing was written, run the command again`,
    );
    expect(readFileSync(path, "utf8")).toBe('{"theme": "light"}\n');
    expect(fs.ops.filter((o) => /^(rename|link) /.test(o))).toEqual([]);
    // Nor are the folders made for kanon's own files left behind, empty.
    expect(existsSync(join(dir, "a-skills"))).toBe(false);
    expect(temps(dir)).toEqual([]);
  });

  it("to a second co-owned file after the first was renamed: says which were written", async () => {
    const first = join(dir, "a.json");
    const second = join(dir, "b.json");
    writeFileSync(first, "{}\n");
    writeFileSync(second, "{}\n");
    const plan = await planChanges([settings("a.json"), settings("b.json"), owned("x.md", "x\n")]);
    const fs = windowFs((op, p) => {
      if (op === "rename" && p === first) writeFileSync(second, '{"mine": 1}\n');
    });
    expect(() => applyChanges(plan.changes, fs)).toThrow(
      `${second} changed while kanon was applying and was left as it is; 1 file(s) were written before it (${first}), the rest were not; run the command again`,
    );
    expect(readFileSync(second, "utf8")).toBe('{"mine": 1}\n');
    expect(readFileSync(first, "utf8")).toContain('"Stop"');
    expect(existsSync(join(dir, "x.md"))).toBe(false);
    expect(temps(dir)).toEqual([]);
  });

  it("a line appended to a file kanon owns whole, after the plan, is never overwritten", async () => {
    const path = join(dir, "CLAUDE.md");
    writeFileSync(path, "old\n");
    const plan = await planChanges([owned("CLAUDE.md", "new\n"), ...skills(3)]);
    // Written while kanon waited at its prompt: kanon stops before it writes anything.
    appendFileSync(path, "mine\n");
    expect(() => applyChanges(plan.changes)).toThrow(
      `${path} changed while kanon was applying; nothing was written, run the command again`,
    );
    expect(readFileSync(path, "utf8")).toBe("old\nmine\n");
    expect(existsSync(join(dir, "a-skills"))).toBe(false);

    // Written inside the window, after the other files moved: kanon stops there, and says what it wrote.
    writeFileSync(path, "old\n");
    const again = await planChanges([...skills(3), owned("z/CLAUDE.md", "z\n"), owned("CLAUDE.md", "new\n")]);
    const fs = windowFs((op, p) => {
      if (op === "link" && p === join(dir, "z/CLAUDE.md")) appendFileSync(path, "mine\n");
    });
    expect(() => applyChanges(again.changes, fs)).toThrow(
      new RegExp(
        `^${path} changed while kanon was applying and was left as it is; 4 file\\(s\\) were written before it`,
      ),
    );
    expect(readFileSync(path, "utf8")).toBe("old\nmine\n");
    expect(temps(dir)).toEqual([]);
  });

  it("a file created at a planned path after the plan is never overwritten", async () => {
    const path = join(dir, "a-skills/s1/SKILL.md");
    const plan = await planChanges(skills(3));
    // Created while kanon waited at its prompt.
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, "mine\n");
    expect(() => applyChanges(plan.changes)).toThrow(
      `${path} changed while kanon was applying; nothing was written`,
    );
    expect(readFileSync(path, "utf8")).toBe("mine\n");
    rmSync(join(dir, "a-skills"), { recursive: true });

    // Created in the instant before kanon puts its own there: a link never overwrites.
    const again = await planChanges(skills(3));
    const fs = windowFs((op, p) => {
      if (op === "link" && p === path) writeFileSync(path, "mine\n");
    });
    expect(() => applyChanges(again.changes, fs)).toThrow(`${path} changed while kanon was applying`);
    expect(readFileSync(path, "utf8")).toBe("mine\n");
    expect(temps(dir)).toEqual([]);
  });

  it("a file to delete that changed after the plan is kept", async () => {
    const path = join(dir, "gone.md");
    writeFileSync(path, "kanon's\n");
    const plan = await planChanges([], {
      root: dir,
      agents: ["claude"],
      record: {
        ...emptyRecord(dir),
        files: { [path]: { agent: "claude", sha256: sha256("kanon's\n"), mode: "0644" } },
      },
    });
    expect(plan.changes.map((c) => c.action)).toEqual(["delete"]);
    const fs = windowFs((op, p) => {
      if (op === "unlink" && p === path) throw new Error("unreachable: kanon looked first");
    });
    writeFileSync(path, "kanon's, and mine\n");
    expect(() => applyChanges(plan.changes, fs)).toThrow(`${path} changed while kanon was applying`);
    expect(readFileSync(path, "utf8")).toBe("kanon's, and mine\n");
  });

  it("creating a co-owned file that did not exist at plan time stops kanon; the new file is kept", async () => {
    const path = join(dir, "settings.json");
    const plan = await planChanges([settings(), owned("x.md", "x\n")]);
    expect(plan.changes[0]!.action).toBe("create");
    const fs = windowFs((op, p) => {
      if (op === "link" && p === path) writeFileSync(path, '{"created": "by the agent"}\n');
    });
    expect(() => applyChanges(plan.changes, fs)).toThrow(`${path} changed while kanon was applying`);
    expect(readFileSync(path, "utf8")).toBe('{"created": "by the agent"}\n');
    expect(existsSync(join(dir, "x.md"))).toBe(false);
    expect(temps(dir)).toEqual([]);
  });

  it("between plan and apply, for a file that did not exist, stops before anything is written", async () => {
    const path = join(dir, "settings.json");
    const plan = await planChanges([owned("x.md", "x\n"), settings()]);
    writeFileSync(path, "{}\n");
    expect(() => applyChanges(plan.changes)).toThrow(`${path} changed while kanon was applying`);
    expect(readFileSync(path, "utf8")).toBe("{}\n");
    expect(existsSync(join(dir, "x.md"))).toBe(false);
  });

  it("an error while renaming names the destination, not kanon's temporary file", async () => {
    const plan = await planChanges([owned("x.md", "x\n")]);
    const fs = windowFs((op) => {
      if (op === "link") throw Object.assign(new Error("EIO: i/o error, link"), { code: "EIO" });
    });
    const run = () => applyChanges(plan.changes, fs);
    expect(run).toThrow(new RegExp(`^cannot write ${join(dir, "x.md")}: .*; nothing was written$`));
    expect(temps(dir)).toEqual([]);
  });

  it("a directory another apply creates meanwhile is used; a file there is an error naming it", async () => {
    const plan = await planChanges([owned("new/a.md", "a\n")]);
    applyChanges(
      plan.changes,
      windowFs((op, d) => op === "mkdir" && mkdirSync(d)),
    );
    expect(readFileSync(join(dir, "new/a.md"), "utf8")).toBe("a\n");

    const again = await planChanges([owned("other/b.md", "b\n")]);
    const fs = windowFs((op, d) => op === "mkdir" && writeFileSync(d, ""));
    expect(() => applyChanges(again.changes, fs)).toThrow(
      `cannot write into ${join(dir, "other")}: it is a file, not a directory; nothing was written`,
    );
  });

  it("a destination name near the file system's limit still gets a temporary file", async () => {
    const name = `${"n".repeat(250)}.md`;
    applyChanges((await planChanges([owned(name, "x\n")])).changes);
    expect(readFileSync(join(dir, name), "utf8")).toBe("x\n");
  });
});

describe("leftovers of an interrupted apply", () => {
  it("are removed (overwritten with zeros first) when their process is gone, and counted", () => {
    mkdirSync(join(dir, "claude"));
    const pid = deadPid();
    const secret = join(dir, "claude", `..claude.json.kanon-${pid}-0123456789ab.tmp`);
    writeFileSync(secret, '{"token": "secret"}\n', { mode: 0o600 });
    const witness = openSync(secret, "r"); // the same bytes, read after the file is gone
    writeFileSync(join(dir, `.x.md.kanon-${pid}-aaaaaaaaaaaa.tmp`), "x\n");
    const running = join(dir, `.y.md.kanon-${process.ppid}-bbbbbbbbbbbb.tmp`);
    writeFileSync(running, "y\n");
    writeFileSync(join(dir, "notes.kanon.tmp"), "not ours\n");

    expect(removeLeftovers([dir, join(dir, "claude"), join(dir, "missing")])).toBe(2);
    expect(readdirSync(join(dir, "claude"))).toEqual([]);
    const left = Buffer.alloc(20, 1);
    readSync(witness, left, 0, 20, 0);
    closeSync(witness);
    expect(left).toEqual(Buffer.alloc(20));
    // A running kanon's file and files kanon does not name are left alone.
    expect(existsSync(running)).toBe(true);
    expect(existsSync(join(dir, "notes.kanon.tmp"))).toBe(true);
  });

  it("never zero a file that has another name (a new file linked into place before its kill)", () => {
    const pid = deadPid();
    const temp = join(dir, `.CLAUDE.md.kanon-${pid}-0123456789ab.tmp`);
    writeFileSync(temp, "Be brief.\n");
    linkSync(temp, join(dir, "CLAUDE.md"));
    expect(removeLeftovers([dir])).toBe(1);
    expect(readdirSync(dir)).toEqual(["CLAUDE.md"]);
    expect(readFileSync(join(dir, "CLAUDE.md"), "utf8")).toBe("Be brief.\n");
  });

  it("are looked for beside every rendered file and beside a symlinked destination's target", () => {
    mkdirSync(join(dir, "dotfiles"));
    mkdirSync(join(dir, "home"));
    symlinkSync(join(dir, "dotfiles/settings.json"), join(dir, "home/settings.json"));
    const dirs = destinationDirs([settings("home/settings.json"), owned("skills/a/SKILL.md", "")]);
    expect([...dirs].sort()).toEqual([join(dir, "dotfiles"), join(dir, "home"), join(dir, "skills/a")]);
  });
});

describe("symlinked destinations", () => {
  it("a dangling symlink is written at its target and stays a symlink", async () => {
    mkdirSync(join(dir, "home"));
    const link = join(dir, "home/CLAUDE.md");
    symlinkSync("../dotfiles/claude/CLAUDE.md", link);
    const plan = await planChanges([owned("home/CLAUDE.md", "hello\n")]);
    expect(plan.changes[0]).toMatchObject({ action: "create", path: join(dir, "dotfiles/claude/CLAUDE.md") });
    applyChanges(plan.changes);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe("../dotfiles/claude/CLAUDE.md");
    expect(readFileSync(link, "utf8")).toBe("hello\n");
    expect((await planChanges([owned("home/CLAUDE.md", "hello\n")])).changes).toEqual([]);
  });

  it("a chain of symlinks to a co-owned file is merged at the end of the chain", async () => {
    mkdirSync(join(dir, "real"));
    writeFileSync(join(dir, "real/settings.json"), '{"theme": "dark"}\n');
    symlinkSync("real/settings.json", join(dir, "middle.json"));
    symlinkSync("middle.json", join(dir, "settings.json"));
    applyChanges((await planChanges([settings()])).changes);
    expect(lstatSync(join(dir, "settings.json")).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(dir, "middle.json")).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, "real/settings.json"), "utf8"))).toEqual({
      theme: "dark",
      hooks: { Stop: [] },
    });
  });

  it("a symlink loop is an error naming the destination", async () => {
    symlinkSync("b.json", join(dir, "a.json"));
    symlinkSync("a.json", join(dir, "b.json"));
    await expect(planChanges([settings("a.json")])).rejects.toThrow(
      `cannot write ${join(dir, "a.json")}: too many levels of symbolic links`,
    );
  });
});

describe("bytes that are not UTF-8 in a co-owned file", () => {
  const bytes = (...parts: (string | number[])[]) =>
    Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p))));

  it("survive a TOML merge outside kanon's entries", async () => {
    const path = join(dir, "config.toml");
    const before = bytes("# caf", [0xe9], '\nmodel = "x', [0xff, 0xfe], '"\n');
    writeFileSync(path, before);
    const plan = await planChanges([
      {
        agent: "codex",
        path,
        content: Buffer.from(""),
        mode: 0o644,
        merge: { kind: "entries", format: "toml", key: "mcp_servers" },
        managed: { mcp_servers: { s: { command: "s" } } },
      },
    ]);
    applyChanges(plan.changes);
    const after = readFileSync(path);
    expect(after.subarray(0, before.length)).toEqual(before);
    expect(after.includes(Buffer.from([0xef, 0xbf, 0xbd]))).toBe(false);
    expect(after.toString("latin1")).toContain("[mcp_servers.s]\ncommand = 's'");
  });

  it("survive a JSONC merge, in strings and comments", async () => {
    const path = join(dir, "opencode.jsonc");
    writeFileSync(path, bytes("{\n  // caf", [0xe9], '\n  "theme": "x', [0xc3], '"\n}\n'));
    const plan = await planChanges([
      {
        agent: "opencode",
        path,
        content: Buffer.from(""),
        mode: 0o644,
        merge: { kind: "entries", format: "jsonc", key: "mcp" },
        managed: { mcp: { s: { type: "local", command: ["s"] } } },
      },
    ]);
    applyChanges(plan.changes);
    const after = readFileSync(path);
    expect(after.includes(bytes("// caf", [0xe9], "\n"))).toBe(true);
    expect(after.includes(bytes('"theme": "x', [0xc3], '"'))).toBe(true);
    expect(after.includes(Buffer.from([0xef, 0xbf, 0xbd]))).toBe(false);
  });
});
