import { renderToString } from "ink";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { paneLines } from "../../../src/cli/ui/diff-pane.js";
import { type Item, initialState, type State, update } from "../../../src/cli/ui/model.js";
import { Screen } from "../../../src/cli/ui/view.js";

const HOME = "/home/u";
const agents = [
  { id: "codex", active: true },
  { id: "claude", active: true },
  { id: "opencode", active: false },
];
const items: Item[] = [
  { path: "/home/u/.codex/AGENTS.md", agent: "codex", action: "create" },
  {
    path: "/home/u/.claude/CLAUDE.md",
    agent: "claude",
    action: "update",
    attention: "changed since kanon last wrote it",
  },
  {
    path: `/home/u/.claude/skills/${"very-long-name-".repeat(10)}/SKILL.md`,
    agent: "claude",
    action: "delete",
  },
];
const ctx = { diffLength: () => 3, diffHeight: 10 };
function state(keys: string[] = [], extra: Partial<State> = {}): State {
  let s = initialState({ mode: "apply", dryRun: false, userHome: HOME, agents });
  s = update(s, { type: "loaded", mode: "apply", items, agents }, ctx)[0];
  for (const key of keys) s = update(s, { type: "key", key }, ctx)[0];
  return { ...s, ...extra };
}
const diff = (item: Item) =>
  paneLines({ path: item.path, action: item.action, before: null, after: Buffer.from("hello\n") });
const draw = (s: State, width = 100, height = 24) =>
  renderToString(createElement(Screen, { state: s, width, height, colors: false, diff }), { columns: width });

describe("the screen", () => {
  it("shows agents with counts, the source, the change list and the diff of the row under the cursor", () => {
    const screen = draw(state());
    expect(screen).toContain("Mode / Agents");
    expect(screen).toContain("mode: apply");
    expect(screen).toContain("● codex (1)");
    expect(screen).toContain("● claude (2)");
    expect(screen).toContain("○ opencode (0)");
    expect(screen).toContain("Source");
    expect(screen).toContain("loading…");
    expect(screen).toContain("Apply Changes (3 changed · 0 conflict · 3 selected)");
    expect(screen).toContain("> [x] + ~/.codex/AGENTS.md");
    expect(screen).toContain("  [x] ! ~/.claude/CLAUDE.md");
    expect(screen).toContain("+++ /home/u/.codex/AGENTS.md");
    expect(screen).toContain("+hello");
  });

  it("in import mode titles the list Import Changes and the a key says import", () => {
    let s = initialState({ mode: "import", dryRun: false, userHome: HOME, agents });
    s = update(
      s,
      { type: "loaded", mode: "import", items, agents: [...agents, { id: "all", active: true }] },
      ctx,
    )[0];
    const screen = draw(s, 120);
    expect(screen).toContain("mode: import");
    expect(screen).toContain("Import Changes (3 changed · 0 conflict · 3 selected)");
    expect(screen).toContain("● all (0)");
    expect(screen).toContain("a import · t dry-run");
  });

  it("keeps every row within the screen's width", () => {
    for (const width of [60, 80, 120]) {
      const lines = draw(state(), width).split("\n");
      expect(lines.length).toBeLessThanOrEqual(23);
      for (const line of lines) expect([...line].length).toBeLessThanOrEqual(width);
    }
    expect(draw(state(["j", "j"]))).toContain("> [x] D ~/.claude/skills/very-long-name-");
  });

  it("says why a row needs attention above its diff", () => {
    expect(draw(state(["j"]))).toContain("! changed since kanon last wrote it");
  });

  it("shows the source's git state", () => {
    expect(draw(state([], { source: { kind: "clean" } }))).toContain("✓ clean");
    expect(draw(state([], { source: { kind: "unavailable" } }))).toContain("git unavailable");
    const dirty = draw(state([], { source: { kind: "dirty", short: " M kanon.yaml\n?? skills/new/\n" } }));
    expect(dirty).toContain("● dirty");
    expect(dirty).toContain("M kanon.yaml");
    expect(dirty).toContain("?? skills/new/");
  });

  it("tells an empty plan from a filter that matches nothing", () => {
    const empty = update(state(), { type: "loaded", mode: "apply", items: [], agents }, ctx)[0];
    expect(draw(empty)).toContain("No changes. Source matches destination.");
    const none = draw(state(["/", "z", "z", "z"]));
    expect(none).toContain("No files match filter.");
    expect(none).not.toContain("Source matches destination");
    expect(none).toContain("/zzz");
  });

  it("shows the DRY-RUN badge, the status line and the mode", () => {
    const s = state(["t"]);
    expect(draw(s)).toContain("DRY-RUN");
    expect(draw(s)).toContain("Dry run on.");
    expect(draw(state([], { mode: "import" }))).toContain("Import Changes (");
  });

  it("shows an error and how to go on", () => {
    const s = update(state(), { type: "failed", message: "kanon.yaml:3:1: bad" }, ctx)[0];
    const screen = draw(s);
    expect(screen).toContain("error: kanon.yaml:3:1: bad");
    expect(screen).toContain("press any key to reload, m to switch mode, q to quit");
  });

  it("shows the keys on ?", () => {
    const screen = draw(state(["?"]));
    expect(screen).toContain("Keys");
    expect(screen).toContain("git pull --ff-only");
  });

  it("asks for a larger terminal below 60×16", () => {
    expect(draw(state(), 59, 24)).toBe("Terminal too small — need at least 60×16, have 59×24.");
    expect(draw(state(), 80, 15)).toBe("Terminal too small — need at least 60×16, have 80×15.");
  });
});
