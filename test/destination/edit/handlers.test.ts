/** kanon's hook handlers inside a hook document the user also writes to (values, then the text). */
import { describe, expect, it } from "vitest";
import { mergeHandlers } from "../../../src/destination/edit/handlers.js";
import { planCoOwned } from "../../../src/destination/edit/index.js";
import { handlerKey } from "../../../src/destination/record.js";

const cmd = (command: string) => ({ command, type: "command" });
const group = (matcher: string | undefined, ...commands: string[]) => ({
  ...(matcher ? { matcher } : {}),
  hooks: commands.map(cmd),
});
const key = (event: string, matcher: string | undefined, command: string) =>
  handlerKey(event, matcher, cmd(command));

describe("mergeHandlers", () => {
  it("owns, replaces and removes http and mcp_tool handlers like command handlers", () => {
    const http = (url: string) => ({ type: "http", url, timeout: 5 });
    const tool = { type: "mcp_tool", server: "memory", tool: "search" };
    const user = { type: "http", url: "https://mine.example/hook" };
    const first = mergeHandlers(
      { PreToolUse: [{ matcher: "Bash", hooks: [user] }] },
      { PreToolUse: [{ matcher: "Bash", hooks: [http("https://a.example/h")] }], Stop: [{ hooks: [tool] }] },
      new Set(),
      "f",
      "hooks",
    );
    expect(first.owned).toEqual([
      handlerKey("PreToolUse", "Bash", http("https://a.example/h")),
      handlerKey("Stop", undefined, tool),
    ]);
    // The url changed: replaced in place; the mcp_tool handler is no longer rendered: removed.
    const second = mergeHandlers(
      first.value,
      { PreToolUse: [{ matcher: "Bash", hooks: [http("https://b.example/h")] }] },
      new Set(first.owned),
      "f",
      "hooks",
    );
    expect(second.value).toEqual({
      PreToolUse: [
        { matcher: "Bash", hooks: [user] },
        { matcher: "Bash", hooks: [http("https://b.example/h")] },
      ],
    });
    expect(second.removed).toEqual(["Stop: mcp_tool memory/search"]);
    // Nothing rendered: kanon's http handler goes, the user's stays.
    const third = mergeHandlers(second.value, {}, new Set(second.owned), "f", "hooks");
    expect(third.value).toEqual({ PreToolUse: [{ matcher: "Bash", hooks: [user] }] });
    expect(third.removed).toEqual(["PreToolUse Bash: http https://b.example/h"]);
  });

  it("a handler of kanon's edited by hand is put back in its place, never beside it", () => {
    const mine = { type: "command", command: "/usr/local/bin/guard", timeout: 10 };
    const first = mergeHandlers(
      undefined,
      { PreToolUse: [{ matcher: "Bash", hooks: [mine] }] },
      new Set(),
      "f",
      "hooks",
    );
    // The user changes the timeout in the file, and keeps a hook of their own after it.
    const edited = { ...mine, timeout: 99 };
    const theirs = { type: "command", command: "say hi" };
    const onDisk = {
      PreToolUse: [
        { matcher: "Bash", hooks: [edited] },
        { matcher: "Bash", hooks: [theirs] },
      ],
    };
    const r = mergeHandlers(onDisk, first.value, new Set(first.owned), "f", "hooks");
    expect(r.value).toEqual({
      PreToolUse: [
        { matcher: "Bash", hooks: [mine] },
        { matcher: "Bash", hooks: [theirs] },
      ],
    });
    expect(r.edited).toEqual(["PreToolUse Bash: /usr/local/bin/guard"]);
    expect(r.owned).toEqual(first.owned);
    // Without a record (kanon never wrote it here), an equal-looking handler is the user's: kanon adds its own.
    const fresh = mergeHandlers(onDisk, first.value, new Set(), "f", "hooks");
    expect(fresh.edited).toEqual([]);
    expect(fresh.value.PreToolUse).toHaveLength(3);
    // Under another matcher, or running something else, it is the user's too.
    const other = mergeHandlers(
      { PreToolUse: [{ matcher: "Edit", hooks: [edited] }] },
      first.value,
      new Set(first.owned),
      "f",
      "hooks",
    );
    expect(other.edited).toEqual([]);
    // planCoOwned marks the file: apply saves the edit before it puts kanon's handler back.
    const plan = planCoOwned(
      JSON.stringify({ hooks: onDisk }),
      { kind: "handlers", format: "json", key: "hooks" },
      { hooks: first.value },
      "settings.json",
      { agent: "claude", merge: { kind: "handlers", format: "json", key: "hooks" }, handlers: first.owned },
    );
    expect(plan.replaces).toBe("edited");
  });

  it("appends kanon's handlers after the user's, as groups of their own", () => {
    const current = { PreToolUse: [group("Edit", "mine")] };
    const r = mergeHandlers(
      current,
      { PreToolUse: [group("Bash", "guard")], Stop: [group(undefined, "s")] },
      new Set(),
      "f",
      "hooks",
    );
    expect(r.value).toEqual({
      PreToolUse: [group("Edit", "mine"), group("Bash", "guard")],
      Stop: [group(undefined, "s")],
    });
    expect(r.owned).toEqual([key("PreToolUse", "Bash", "guard"), key("Stop", undefined, "s")]);
    expect(r.removed).toEqual([]);
  });

  it("adopts an equal handler wherever it is, without adding it twice", () => {
    const current = { PreToolUse: [group("Bash", "mine", "guard")] };
    const r = mergeHandlers(current, { PreToolUse: [group("Bash", "guard")] }, new Set(), "f", "hooks");
    expect(r.value).toEqual(current);
    expect(r.owned).toEqual([key("PreToolUse", "Bash", "guard")]);
  });

  it("removes only the handlers kanon wrote, and the groups and events it empties", () => {
    const current = {
      PreToolUse: [group("Bash", "guard"), group("Edit", "mine")],
      Stop: [group(undefined, "old")],
      SessionEnd: [group(undefined, "old")],
    };
    const previous = new Set([key("PreToolUse", "Bash", "guard"), key("Stop", undefined, "old")]);
    const r = mergeHandlers(current, {}, previous, "f", "hooks");
    expect(r.value).toEqual({ PreToolUse: [group("Edit", "mine")], SessionEnd: [group(undefined, "old")] });
    expect(r.removed).toEqual(["PreToolUse Bash: guard", "Stop: old"]);
  });

  it("replaces a changed handler in place, keeping the user's positions", () => {
    const current = { PreToolUse: [group("Bash", "guard"), group("Bash", "mine")] };
    const r = mergeHandlers(
      current,
      { PreToolUse: [group("Bash", "guard2")] },
      new Set([key("PreToolUse", "Bash", "guard")]),
      "f",
      "hooks",
    );
    expect(r.value).toEqual({ PreToolUse: [group("Bash", "guard2"), group("Bash", "mine")] });
  });

  it("refuses a hook document that is not an object, or an event that is not a list", () => {
    expect(() => mergeHandlers([], {}, new Set(), "s.json", "hooks")).toThrow(
      "cannot merge s.json: hooks is not an object",
    );
    expect(() =>
      mergeHandlers({ Stop: 1 }, { Stop: [group(undefined, "x")] }, new Set(), "s.json", "hooks"),
    ).toThrow("cannot merge s.json: hooks.Stop is not a list");
  });
});

describe("planCoOwned with handlers", () => {
  const spec = { kind: "handlers", format: "json", key: "hooks" } as const;

  it("keeps the user's lines byte for byte when kanon's group is added and removed", () => {
    const text = `{
  // mine
  "hooks": {
    "PreToolUse": [
      { "matcher": "Edit", "hooks": [ { "type": "command", "command": "mine" } ] }
    ]
  },
  "theme": "dark"
}
`;
    const added = planCoOwned(
      text,
      spec,
      { hooks: { PreToolUse: [group("Bash", "guard")] } },
      "s.json",
      undefined,
    );
    expect(added.text).toContain(
      '      { "matcher": "Edit", "hooks": [ { "type": "command", "command": "mine" } ] },\n      {\n',
    );
    const previous = { agent: "claude", merge: spec, handlers: added.owned.handlers! };
    const removed = planCoOwned(added.text, spec, { hooks: {} }, "s.json", previous);
    expect(removed.text).toBe(text);
    expect(removed.removed).toEqual(["PreToolUse Bash: guard"]);
  });

  it("does not add an empty hooks key to a file that has none", () => {
    const text = '{"theme": "dark"}\n';
    expect(planCoOwned(text, spec, { hooks: {} }, "s.json", undefined).text).toBe(text);
  });
});

describe("planCoOwned with entries", () => {
  const spec = { kind: "entries", format: "json", key: "mcpServers" } as const;
  const text = '{"mcpServers": {"github": {"command": "mine"}}}\n';

  it("marks an entry kanon did not write, or that was edited since, and leaves an equal one unmarked", () => {
    const managed = { mcpServers: { github: { command: "gh" } } };
    expect(planCoOwned(text, spec, managed, "c.json", undefined).replaces).toBe("foreign");
    const previous = { agent: "claude", merge: spec, names: { github: "0".repeat(64) } };
    expect(planCoOwned(text, spec, managed, "c.json", previous).replaces).toBe("edited");
    expect(
      planCoOwned(text, spec, { mcpServers: { github: { command: "mine" } } }, "c.json", undefined).replaces,
    ).toBeUndefined();
  });
});
