import { describe, expect, it } from "vitest";
import { type Context, type Item, initialState, update } from "../../../src/cli/ui/model.js";

const ctx: Context = { diffLength: () => 0, diffHeight: 10 };
const agents = [{ id: "claude", active: true }];
const items: Item[] = [{ path: "/h/.claude/settings.json", agent: "claude", action: "create" }];
const start = () => initialState({ mode: "apply", dryRun: false, userHome: "/h", agents });

describe("the source panel's git state", () => {
  it("is read once the first change list is up, so that git does not delay it", () => {
    const [loaded, effects] = update(start(), { type: "loaded", mode: "apply", items, agents }, ctx);
    expect(effects).toEqual([{ type: "source" }]);
    // Known by then: a later load (reload, after an apply) reads it with its own effect, not twice.
    const [withSource] = update(loaded, { type: "source", source: { kind: "clean" } }, ctx);
    expect(update(withSource, { type: "loaded", mode: "apply", items, agents }, ctx)[1]).toEqual([]);
  });

  it("is read after a first load that failed too", () => {
    expect(update(start(), { type: "failed", message: "bad kanon.yaml" }, ctx)[1]).toEqual([
      { type: "source" },
    ]);
  });
});
