/** `kanon ui`'s import mode (`kanon import --ui`, `--mode import`, `m`) as a user sees it, on a terminal (InProcessTerminal). */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, sandbox } from "../support/cli.js";
import { InProcessTerminal, KEYS } from "../support/pty.js";

let s: Sandbox;
let kh: string;
let ui: InProcessTerminal | undefined;
const HOME_YAML =
  "# my Kanon home\nversion: 1\n\nmcp:\n  servers:\n    # from work\n    github:\n      command: github-mcp\n";
beforeEach(() => {
  s = sandbox();
  kh = join(s.work, "kh");
  mkdirSync(kh);
  writeFileSync(join(kh, "kanon.yaml"), HOME_YAML);
  // Claude Code on this machine: instructions, a skill, two servers (one the home has) and a hook.
  for (const [rel, text] of Object.entries({
    ".claude/CLAUDE.md": "Be brief.\n",
    ".claude/skills/review/SKILL.md": "---\nname: review\n---\nReview it.\n",
    ".claude.json": JSON.stringify({
      mcpServers: { github: { command: "github-mcp" }, docs: { command: "docs-mcp" } },
    }),
    ".claude/settings.json": JSON.stringify({
      hooks: { Stop: [{ hooks: [{ type: "command", command: "/bin/notify" }] }] },
    }),
  })) {
    mkdirSync(dirname(join(s.home, rel)), { recursive: true });
    writeFileSync(join(s.home, rel), text);
  }
});
afterEach(() => {
  ui?.kill();
  ui = undefined;
  s.cleanup();
});

function start(args: string[]) {
  ui = new InProcessTerminal(["--home", kh, "--agent", "claude", ...args], {
    cwd: s.work,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: s.home, TERM: "xterm-256color" },
    // Wide enough for the rows' absolute paths under any temporary folder (TMPDIR may be long).
    cols: 160,
  });
  return ui;
}
/** The right column's text (units and diff) as one line: wrapped messages read whole. */
const flat = (t: InProcessTerminal) =>
  t
    .lines()
    .map((l) => l.slice(34)) // the left column is 34 wide from a 114-column terminal up
    .join(" ")
    .replace(/[│╭╮╰╯─]/g, " ")
    .replace(/\s+/g, " ");
const LOADED = "Import Changes (4 changed · 0 conflict · 4 selected)";
const y = (rel: string) => join(kh, rel);

describe("kanon ui in import mode", { timeout: 90_000 }, () => {
  it("kanon import --ui lists the units; importing two writes only those into the home", async () => {
    const t = start(["import", "--ui"]);
    const screen = await t.waitFor(LOADED);
    expect(screen).toContain("mode: import");
    // The server the home already has is no unit. Units for claude only count under claude; the
    // instructions, which every agent imported (here: claude) has, under all.
    expect(screen).toContain("● claude (3)");
    expect(screen).toContain("● all (1)");
    const rows = t.lines().filter((l) => l.includes("[x]"));
    expect(rows.map((l) => l.replace(/^.*\[x\] /, "").replace(/\s*│$/, ""))).toEqual([
      `+ ${y("instructions/imported.md")}`,
      `+ ${y("kanon.yaml")}#hooks.notify`,
      `+ ${y("kanon.yaml")}#mcp.servers.docs`,
      `+ ${y("skills/review/SKILL.md")}`,
    ]);
    // The diff of the row under the cursor: kanon.yaml as this unit alone leaves it, and its file.
    expect(flat(t)).toContain("+ - instructions/imported.md");
    expect(flat(t)).toContain("+Be brief.");
    t.send("N");
    await t.waitFor("0 selected)");
    t.send(`${KEYS.down} ${KEYS.down} `); // the hook and the server
    await t.waitFor("2 selected)");
    t.send("a");
    await t.waitFor("Imported 2 change(s).");
    // Reloaded: what was imported is no longer a change; the rest stays unselected, as it was.
    await t.waitFor("Import Changes (2 changed · 0 conflict · 0 selected)");
    t.send("q");
    expect(await t.exited).toBe(0);
    expect(readFileSync(join(kh, "kanon.yaml"), "utf8")).toBe(
      `${HOME_YAML}    docs:\n      command: docs-mcp\n      targets: [claude]\nhooks:\n  - name: notify\n    event: Stop\n    command: /bin/notify\n    targets: [claude]\n`,
    );
    expect(existsSync(join(kh, "instructions"))).toBe(false);
    expect(existsSync(join(kh, "skills"))).toBe(false);
    // kanon undo takes the import back, byte for byte.
    const undo = await s.run(["--home", kh, "undo", "--yes"]);
    expect(undo.stdout).toMatch(/^Undo the import of .*:\n {2}restore .*kanon\.yaml\n/);
    expect(readFileSync(join(kh, "kanon.yaml"), "utf8")).toBe(HOME_YAML);
  });

  it("refuses the import, writing nothing, when a native file changed after it was reviewed", async () => {
    const t = start(["ui", "--mode", "import"]);
    await t.waitFor(LOADED);
    writeFileSync(
      join(s.home, ".claude.json"),
      JSON.stringify({
        mcpServers: { github: { command: "github-mcp" }, docs: { command: "docs-mcp", args: ["-v"] } },
      }),
    );
    t.send("a");
    await t.waitFor(() => flat(t).includes("reload before applying")); // a message may wrap
    expect(flat(t)).toContain(
      `error: ${y("kanon.yaml")}#mcp.servers.docs: selected file changed since it was reviewed; reload before applying`,
    );
    expect(readFileSync(join(kh, "kanon.yaml"), "utf8")).toBe(HOME_YAML);
    expect(existsSync(join(kh, "instructions"))).toBe(false);
    // Any key reloads: the server's diff is the new one.
    t.send(" ");
    await t.waitFor("> [x] + "); // the rows are back (while loading the list says loading…)
    t.send(`${KEYS.down}${KEYS.down}`);
    await t.waitFor("args: [-v]");
    t.send("q");
    expect(await t.exited).toBe(0);
  });

  it("refuses the import when the home's kanon.yaml changed after it was reviewed; dry-run checks and writes nothing", async () => {
    const t = start(["ui", "-n", "--mode", "import"]);
    await t.waitFor(LOADED);
    t.send("a");
    await t.waitFor("DRY-RUN: would import 4 change(s).");
    writeFileSync(join(kh, "kanon.yaml"), `${HOME_YAML}# edited meanwhile\n`);
    t.send("a");
    await t.waitFor(() => flat(t).includes("reload before applying")); // a message may wrap
    expect(flat(t)).toContain(
      `error: ${y("instructions/imported.md")}: selected file changed since it was reviewed; reload before applying`,
    );
    t.send("q");
    expect(await t.exited).toBe(0);
    expect(readFileSync(join(kh, "kanon.yaml"), "utf8")).toBe(`${HOME_YAML}# edited meanwhile\n`);
  });

  it("m switches between apply and import mode", async () => {
    const t = start(["ui"]);
    // The machine's github entry is the home's (Claude takes it without a type as stdio): no change.
    await t.waitFor("No changes. Source matches destination.");
    t.send("m");
    const screen = await t.waitFor(LOADED);
    expect(screen).toContain("mode: import");
    t.send("m");
    expect(await t.waitFor("No changes. Source matches destination.")).toContain("mode: apply");
    t.send("q");
    expect(await t.exited).toBe(0);
  });
});

describe("kanon import --ui", () => {
  it("cannot be combined with --write or --merge, and needs a terminal", async () => {
    const k = (...args: string[]) => s.run(["--home", kh, "import", ...args]);
    expect(await k("--ui", "--write")).toMatchObject({
      status: 1,
      stderr: "use only one of --ui or --write\n",
    });
    expect(await k("--ui", "--merge")).toMatchObject({
      status: 1,
      stderr: "use only one of --ui or --merge\n",
    });
    expect(await k("--ui")).toMatchObject({
      status: 1,
      stderr: "kanon ui requires an interactive terminal\n",
    });
    expect((await k("--ui", "--hook-names", "x")).stderr).toBe("kanon ui requires an interactive terminal\n");
  });
});
