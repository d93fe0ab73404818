/**
 * `kanon apply` and `kanon undo` never overwrite a byte written after their plan, whether it lands
 * while they wait at `[y/N]` or inside their window (through the file system the Io carries,
 * test/support/window-fs.ts); undo restores everything or nothing; its history survives a kill in its
 * cleanup. In-process (main with an Io), but for the kills, which need a process of their own.
 */
import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/context.js";
import { main } from "../../src/cli/main.js";
import type { DestinationFs } from "../../src/destination/fs.js";
import { KANON, ROOT, sandboxEnv } from "../support/cli.js";
import { windowFs } from "../support/window-fs.js";

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

let base: string;
let home: string;
let kh: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "kanon-undo-safety-"));
  home = join(base, "home");
  kh = join(base, "kh");
  mkdirSync(home);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const at = (rel: string) => join(home, rel);
const read = (rel: string) => readFileSync(at(rel), "utf8");
function write(rel: string, text: string) {
  mkdirSync(dirname(at(rel)), { recursive: true });
  writeFileSync(at(rel), text);
}
function writeHome(yaml: string, files: Record<string, string> = {}) {
  for (const [rel, text] of Object.entries({ "kanon.yaml": yaml, ...files })) {
    mkdirSync(dirname(join(kh, rel)), { recursive: true });
    writeFileSync(join(kh, rel), text);
  }
}

interface Options {
  fs?: DestinationFs;
  /** Run while kanon waits at its prompt; the answer is "y" once it returns. */
  atPrompt?: () => void;
}

/** `kanon --home kh --agent claude …args`, in-process. */
async function kanon(args: string[], options: Options = {}) {
  const stdout = new Capture();
  const stderr = new Capture();
  const stdin = new PassThrough();
  if (options.atPrompt) {
    const atPrompt = options.atPrompt;
    // The prompt is the last thing written before kanon reads its answer.
    const write = stdout._write.bind(stdout);
    stdout._write = (chunk, enc, done) => {
      write(chunk, enc, done);
      if (/\[y\/N\] $/.test(chunk.toString())) {
        atPrompt();
        stdin.end("y\n");
      }
    };
  } else stdin.end();
  const io: Io = {
    stdout,
    stderr,
    stdin: stdin as unknown as NodeJS.ReadStream,
    env: { PATH: process.env.PATH },
    cwd: base,
    userHome: home,
    ...(options.fs ? { fs: options.fs } : {}),
  };
  const status = await main(["--home", kh, "--agent", "claude", ...args], io);
  return { status, stdout: stdout.text, stderr: stderr.text };
}

const stateDir = () => {
  const roots = join(home, ".local/state/kanon/roots");
  return join(roots, readdirSync(roots)[0]!);
};
const entries = () => readdirSync(join(stateDir(), "applies")).sort();

const SERVERS = (v: string) =>
  `version: 1\ninstructions:\n  files: [shared.md]\nmcp:\n  servers:\n    docs:\n      command: docs-${v}\n`;

/** ~/.claude.json with the user's own keys; an apply of "a", then one of "b" to undo. */
async function appliedTwice() {
  write(
    ".claude.json",
    `${JSON.stringify({ userID: "u-1", oauthAccount: { accessToken: "t" } }, null, 2)}\n`,
  );
  writeHome(SERVERS("a"), { "shared.md": "Be brief.\n" });
  expect((await kanon(["apply", "--yes"])).status).toBe(0);
  writeHome(SERVERS("b"), { "shared.md": "Be briefer.\n" });
  expect((await kanon(["apply", "--yes"])).status).toBe(0);
  expect(read(".claude.json")).toContain("docs-b");
}

/** What Claude Code does to ~/.claude.json while it runs: a key of its own, written in place. */
const claudeWrites = () => {
  const doc = JSON.parse(read(".claude.json"));
  doc.numStartups = 7;
  write(".claude.json", `${JSON.stringify(doc, null, 2)}\n`);
};

describe("kanon undo never overwrites a write made after its plan", () => {
  it("while it waits at [y/N]: Claude Code's key stays, and nothing is restored", async () => {
    await appliedTwice();
    const r = await kanon(["undo"], { atPrompt: claudeWrites });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^cannot undo the apply of .*: changed since then: ${at(".claude.json")}; nothing was restored\\n$`,
      ),
    );
    expect(JSON.parse(read(".claude.json")).numStartups).toBe(7);
    // Nothing at all: CLAUDE.md is still what the second apply wrote.
    expect(read(".claude/CLAUDE.md")).toBe("Be briefer.\n");
  });

  it("with --yes, inside its window: stopped right before that file's rename", async () => {
    await appliedTwice();
    const fs = windowFs((op, p) => {
      if (op === "stage" && p === at(".claude.json")) claudeWrites();
    });
    const r = await kanon(["undo", "--yes"], { fs });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("nothing was restored");
    expect(JSON.parse(read(".claude.json")).numStartups).toBe(7);
    expect(read(".claude/CLAUDE.md")).toBe("Be briefer.\n");
  });

  it("a write after the first file was restored: says what was restored; undo again finishes", async () => {
    await appliedTwice();
    // Files are restored in the order the apply wrote them: ~/.claude.json, then CLAUDE.md.
    const fs = windowFs((op, p) => {
      if (op === "rename" && p === at(".claude.json")) appendFileSync(at(".claude/CLAUDE.md"), "mine\n");
    });
    const r = await kanon(["undo", "--yes"], { fs });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `${at(".claude/CLAUDE.md")} changed while kanon was undoing and was left as it is; 1 file(s) were written before it (${at(".claude.json")}), the rest were not; run the command again\n`,
    );
    expect(read(".claude/CLAUDE.md")).toBe("Be briefer.\nmine\n");
    expect(read(".claude.json")).toContain("docs-a");
    // Put back as the apply left it, the rest is undone; the restored file is not touched again.
    write(".claude/CLAUDE.md", "Be briefer.\n");
    const again = await kanon(["undo", "--yes"]);
    expect(again.status).toBe(0);
    expect(again.stdout).not.toContain(".claude.json");
    expect(read(".claude/CLAUDE.md")).toBe("Be brief.\n");
  });
});

describe("kanon apply never overwrites a write made after its plan", () => {
  it("a line appended to a kanon-owned CLAUDE.md at the prompt is kept; nothing is written", async () => {
    writeHome(SERVERS("a"), { "shared.md": "Be brief.\n" });
    expect((await kanon(["apply", "--yes"])).status).toBe(0);
    writeHome(SERVERS("b"), { "shared.md": "Be briefer.\n" });
    const r = await kanon(["apply"], { atPrompt: () => appendFileSync(at(".claude/CLAUDE.md"), "mine\n") });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `${at(".claude/CLAUDE.md")} changed while kanon was applying; nothing was written, run the command again\n`,
    );
    expect(read(".claude/CLAUDE.md")).toBe("Be brief.\nmine\n");
    expect(read(".claude.json")).toContain("docs-a");
    // Run again, the line is shown as not kanon's, saved, then replaced.
    const again = await kanon(["apply", "--yes"]);
    expect(again.stdout).toMatch(/Saved .*CLAUDE\.md.*: backup in /);
  });

  it("a file created at a planned path at the prompt is kept; nothing is written", async () => {
    writeHome("version: 1\ninstructions:\n  files: [shared.md]\n", { "shared.md": "Be brief.\n" });
    const r = await kanon(["apply"], { atPrompt: () => write(".claude/CLAUDE.md", "mine\n") });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `${at(".claude/CLAUDE.md")} changed while kanon was applying; nothing was written`,
    );
    expect(read(".claude/CLAUDE.md")).toBe("mine\n");
  });
});

describe("kanon undo restores everything or nothing", () => {
  /** The backup files of the newest history entry. */
  const backups = () => {
    const dir = join(stateDir(), "applies", entries().at(-1)!, "files");
    return readdirSync(dir).map((f) => join(dir, f));
  };

  it("a missing backup: nothing is restored, the message names it, and -n says so too", async () => {
    await appliedTwice();
    const gone = backups().find((f) => f.endsWith("-CLAUDE.md"))!;
    rmSync(gone);
    const message = new RegExp(
      `^cannot undo the apply of .*: the backup of ${at(".claude/CLAUDE.md")} \\(${gone}\\) is missing; nothing was restored \\(remove .* to undo the ones before it\\)\\n$`,
    );
    const dry = await kanon(["undo", "-n"]);
    expect(dry.status).toBe(1);
    expect(dry.stderr).toMatch(message);
    const r = await kanon(["undo", "--yes"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(read(".claude.json")).toContain("docs-b");
    expect(read(".claude/CLAUDE.md")).toBe("Be briefer.\n");
  });

  it("a truncated backup: nothing is restored (its sha256 differs)", async () => {
    await appliedTwice();
    const cut = backups().find((f) => f.endsWith("-.claude.json"))!;
    truncateSync(cut, 10);
    for (const args of [
      ["undo", "-n"],
      ["undo", "--yes"],
    ]) {
      const r = await kanon(args);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(
        `the backup of ${at(".claude.json")} (${cut}) does not hold what was saved (sha256 differs); nothing was restored`,
      );
    }
    expect(read(".claude.json")).toContain("docs-b");
    expect(read(".claude/CLAUDE.md")).toBe("Be briefer.\n");
  });

  it("a history entry an older kanon left half-removed is named, with what to do", async () => {
    await appliedTwice();
    const newest = join(stateDir(), "applies", entries().at(-1)!);
    rmSync(join(newest, "apply.json"));
    const r = await kanon(["undo", "--yes"]);
    expect(r.stderr).toBe(
      `cannot undo: the history entry ${newest} is unreadable; nothing was restored (remove that directory to undo the ones before it)\n`,
    );
    // Removed, the entry before it is read (the disk is as the second apply left it: changed since the first).
    rmSync(newest, { recursive: true });
    expect((await kanon(["undo", "--yes"])).stderr).toMatch(
      /^cannot undo the apply of .*: changed since then: /,
    );
  });
});

describe("a kill in undo's cleanup leaves history the next run repairs", () => {
  /**
   * The built kanon in a process of its own, killed right before it renames or links a path
   * matching `killAt` (the runs after it are in-process, as everywhere else here).
   */
  const killed = (killAt: string, ...args: string[]) => {
    const env = {
      NODE_OPTIONS: `--require ${join(ROOT, "test/support/kill-at.cjs")}`,
      KANON_KILL_AT: killAt,
    };
    const r = spawnSync(process.execPath, [KANON, "--home", kh, "--agent", "claude", ...args], {
      cwd: base,
      encoding: "utf8",
      env: sandboxEnv(home, env),
    });
    return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  };

  for (const [when, killAt] of [
    ["once it took the entry out of the history", "\\.undone$"],
    ["while it wrote the record back", "/record\\.json$"],
  ] as const) {
    it(`killed ${when}: the next undo goes one step further back, and diff agrees`, async () => {
      await appliedTwice();
      expect(killed(killAt, "undo", "--yes").status).toBe(-1);
      expect(read(".claude.json")).toContain("docs-a");
      // The first undo took effect: nothing is left to do for it, and nothing to apply again.
      const diff = await kanon(["diff"]);
      expect(diff.stderr).toBe("");
      expect(diff.stdout).toContain("docs-b"); // the home says b, the disk is back at a
      const undo = await kanon(["undo", "--yes"]);
      expect(undo.status).toBe(0);
      expect(undo.stdout).toMatch(/^Undo the apply of /);
      expect(existsSync(at(".claude/CLAUDE.md"))).toBe(false);
      expect(JSON.parse(read(".claude.json"))).toEqual({ userID: "u-1", oauthAccount: { accessToken: "t" } });
      expect((await kanon(["undo", "--yes"])).stdout).toBe("Nothing to undo.\n");
      expect(readdirSync(join(stateDir(), "applies"))).toEqual([]);
    });
  }

  it("an undone entry left half-removed is never read, and goes with the next apply", async () => {
    await appliedTwice();
    const newest = entries().at(-1)!;
    expect((await kanon(["undo", "--yes"])).status).toBe(0);
    // What a kill while its files were being removed leaves: the renamed entry, part of it gone.
    mkdirSync(join(stateDir(), "applies", `${newest}.undone`, "files"), { recursive: true });
    expect((await kanon(["diff"])).stderr).toBe("");
    expect((await kanon(["undo", "-n"])).stdout).toMatch(/^Undo the apply of /);
    expect((await kanon(["apply", "--yes"])).status).toBe(0);
    expect(entries().some((e) => e.endsWith(".undone"))).toBe(false);
  });
});
