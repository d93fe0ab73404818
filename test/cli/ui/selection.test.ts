/** kanon ui: what `a` applies is what the list shows, and a reload keeps the user's choices. */
import { describe, expect, it } from "vitest";
import {
  type Context,
  type Effect,
  type Event,
  type Item,
  initialState,
  type Key,
  type State,
  selectedItems,
  update,
} from "../../../src/cli/ui/model.js";

const ctx: Context = { diffLength: () => 10, diffHeight: 10 };
const agents = [{ id: "claude", active: true }];
const edited: Item = {
  path: "/h/.claude/CLAUDE.md",
  agent: "claude",
  action: "update",
  attention: "changed since kanon last wrote it",
};
const settings: Item = { path: "/h/.claude/settings.json", agent: "claude", action: "update" };
const skill: Item = { path: "/h/.claude/skills/review/SKILL.md", agent: "claude", action: "create" };

function run(state: State, ...events: (Event | Key)[]): [State, Effect[]] {
  let effects: Effect[] = [];
  for (const e of events)
    [state, effects] = update(state, typeof e === "string" ? { type: "key", key: e } : e, ctx);
  return [state, effects];
}
const loaded = (items: Item[]): Event => ({ type: "loaded", mode: "apply", items, agents });
const start = (items: Item[]) =>
  run(initialState({ mode: "apply", dryRun: false, userHome: "/h", agents }), loaded(items))[0];
const chosen = (s: State) => selectedItems(s).map((i) => i.path);

describe("a filter", () => {
  it("hides rows that a then leaves out, and says how many", () => {
    const s = start([edited, settings, skill]);
    const [filtered] = run(s, "/", ..."skills", "enter");
    const [, effects] = run(filtered, "a");
    expect(effects).toEqual([{ type: "apply", mode: "apply", paths: [skill.path], dryRun: false }]);
    expect(run(filtered, "a")[0].status).toBe(
      "Applying… (2 selected change(s) hidden by the filter are left out; esc clears it)",
    );
  });

  it("with nothing selected in view, applies nothing", () => {
    const [filtered] = run(start([edited, settings, skill]), "/", ..."skills", "enter", " ");
    expect(run(filtered, "a")).toEqual([
      {
        ...filtered,
        status: "Nothing selected. (2 selected change(s) hidden by the filter are left out; esc clears it)",
      },
      [],
    ]);
  });
});

describe("a reload", () => {
  it("keeps what the user deselected, and does not select a row that now needs a look", () => {
    // The user leaves the skill out and reloads (r): it stays out.
    const [s] = run(start([edited, settings, skill]), "j", "j", " ");
    expect(chosen(s)).toEqual([edited.path, settings.path]);
    const [again] = run(s, "r", loaded([edited, settings, skill]));
    expect(chosen(again)).toEqual([edited.path, settings.path]);
    // settings.json was edited by hand meanwhile: it is shown with ! and not selected; a new row is.
    const newFile: Item = { path: "/h/.codex/AGENTS.md", agent: "codex", action: "create" };
    const now = { ...settings, attention: "changed since kanon last wrote it" };
    const [later] = run(again, "r", loaded([edited, now, skill, newFile]));
    expect(chosen(later)).toEqual([edited.path, newFile.path]);
  });

  it("after an apply, the rows left keep their selection", () => {
    const [s] = run(start([edited, settings, skill]), " ");
    const [, effects] = run(s, "a");
    expect(effects[0]).toMatchObject({ type: "apply", paths: [settings.path, skill.path] });
    const [after] = run(s, "a", { type: "applied", count: 2, dryRun: false }, loaded([edited]));
    expect(chosen(after)).toEqual([]);
  });
});
