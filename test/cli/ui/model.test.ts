import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Context,
  currentItem,
  displayPath,
  type Effect,
  type Event,
  type Item,
  initialState,
  type Key,
  type State,
  selectedItems,
  startEffects,
  symbol,
  update,
  visibleItems,
} from "../../../src/cli/ui/model.js";

const HOME = "/home/u";
const ctx: Context = { diffLength: () => 40, diffHeight: 10 };
const items: Item[] = [
  {
    path: "/home/u/.claude/CLAUDE.md",
    agent: "claude",
    action: "update",
    attention: "changed since kanon last wrote it",
  },
  { path: "/home/u/.codex/AGENTS.md", agent: "codex", action: "create" },
  { path: "/home/u/.codex/config.toml", agent: "codex", action: "update" },
  { path: "/home/u/.config/opencode/skills/old/SKILL.md", agent: "opencode", action: "delete" },
  {
    path: "/home/u/.config/opencode/opencode.json",
    agent: "opencode",
    action: "update",
    conflict: "cannot parse",
  },
];
const agents = [
  { id: "codex", active: true },
  { id: "claude", active: true },
  { id: "opencode", active: false },
];

function run(state: State, ...events: (Event | Key)[]): [State, Effect[]] {
  let effects: Effect[] = [];
  for (const e of events) {
    [state, effects] = update(state, typeof e === "string" ? { type: "key", key: e } : e, ctx);
  }
  return [state, effects];
}
const ready = (mode: "apply" | "import" = "apply", dryRun = false) =>
  run(initialState({ mode, dryRun, userHome: HOME, agents }), { type: "loaded", mode, items, agents })[0];
const paths = (s: State) => selectedItems(s).map((i) => i.path);

describe("loading", () => {
  it("starts by loading the plan, and takes only quit meanwhile", () => {
    const s = initialState({ mode: "apply", dryRun: false, userHome: HOME, agents });
    expect(startEffects(s)).toEqual([{ type: "load", mode: "apply" }]);
    expect(run(s, "a")).toEqual([s, []]);
    expect(run(s, " ")[0].selected.size).toBe(0);
    expect(run(s, "q")[1]).toEqual([{ type: "quit" }]);
  });

  it("selects every change on load except conflicts, and clears the status", () => {
    const s = ready();
    expect(s.phase).toBe("ready");
    expect(paths(s)).toEqual(items.slice(0, 4).map((i) => i.path));
    expect(s.selected.has(items[4]!.path)).toBe(false);
    expect(run(s, "t")[0].status).toBe("Dry run on.");
    expect(run(s, "t", { type: "loaded", mode: "apply", items, agents })[0].status).toBe("");
  });

  it("clamps the cursor when a reload has fewer rows", () => {
    const s = run(ready(), "j", "j", "j", "j")[0];
    expect(s.cursor).toBe(4);
    const [after] = run(s, "r", { type: "loaded", mode: "apply", items: items.slice(0, 2), agents });
    expect(after.cursor).toBe(1);
    expect(run(s, "r", { type: "loaded", mode: "apply", items: [], agents })[0].cursor).toBe(0);
  });
});

describe("rows", () => {
  it("marks create, update, delete and changes that need attention", () => {
    expect(items.map(symbol)).toEqual(["!", "+", "M", "D", "!"]);
  });

  it("shows paths under the user's home as ~/… and only those", () => {
    expect(displayPath("/home/u/.codex/AGENTS.md", HOME)).toBe("~/.codex/AGENTS.md");
    expect(displayPath("/home/u", HOME)).toBe("~");
    expect(displayPath("/home/u2/.codex/AGENTS.md", HOME)).toBe("/home/u2/.codex/AGENTS.md");
    expect(displayPath("/home/u-project/AGENTS.md", "/home/u/")).toBe("/home/u-project/AGENTS.md");
  });
});

describe("selection", () => {
  it("toggles the row under the cursor with space or x; a conflict row does not toggle", () => {
    const s = ready();
    expect(run(s, " ")[0].selected.has(items[0]!.path)).toBe(false);
    expect(run(s, "x", "x")[0].selected.has(items[0]!.path)).toBe(true);
    const onConflict = run(s, "j", "j", "j", "j")[0];
    expect(currentItem(onConflict)?.conflict).toBe("cannot parse");
    expect(run(onConflict, " ")[0].selected).toEqual(onConflict.selected);
  });

  it("selects all (A) or none (N), never a conflict", () => {
    expect(paths(run(ready(), "N")[0])).toEqual([]);
    expect(paths(run(ready(), "N", "A")[0])).toEqual(items.slice(0, 4).map((i) => i.path));
  });

  it("toggles every change of an agent from the agents panel", () => {
    const [s] = run(ready(), "tab", "tab");
    expect(s.focus).toBe("agents");
    const [off] = run(s, " "); // codex
    expect(paths(off)).toEqual([items[0]!.path, items[3]!.path]);
    expect(paths(run(off, " ")[0])).toEqual(paths(ready()));
  });
});

describe("focus and scrolling", () => {
  it("cycles changes → diff → agents with tab and back with shift+tab; d focuses the diff", () => {
    expect(run(ready(), "tab")[0].focus).toBe("diff");
    expect(run(ready(), "tab", "tab", "tab")[0].focus).toBe("changes");
    expect(run(ready(), "shift+tab")[0].focus).toBe("agents");
    expect(run(ready(), "d")[0].focus).toBe("diff");
  });

  it("scrolls the diff within its length when it has focus, and resets it on another row", () => {
    const [s] = run(ready(), "d", "j", "j", "down");
    expect(s.diffScroll).toBe(3);
    expect(s.cursor).toBe(0);
    expect(run(s, "pagedown", "pagedown", "pagedown", "pagedown")[0].diffScroll).toBe(30);
    expect(run(s, "k", "k", "k", "k")[0].diffScroll).toBe(0);
    expect(run(s, "tab", "tab", "j")[0].diffScroll).toBe(0);
  });
});

describe("filter", () => {
  it("narrows the rows by raw or ~ path; enter keeps it, esc clears it", () => {
    const [typing] = run(ready(), "/", "c", "o", "d", "e", "x");
    expect(typing.filtering).toBe(true);
    expect(visibleItems(typing).map((i) => i.agent)).toEqual(["codex", "codex"]);
    const [kept] = run(typing, "enter");
    expect(kept.filtering).toBe(false);
    expect(kept.filter).toBe("codex");
    expect(run(kept, "esc")[0].filter).toBe("");
    expect(visibleItems(run(ready(), "/", "~", "/", ".", "c", "l")[0]).map((i) => i.agent)).toEqual([
      "claude",
    ]);
    expect(run(typing, "backspace")[0].filter).toBe("code");
    expect(run(typing, "esc")[0]).toMatchObject({ filter: "", filtering: false });
  });

  it("does not act on keys while typing, except ctrl+c which quits", () => {
    const [typing, none] = run(ready(), "/", "q", "a");
    expect(typing.filter).toBe("qa");
    expect(none).toEqual([]);
    expect(run(typing, "ctrl+c")[1]).toEqual([{ type: "quit" }]);
    expect(run(typing, "up")[0].filter).toBe("qa");
  });

  it("A and N act on the rows the filter shows", () => {
    const [s] = run(ready(), "/", "c", "o", "d", "e", "x", "enter", "N");
    expect(paths(s)).toEqual([items[0]!.path, items[3]!.path]);
  });
});

describe("apply", () => {
  it("says Nothing selected. and does nothing when nothing is selected", () => {
    const [s, effects] = run(ready(), "N", "a");
    expect(effects).toEqual([]);
    expect(s.status).toBe("Nothing selected.");
  });

  it("applies the selection, then reports the count and plans again", () => {
    const [busy, effects] = run(ready(), " ", "a");
    expect(busy).toMatchObject({ phase: "applying", status: "Applying…" });
    expect(effects).toEqual([
      { type: "apply", mode: "apply", paths: items.slice(1, 4).map((i) => i.path), dryRun: false },
    ]);
    const [done, next] = run(busy, { type: "applied", count: 3, dryRun: false });
    expect(done.status).toBe("Applied 3 change(s).");
    expect(next).toEqual([
      { type: "load", mode: "apply", status: "Applied 3 change(s)." },
      { type: "source" },
    ]);
    const [reloaded] = run(done, {
      type: "loaded",
      mode: "apply",
      items: [],
      agents,
      status: "Applied 3 change(s).",
    });
    expect(reloaded).toMatchObject({ phase: "ready", status: "Applied 3 change(s)." });
  });

  it("adds what the apply has to say (backups saved) to the count", () => {
    const [done] = run(ready(), "a", {
      type: "applied",
      count: 2,
      dryRun: false,
      note: "Saved 1 backup(s).",
    });
    expect(done.status).toBe("Applied 2 change(s). Saved 1 backup(s).");
  });

  it("in dry-run checks without writing and stays ready", () => {
    const [busy, effects] = run(ready(), "t", "a");
    expect(busy.status).toBe("Checking dry run…");
    expect(effects[0]).toMatchObject({ type: "apply", dryRun: true });
    const [done, next] = run(busy, { type: "applied", count: 4, dryRun: true });
    expect(done).toMatchObject({ phase: "ready", status: "DRY-RUN: would apply 4 change(s)." });
    expect(next).toEqual([]);
    expect(run(ready("import", true), "a", { type: "applied", count: 1, dryRun: true })[0].status).toBe(
      "DRY-RUN: would import 1 change(s).",
    );
  });

  it("ignores every key, quit included, while applying or running git", () => {
    for (const key of ["a", "p"]) {
      const [busy] = run(ready(), key);
      for (const k of ["q", "ctrl+c", "a", " ", "r", "m"]) expect(run(busy, k)).toEqual([busy, []]);
    }
  });

  it("shows a failed apply as an error; any key but q dismisses it and reloads", () => {
    const message = "~/.codex/AGENTS.md: selected file changed since it was reviewed; reload before applying";
    const [err] = run(ready(), "a", { type: "failed", message });
    expect(err).toMatchObject({ phase: "error", error: message });
    expect(run(err, "j")).toEqual([
      expect.objectContaining({ phase: "loading", error: "" }),
      [{ type: "load", mode: "apply" }, { type: "source" }],
    ]);
    expect(run(err, "q")[1]).toEqual([{ type: "quit" }]);
  });
});

describe("modes and git", () => {
  it("m switches apply ↔ import, clearing selection and filter, and loads the other plan", () => {
    const [s, effects] = run(ready(), "/", "x", "enter", "m");
    expect(s).toMatchObject({ mode: "import", phase: "loading", filter: "", items: [] });
    expect(s.selected.size).toBe(0);
    expect(effects).toEqual([{ type: "load", mode: "import" }]);
    expect(run(s, { type: "loaded", mode: "import", items, agents })[0].mode).toBe("import");
  });

  it("m in the error state switches modes: an import plan that cannot load does not trap the user", () => {
    const [err] = run(ready("import"), "r", { type: "failed", message: "agent instruction files differ" });
    expect(err.phase).toBe("error");
    const [s, effects] = run(err, "m");
    expect(s).toMatchObject({ mode: "apply", phase: "loading", error: "" });
    expect(effects).toEqual([{ type: "load", mode: "apply" }]);
  });

  it("in import mode imports the selected units, reports Imported N, and plans the import again", () => {
    const units: Item[] = [
      { path: "/k/instructions/imported.md", agent: "all", action: "create" },
      { path: "/k/kanon.yaml#hooks.guard", agent: "claude", action: "create" },
      { path: "/k/kanon.yaml#mcp.servers.github", agent: "codex", action: "update", attention: "replaces" },
      { path: "/k/skills/review/SKILL.md", agent: "all", action: "create" },
    ];
    const withAll = [...agents, { id: "all", active: true }];
    const loaded = run(initialState({ mode: "import", dryRun: false, userHome: HOME, agents }), {
      type: "loaded",
      mode: "import",
      items: units,
      agents: withAll,
    })[0];
    expect(selectedItems(loaded)).toHaveLength(4);
    expect(symbol(units[2]!)).toBe("!");
    // The agents panel toggles the units of one agent, "all" included.
    const [some] = run(loaded, "tab", "tab", "j", "j", "j", " ");
    expect(some.agents[some.agentCursor]!.id).toBe("all");
    expect(selectedItems(some).map((i) => i.path)).toEqual([units[1]!.path, units[2]!.path]);
    const [busy, effects] = run(some, "a");
    expect(busy).toMatchObject({ phase: "applying", status: "Importing…" });
    expect(effects).toEqual([
      { type: "apply", mode: "import", paths: [units[1]!.path, units[2]!.path], dryRun: false },
    ]);
    const [done, next] = run(busy, { type: "applied", count: 2, dryRun: false });
    expect(done.status).toBe("Imported 2 change(s).");
    expect(next).toEqual([
      { type: "load", mode: "import", status: "Imported 2 change(s)." },
      { type: "source" },
    ]);
    // A refused import: any key plans the import again.
    const message =
      "/k/kanon.yaml#hooks.guard: selected file changed since it was reviewed; reload before applying";
    const [err] = run(some, "a", { type: "failed", message });
    expect(run(err, " ")[1]).toEqual([{ type: "load", mode: "import" }, { type: "source" }]);
  });

  it("pulls then plans again; pushes without planning; a failure shows git's first line", () => {
    const [pulling, effects] = run(ready(), "p");
    expect(pulling.phase).toBe("git");
    expect(effects).toEqual([{ type: "git", op: "pull" }]);
    const [pulled, after] = run(pulling, { type: "git-done", op: "pull", output: "\nAlready up to date.\n" });
    expect(pulled.status).toBe("git pull: Already up to date.");
    expect(after[0]).toEqual({ type: "load", mode: "apply", status: "git pull: Already up to date." });
    const [pushed, afterPush] = run(ready(), "P", { type: "git-done", op: "push", output: "" });
    expect(pushed).toMatchObject({ phase: "ready", status: "git push: done" });
    expect(afterPush).toEqual([{ type: "source" }]);
    const [failed] = run(ready(), "P", {
      type: "git-failed",
      message: "git [push]: exit status 128: fatal: no remote",
    });
    expect(failed).toMatchObject({
      phase: "ready",
      status: "error: git [push]: exit status 128: fatal: no remote",
    });
  });

  it("? shows the help; any key closes it", () => {
    const [help] = run(ready(), "?");
    expect(help.showHelp).toBe(true);
    expect(run(help, "j")[0]).toMatchObject({ showHelp: false, cursor: 0 });
  });
});

describe("invariants", () => {
  const keys = [
    "up",
    "down",
    "j",
    "k",
    "tab",
    "shift+tab",
    " ",
    "x",
    "A",
    "N",
    "/",
    "c",
    "o",
    "enter",
    "esc",
    "backspace",
    "d",
    "t",
    "?",
  ];
  it("the cursor stays on a visible row and no conflict is ever selected, whatever is pressed", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...keys), { maxLength: 60 }), (pressed) => {
        const [s] = run(ready(), ...pressed);
        const visible = visibleItems(s);
        expect(s.cursor).toBeGreaterThanOrEqual(0);
        expect(s.cursor).toBeLessThanOrEqual(Math.max(0, visible.length - 1));
        expect(s.selected.has(items[4]!.path)).toBe(false);
        expect(selectedItems(s).every((i) => i.conflict === undefined)).toBe(true);
      }),
    );
  });
});
