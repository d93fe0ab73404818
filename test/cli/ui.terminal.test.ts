/** `kanon ui` as a user sees it: on a terminal (InProcessTerminal), the screen read back. */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sandboxPerTest } from "../support/cli.js";
import { deadPid } from "../support/dead-pid.js";
import { InProcessTerminal, KEYS } from "../support/pty.js";

let ui: InProcessTerminal | undefined;
const s = sandboxPerTest((s) =>
  s.writeHome(
    "version: 1\ninstructions:\n  files: [instructions/shared.md]\nmcp:\n  servers:\n    github:\n      command: github-mcp\n",
    { "instructions/shared.md": "Shared rules\n" },
  ),
);
// Registered after the sandbox's own: runs before the sandbox is removed.
afterEach(() => {
  ui?.kill();
  ui = undefined;
});

const env = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: s.home,
  TERM: "xterm-256color",
  ...extra,
});
function start(
  args: string[] = [],
  options: { cols?: number; rows?: number; env?: Record<string, string> } = {},
) {
  ui = new InProcessTerminal(["--home", s.kh, "ui", ...args], {
    cwd: s.work,
    env: env(options.env),
    ...(options.cols ? { cols: options.cols } : {}),
    ...(options.rows ? { rows: options.rows } : {}),
  });
  return ui;
}
const home = (rel: string) => join(s.home, rel);
const ALL = [
  ".claude.json",
  ".claude/CLAUDE.md",
  ".codex/AGENTS.md",
  ".codex/config.toml",
  ".config/opencode/AGENTS.md",
  ".config/opencode/opencode.json",
];
/** The right column's text (the change list and the diff) as one line: wrapped messages read whole. */
const rightColumn = (t: InProcessTerminal) =>
  t
    .lines()
    .map((l) => l.slice(30)) // the left column is 30 wide on a 100-column terminal
    .join(" ")
    .replace(/[│╭╮╰╯─]/g, " ")
    .replace(/\s+/g, " ");
const LOADED = "Apply Changes (6 changed · 0 conflict · 6 selected)";

describe("kanon ui in a terminal", { timeout: 90_000 }, () => {
  it("refuses to start outside a terminal", async () => {
    const r = await s.run(["--home", s.kh, "ui"]);
    expect(r).toMatchObject({ status: 1, stdout: "", stderr: "kanon ui requires an interactive terminal\n" });
  });

  it("refuses an unknown mode", async () => {
    const t = start(["--mode", "sideways"]);
    expect(await t.exited).toBe(1);
    expect(t.screen()).toContain("unsupported UI mode sideways");
  });

  it("lists the changes per agent with the diff of the row under the cursor, and quits with q", async () => {
    const t = start();
    const screen = await t.waitFor(LOADED);
    expect(screen).toContain("● codex (2)");
    expect(screen).toContain("● claude (2)");
    expect(screen).toContain("● opencode (2)");
    expect(screen).toContain("> [x] + ~/.claude.json");
    expect(screen).toContain('+      "command": "github-mcp",');
    t.send(KEYS.down);
    const moved = await t.waitFor("> [x] + ~/.claude/CLAUDE.md");
    expect(moved).toContain("+Shared rules");
    t.send("q");
    expect(await t.exited).toBe(0);
    // The alternate screen is left: the shell's screen is back, without the UI on it.
    expect(t.screen()).not.toContain("Apply Changes");
  });

  it("applies exactly the selected files (and sweeps an interrupted apply's temporary files)", async () => {
    const dead = deadPid();
    const leftover = home(`..claude.json.kanon-${dead}-0123456789ab.tmp`);
    writeFileSync(leftover, '{"token": "t"}\n');
    const t = start();
    await t.waitFor(LOADED);
    t.send(" "); // ~/.claude.json off
    t.send(`${KEYS.down}${KEYS.down}x`); // ~/.codex/AGENTS.md off
    await t.waitFor("4 selected");
    t.send("a");
    const done = await t.waitFor(
      "Applied 4 change(s). Removed 1 temporary file(s) left by an interrupted apply.",
    );
    expect(existsSync(leftover)).toBe(false);
    // The rows left out stay left out: the reload keeps the user's choices.
    await t.waitFor("Apply Changes (2 changed · 0 conflict · 0 selected)");
    expect(done).toBeDefined();
    expect(ALL.filter((f) => existsSync(home(f)))).toEqual([
      ".claude/CLAUDE.md",
      ".codex/config.toml",
      ".config/opencode/AGENTS.md",
      ".config/opencode/opencode.json",
    ]);
    expect(t.screen()).toContain("~/.claude.json");
    expect(t.screen()).toContain("~/.codex/AGENTS.md");
    t.send("q");
    expect(await t.exited).toBe(0);
  });

  it("refuses to apply, writing nothing, when a selected file changed after it was reviewed", async () => {
    const t = start();
    await t.waitFor(LOADED);
    mkdirSync(home(".codex"), { recursive: true });
    writeFileSync(home(".codex/AGENTS.md"), "written by hand meanwhile\n");
    t.send("a");
    await t.waitFor("reload before applying");
    expect(rightColumn(t)).toContain(
      "error: ~/.codex/AGENTS.md: selected file changed since it was reviewed; reload before applying",
    );
    expect(ALL.filter((f) => existsSync(home(f)))).toEqual([".codex/AGENTS.md"]);
    expect(readFileSync(home(".codex/AGENTS.md"), "utf8")).toBe("written by hand meanwhile\n");
    // Any key reloads: the file is now an update of content kanon did not write (backed up: `!`),
    // which needs a look: the reload does not select it.
    t.send(" ");
    await t.waitFor("[ ] ! ~/.codex/AGENTS.md");
    t.send(`${KEYS.down}${KEYS.down}`);
    const reloaded = await t.waitFor("> [ ] ! ~/.codex/AGENTS.md");
    expect(rightColumn(t)).toContain("not written by kanon; a backup is saved when applied");
    expect(reloaded).toContain("-written by hand meanwhile");
    t.send("q");
    expect(await t.exited).toBe(0);
  });

  it("backs up a hand-edited ! row, records only what it wrote, and kanon undo undoes it", async () => {
    mkdirSync(join(s.kh, "skills/old"), { recursive: true });
    writeFileSync(join(s.kh, "skills/old/SKILL.md"), "---\nname: old\n---\n");
    const claude = (...args: string[]) => s.run(["--home", s.kh, "--agent", "claude", ...args]);
    expect((await claude("apply", "--yes")).status).toBe(0);
    const skill = home(".claude/skills/old/SKILL.md");
    expect(existsSync(skill)).toBe(true);
    rmSync(join(s.kh, "skills"), { recursive: true });
    writeFileSync(join(s.kh, "instructions/shared.md"), "Shared rules v2\n");
    writeFileSync(home(".claude/CLAUDE.md"), "Shared rules\nmy note\n");

    const t = new InProcessTerminal(["--home", s.kh, "--agent", "claude", "ui"], { cwd: s.work, env: env() });
    ui = t;
    const screen = await t.waitFor("Apply Changes (2 changed · 0 conflict · 2 selected)");
    expect(screen).toContain("> [x] ! ~/.claude/CLAUDE.md");
    expect(screen).toContain("[x] D ~/.claude/skills/old/SKILL.md");
    expect(rightColumn(t)).toContain("changed since kanon last wrote it");
    t.send(`${KEYS.down} `); // the deletion is left out
    await t.waitFor("1 selected");
    t.send("a");
    await t.waitFor("Applied 1 change(s). Saved 1 backup(s); kanon undo restores them.");
    // The deletion left out is still kanon's to do, and still left out.
    await t.waitFor("Apply Changes (1 changed · 0 conflict · 0 selected)");
    expect(t.screen()).toContain("D ~/.claude/skills/old/SKILL.md");
    t.send("q");
    expect(await t.exited).toBe(0);

    expect(readFileSync(home(".claude/CLAUDE.md"), "utf8")).toBe("Shared rules v2\n");
    expect(existsSync(skill)).toBe(true);
    expect((await claude("diff")).stdout).toContain(`DELETE ${skill} (claude)`);
    expect((await claude("undo", "--yes")).status).toBe(0);
    expect(readFileSync(home(".claude/CLAUDE.md"), "utf8")).toBe("Shared rules\nmy note\n");
    expect(existsSync(skill)).toBe(true);
  });

  it("starts in dry-run with -n: applying checks and writes nothing; t turns it off", async () => {
    const t = start(["-n"]);
    expect(await t.waitFor(LOADED)).toContain("DRY-RUN");
    t.send("a");
    await t.waitFor("DRY-RUN: would apply 6 change(s).");
    expect(ALL.filter((f) => existsSync(home(f)))).toEqual([]);
    t.send("t");
    await t.waitFor((screen) => !screen.includes("DRY-RUN"));
    t.send("q");
    expect(await t.exited).toBe(0);
  });

  it("filters by path, says when nothing matches, and quits with ctrl+c while filtering", async () => {
    const t = start();
    await t.waitFor(LOADED);
    t.send("/codex");
    const filtered = await t.waitFor("/codex");
    expect(filtered).toContain("~/.codex/AGENTS.md");
    expect(filtered).not.toContain("~/.claude.json");
    t.send("zzz");
    await t.waitFor("No files match filter.");
    t.send(KEYS.ctrlC);
    expect(await t.exited).toBe(0);
  });

  it("asks for a larger terminal below 60×16", async () => {
    const t = start([], { cols: 50, rows: 20 });
    await t.waitFor((screen) =>
      screen.replace(/\s+/g, " ").includes("Terminal too small — need at least 60×16, have 50×20."),
    );
    t.send("q");
    expect(await t.exited).toBe(0);
  });

  it("colours the change list, and not with NO_COLOR", async () => {
    const coloured = (t: InProcessTerminal) => {
      const buffer = t.term.buffer.active;
      for (let y = 0; y < t.term.rows; y++) {
        const line = buffer.getLine(buffer.viewportY + y);
        for (let x = 0; line && x < t.term.cols; x++) if (line.getCell(x)?.getFgColorMode()) return true;
      }
      return false;
    };
    const t = start();
    await t.waitFor(LOADED);
    expect(coloured(t)).toBe(true);
    t.send("q");
    await t.exited;
    const plain = start([], { env: { NO_COLOR: "1" } });
    await plain.waitFor(LOADED);
    expect(coloured(plain)).toBe(false);
    plain.send("q");
    expect(await plain.exited).toBe(0);
  });

  it("shows a failed git pull's first line and stays usable", async () => {
    const t = start();
    await t.waitFor(LOADED);
    t.send("p");
    const screen = await t.waitFor("error: git [pull --ff-only]: exit status");
    expect(screen).toContain("git unavailable");
    t.send(`${KEYS.down}`);
    await t.waitFor("> [x] + ~/.claude/CLAUDE.md");
    t.send("q");
    expect(await t.exited).toBe(0);
  });
});
