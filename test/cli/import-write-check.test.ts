/**
 * An import writes kanon.yaml (and the home's other files) only if they are still the bytes it
 * planned from, checked right before each rename: an edit that lands after the plan, or after the
 * UI's re-plan, is never overwritten. The edit is made inside kanon's window through the file system
 * the Io carries (test/support/window-fs.ts), so these run in-process.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/context.js";
import { main } from "../../src/cli/main.js";
import { importReviewer } from "../../src/cli/ui/review.js";
import type { DestinationFs } from "../../src/destination/fs.js";
import { windowFs } from "../support/window-fs.js";

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

let base: string;
/** The file system kanon uses in the next command (the disk when unset). */
let fs: DestinationFs | undefined;
let home: string;
let kh: string;
const HOME_YAML =
  "# my Kanon home\nversion: 1\n\nmcp:\n  servers:\n    # from work\n    github:\n      command: gh\n";
const EDITED = `${HOME_YAML}# edited while kanon was writing\n`;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "kanon-import-check-"));
  home = join(base, "home");
  kh = join(base, "kh");
  mkdirSync(kh, { recursive: true });
  writeFileSync(join(kh, "kanon.yaml"), HOME_YAML);
  for (const [rel, text] of Object.entries({
    ".claude/CLAUDE.md": "Be brief.\n",
    ".claude/skills/review/SKILL.md": "---\nname: review\n---\nReview it.\n",
    ".claude.json": JSON.stringify({ mcpServers: { docs: { command: "docs-mcp" } } }),
  })) {
    mkdirSync(dirname(join(home, rel)), { recursive: true });
    writeFileSync(join(home, rel), text);
  }
});
afterEach(() => {
  fs = undefined;
  rmSync(base, { recursive: true, force: true });
});

const io = (stdout = new Capture(), stderr = new Capture()): Io => ({
  stdout,
  stderr,
  stdin: process.stdin,
  env: { PATH: process.env.PATH },
  cwd: base,
  userHome: home,
  ...(fs ? { fs } : {}),
});
async function kanon(...args: string[]) {
  const stdout = new Capture();
  const stderr = new Capture();
  const status = await main(["--home", kh, "--agent", "claude", ...args], io(stdout, stderr));
  return { status, stdout: stdout.text, stderr: stderr.text };
}
/** Edits kanon.yaml once kanon has staged its new version (after it was read, before its rename). */
const editBeforeRename = () => {
  fs = windowFs((op, p) => {
    if ((op === "stage" || op === "link") && p === join(kh, "kanon.yaml")) writeFileSync(p, EDITED);
  });
};
const homeFiles = () => readdirSync(kh, { recursive: true }).map(String).sort();

describe("import --merge --write", () => {
  it("keeps an edit to kanon.yaml made after it was read, writes nothing, and leaves nothing to undo", async () => {
    editBeforeRename();
    const r = await kanon("import", "--merge", "--write");
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `${join(kh, "kanon.yaml")} changed while kanon was importing; nothing was written, run the command again\n`,
    );
    expect(readFileSync(join(kh, "kanon.yaml"), "utf8")).toBe(EDITED);
    // kanon.yaml is checked and moved first: the instruction and skill files were not written either.
    expect(homeFiles()).toEqual(["kanon.yaml"]);
    fs = undefined;
    expect((await kanon("undo", "--yes")).stdout).toBe("Nothing to undo.\n");
  });

  it("writes when kanon.yaml is unchanged (the hook sees the rename and does nothing)", async () => {
    const renamed: string[] = [];
    fs = windowFs((op, p) => {
      if (op === "rename" && !p.includes("/.local/state/")) renamed.push(p);
    });
    const r = await kanon("import", "--merge", "--write");
    expect(r.status).toBe(0);
    expect(renamed[0]).toBe(join(kh, "kanon.yaml"));
    expect(readFileSync(join(kh, "kanon.yaml"), "utf8")).toContain("    docs:\n      command: docs-mcp\n");
  });
});

describe("kanon import --write --force", () => {
  it("keeps a kanon.yaml that changed after it was read", async () => {
    editBeforeRename();
    const r = await kanon("import", "--write", "--force");
    expect(r.status).toBe(1);
    expect(readFileSync(join(kh, "kanon.yaml"), "utf8")).toBe(EDITED);
  });

  it("does not overwrite a kanon.yaml that appeared after it looked", async () => {
    rmSync(join(kh, "kanon.yaml"));
    editBeforeRename();
    const r = await kanon("import", "--write");
    expect(r.status).toBe(1);
    expect(readFileSync(join(kh, "kanon.yaml"), "utf8")).toBe(EDITED);
  });
});

describe("the UI's import mode", () => {
  const machine = { secretPolicy: "keep", instructionPolicy: "auto", hookNames: "command" };
  const reviewer = () => importReviewer({ home: kh, agent: "claude" }, machine, io());

  it("re-plans, then refuses at the write when kanon.yaml changed after the re-plan read it", async () => {
    // The reviewer's Io carries the file system that edits kanon.yaml once kanon stages its own.
    editBeforeRename();
    const r = reviewer();
    const review = await r.load();
    const paths = review.changes.map((c) => c.path);
    expect(paths).toContain(`${join(kh, "kanon.yaml")}#mcp.servers.docs`);
    await expect(r.apply(review.changes, paths, false)).rejects.toThrow(
      `${paths[0]}: selected file changed since it was reviewed; reload before applying`,
    );
    expect(readFileSync(join(kh, "kanon.yaml"), "utf8")).toBe(EDITED);
    expect(homeFiles()).toEqual(["kanon.yaml"]);
  });

  it("imports when nothing changed, and kanon undo takes it back", async () => {
    const r = reviewer();
    const review = await r.load();
    const paths = review.changes.map((c) => c.path);
    expect(await r.apply(review.changes, paths, false)).toEqual({ count: paths.length });
    expect(readFileSync(join(kh, "kanon.yaml"), "utf8")).toContain("docs:");
    const undo = await kanon("undo", "--yes");
    expect(undo.stdout).toMatch(/^Undo the import of /);
    expect(readFileSync(join(kh, "kanon.yaml"), "utf8")).toBe(HOME_YAML);
    expect(homeFiles()).toEqual(["kanon.yaml"]);
  });
});
