/**
 * The home's files are read as the home's files, and whatever kanon reads — home, destination,
 * record, backups — is a regular file of bounded size: symlinks out of the home are refused naming
 * them, FIFOs, devices and sockets are refused at once (never waited on), and no read grows without
 * bound.
 */
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ReadRefused, readBounded } from "../../src/model/bounded-read.js";
import { listFiles, ROOT, sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();
const SKILL = "---\nname: review\ndescription: x\n---\nReview.\n";
const mkfifo = (path: string) => execFileSync("mkfifo", [path]);
const nothingApplied = () => expect(listFiles(s.home).filter((f) => !f.startsWith("outside"))).toEqual([]);

describe("a symlink in the home", () => {
  it("to a file outside it (an instruction) is refused by validate, render, diff and apply, naming it", async () => {
    s.write("outside/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n");
    s.writeHome("version: 1\ninstructions:\n  files: [instructions/shared.md]\n");
    mkdirSync(join(s.kh, "instructions"));
    symlinkSync("../../../home/outside/id_rsa", join(s.kh, "instructions/shared.md"));
    const line = `kanon.yaml:3:11: instruction "instructions/shared.md": ${join(s.kh, "instructions/shared.md")} is a symlink to ${join(s.home, "outside/id_rsa")}, outside the Kanon home\n`;
    for (const command of [["validate"], ["render"], ["diff"], ["apply", "--yes"]]) {
      const r = await s.k(...command);
      expect(r, command[0]).toMatchObject({ status: 1, stdout: "", stderr: line });
    }
    nothingApplied();
  });

  it("in a skill, to a file outside the home, is refused naming the skill and the link", async () => {
    s.write("outside/token", "secret\n");
    s.writeHome("version: 1\n", { "skills/review/SKILL.md": SKILL });
    symlinkSync(join(s.home, "outside/token"), join(s.kh, "skills/review/notes.md"));
    const r = await s.k("apply", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `skill "review": ${join(s.kh, "skills/review/notes.md")}: is a symlink to ${join(s.home, "outside/token")}, outside ${s.kh}\n`,
    );
    nothingApplied();
  });

  it("to a file inside the home is read as that file (skills keep working with links between them)", async () => {
    s.writeHome("version: 1\nagents: [claude]\n", {
      "skills/review/SKILL.md": SKILL,
      "shared/style.md": "style\n",
    });
    symlinkSync("../../shared/style.md", join(s.kh, "skills/review/style.md"));
    expect((await s.k("apply", "--yes")).status).toBe(0);
    expect(s.read(".claude/skills/review/style.md")).toBe("style\n");
  });

  it("a skill path: that is a symlinked folder leaving the home is refused", async () => {
    s.write("outside/payload/SKILL.md", SKILL);
    s.writeHome("version: 1\nskills:\n  - name: review\n    path: payload\n");
    symlinkSync(join(s.home, "outside/payload"), join(s.kh, "payload"));
    const r = await s.k("validate");
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `kanon.yaml:3:5: skill "review": ${join(s.kh, "payload")} is a symlink to ${join(s.home, "outside/payload")}, outside the Kanon home\n`,
    );
  });
});

describe("special files", () => {
  it("a FIFO at ~/.claude.json: diff, apply and import end at once with one line naming it", async () => {
    s.writeHome("version: 1\nagents: [claude]\nmcp:\n  servers:\n    docs: {command: docs-mcp}\n");
    mkfifo(join(s.home, ".claude.json"));
    const refused = `read ${join(s.home, ".claude.json")}: is a FIFO, not a regular file\n`;
    expect(await s.k("diff")).toMatchObject({ status: 1, stderr: refused });
    expect(await s.k("apply", "--yes")).toMatchObject({ status: 1, stderr: refused });
    const imported = await s.k("import");
    expect(imported.status).toBe(0);
    expect(imported.stderr).toContain(
      `warning: could not read ${join(s.home, ".claude.json")}: is a FIFO, not a regular file\n`,
    );
  });

  it("settings.json linked to /dev/zero: diff, apply and import refuse it at once", async () => {
    s.writeHome("version: 1\nagents: [claude]\nhooks:\n  - {name: g, event: Stop, command: x}\n");
    mkdirSync(join(s.home, ".claude"));
    symlinkSync("/dev/zero", join(s.home, ".claude/settings.json"));
    // A destination symlink is read at its target: the message names what is there.
    const refused = "read /dev/zero: is a character device, not a regular file\n";
    expect(await s.k("diff")).toMatchObject({ status: 1, stderr: refused });
    expect(await s.k("apply", "--yes")).toMatchObject({ status: 1, stderr: refused });
    expect((await s.k("import")).stderr).toContain("is a character device, not a regular file");
  });

  it("an instruction linked to /dev/zero does not validate", async () => {
    s.writeHome("version: 1\ninstructions:\n  files: [/dev/zero]\n");
    const r = await s.k("validate");
    expect(r).toMatchObject({
      status: 1,
      stderr:
        'kanon.yaml:3:11: instruction "/dev/zero": /dev/zero is a character device, not a regular file\n',
    });
  });

  it("a FIFO as kanon.yaml or kanon.lock is refused at once", async () => {
    mkdirSync(s.kh);
    mkfifo(join(s.kh, "kanon.yaml"));
    expect(await s.k("validate")).toMatchObject({
      status: 1,
      stderr: `read ${join(s.kh, "kanon.yaml")}: is a FIFO, not a regular file\n`,
    });
    rmSync(join(s.kh, "kanon.yaml"));
    writeFileSync(join(s.kh, "kanon.yaml"), "version: 1\n");
    mkfifo(join(s.kh, "kanon.lock"));
    const r = await s.k("validate");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("is a FIFO, not a regular file");
  });

  it("a FIFO in a skill folder is refused, naming it", async () => {
    s.writeHome("version: 1\n", { "skills/review/SKILL.md": SKILL });
    mkfifo(join(s.kh, "skills/review/pipe"));
    const r = await s.k("render");
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`skill "review": ${join(s.kh, "skills/review/pipe")}: is not a regular file\n`);
  });

  it("record.json linked to /dev/zero is a warning and a fresh start, not gigabytes read", async () => {
    s.writeHome("version: 1\nagents: [claude]\ninstructions:\n  files: [i.md]\n", { "i.md": "rules\n" });
    expect((await s.k("apply", "--yes")).status).toBe(0);
    const roots = join(s.home, ".local/state/kanon/roots");
    const record = join(roots, readdirSync(roots)[0]!, "record.json");
    rmSync(record);
    symlinkSync("/dev/zero", record);
    const r = await s.k("diff");
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      `warning: cannot read the kanon record ${record}: is a character device, not a regular file; treating this machine as new\n`,
    );
  });

  it("a backup that became a FIFO stops undo at once, naming it; nothing is restored", async () => {
    s.write(".claude/CLAUDE.md", "my own rules\n");
    s.writeHome("version: 1\nagents: [claude]\ninstructions:\n  files: [i.md]\n", { "i.md": "rules\n" });
    expect((await s.k("apply", "--yes")).status).toBe(0);
    const state = join(s.home, ".local/state/kanon");
    const backups = listFiles(state).filter((f) => /\/applies\/[^/]+\/(?!apply\.json$)[^/]+/.test(f));
    expect(backups).toHaveLength(1);
    const backup = join(state, backups[0]!);
    rmSync(backup);
    mkfifo(backup);
    const r = await s.k("undo", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^cannot undo the apply of .*: the backup of .*CLAUDE\\.md \\(${backup.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\) is unreadable: is a FIFO, not a regular file; nothing was restored`,
      ),
    );
    expect(s.read(".claude/CLAUDE.md")).toContain("rules\n");
    expect(s.read(".claude/CLAUDE.md")).not.toContain("my own rules");
  });
});

describe("one reader", () => {
  it("no module of src/ reads a file but model/bounded-read.ts and the fs seam built on it", () => {
    const src = join(ROOT, "src");
    // destination/fs.ts: plan, apply and undo read through `fs.readFile`, which is readBounded.
    // docs/: the docs generator (npm run docs) reads the repository's own README.md and docs/*.md.
    const exempt = (f: string) =>
      f === "model/bounded-read.ts" || f === "destination/fs.ts" || f.startsWith("docs/");
    const reader = /(?<![.\w])(readFileSync|readSync|createReadStream|readFile)\b/;
    const readers = listFiles(src).filter(
      (f) => /\.tsx?$/.test(f) && !exempt(f) && reader.test(readFileSync(join(src, f), "utf8")),
    );
    expect(readers).toEqual([]);
    expect(readFileSync(join(src, "destination/fs.ts"), "utf8")).toContain(
      "readFile: (path) => readBounded(path, { limit: READ_LIMIT.destination }).bytes",
    );
  });
});

describe("the bounded reader", () => {
  const dir = mkdtempSync(join(tmpdir(), "kanon-reader-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads a regular file whole, with its mode", () => {
    writeFileSync(join(dir, "f"), "hello", { mode: 0o640 });
    const f = readBounded(join(dir, "f"), { limit: 10 });
    expect(f.bytes.toString()).toBe("hello");
    expect(f.mode).toBe(0o640);
  });

  it("refuses a file over its limit before reading it", () => {
    writeFileSync(join(dir, "big"), "x".repeat(11));
    expect(() => readBounded(join(dir, "big"), { limit: 10 })).toThrow(
      new ReadRefused(join(dir, "big"), "is larger than kanon reads (11 bytes; at most 10 bytes)"),
    );
  });

  it("reads a file whose size the kernel does not know up to the limit, and no further", () => {
    expect(readBounded("/proc/self/status", { limit: 1 << 20 }).bytes.toString()).toContain("Name:");
    expect(() => readBounded("/proc/self/status", { limit: 16 })).toThrow(/is larger than kanon reads/);
  });

  it("refuses a FIFO with no writer at once, a device, a directory and a socket", async () => {
    mkfifo(join(dir, "fifo"));
    expect(() => readBounded(join(dir, "fifo"), { limit: 10 })).toThrow("is a FIFO, not a regular file");
    expect(() => readBounded("/dev/zero", { limit: 10 })).toThrow(
      "is a character device, not a regular file",
    );
    expect(() => readBounded(dir, { limit: 10 })).toThrow("is a directory, not a regular file");
    const sock = join(dir, "sock");
    const server = createServer();
    await new Promise<void>((r) => server.listen(sock, r));
    try {
      expect(() => readBounded(sock, { limit: 10 })).toThrow("is a socket, not a regular file");
    } finally {
      server.close();
    }
  });

  it("with noFollow, refuses a symlink itself", () => {
    symlinkSync(join(dir, "f"), join(dir, "link"));
    expect(() => readBounded(join(dir, "link"), { limit: 10, noFollow: true })).toThrow("is a symbolic link");
    expect(readBounded(join(dir, "link"), { limit: 10 }).bytes.toString()).toBe("hello");
  });
});
