/** OpenCode's hook row, and that it agrees with what the plugin runtime implements. */
import { describe, expect, it } from "vitest";
import { opencodeHooks } from "../../../src/agents/opencode/hooks.js";
import PLUGIN_RUNTIME from "../../../src/agents/opencode/plugin-runtime.js?raw";
import { NEUTRAL_EVENTS, NEUTRAL_TOOLS, neutralEvent } from "../../../src/core/hooks/vocabulary.js";

describe("opencodeHooks", () => {
  it("lists the events the plugin implements, all neutral", () => {
    expect(Object.keys(opencodeHooks.events).sort()).toEqual(
      [
        "Interrupt",
        "PostCompact",
        "PostToolUse",
        "PreToolUse",
        "SessionStart",
        "Stop",
        "UserPromptSubmit",
      ].sort(),
    );
    for (const name of Object.keys(opencodeHooks.events)) expect(neutralEvent(name), name).toBeDefined();
  });

  it("the runtime dispatches exactly the manifest's events", () => {
    for (const { name } of NEUTRAL_EVENTS) {
      const dispatched = PLUGIN_RUNTIME.includes(`"${name}"`);
      expect(dispatched, name).toBe(Object.hasOwn(opencodeHooks.events, name));
    }
  });

  it("names both versions' binding for every event", () => {
    for (const [name, e] of Object.entries(opencodeHooks.events)) {
      expect(e.native, name).toMatch(/^OpenCode 1: .+; OpenCode 2: .+$/);
    }
  });

  it("blocks only PreToolUse, by exit 2; every other event is observe-only", () => {
    for (const [name, e] of Object.entries(opencodeHooks.events)) {
      if (name === "PreToolUse") {
        expect(e.block).toMatchObject({ can: true, how: ["exit2"] });
        expect(e.observeOnly).toBeFalsy();
      } else {
        expect(e.block, name).toEqual({ can: false });
        expect(e.observeOnly, name).toBe(true);
      }
      expect(e.context, name).toBeNull();
    }
  });

  it("uses the neutral matcher kinds, with values OpenCode can emit", () => {
    for (const [name, e] of Object.entries(opencodeHooks.events)) {
      const neutral = neutralEvent(name)!;
      expect(e.matcher, name).toBe(neutral.matcher);
      for (const v of e.values ?? []) expect(neutral.values, `${name} ${v}`).toContain(v);
    }
    expect(opencodeHooks.events.SessionStart!.values).toEqual(["startup", "resume"]);
    expect(opencodeHooks.events.PostCompact!.values).toEqual(["manual", "auto"]);
  });

  it("maps neutral tools to the tool IDs of both versions", () => {
    for (const name of Object.keys(opencodeHooks.tools)) expect(NEUTRAL_TOOLS, name).toContain(name);
    expect(opencodeHooks.tools.Bash).toEqual(["bash", "shell"]);
    expect(opencodeHooks.tools.Task).toEqual(["task", "subagent"]);
    expect(opencodeHooks.tools.Edit).toContain("edit");
    for (const ids of Object.values(opencodeHooks.tools)) expect(new Set(ids).size).toBe(ids.length);
  });

  it("writes one plugin file per scope, loaded by directory discovery", () => {
    expect(opencodeHooks.file).toEqual({
      user: ".config/opencode/plugins/kanon-hooks.js",
      project: ".opencode/plugins/kanon-hooks.js",
    });
    expect(opencodeHooks.passThrough).toBe(false);
    expect(opencodeHooks.gates).toEqual([]);
  });

  it("runs command handlers with the neutral command fields, and evaluates matchers itself", () => {
    expect(Object.keys(opencodeHooks.handlers)).toEqual(["command"]);
    const { status_message, ...fields } = opencodeHooks.handlers.command!.fields;
    expect(Object.keys(fields).sort()).toEqual(["args", "async", "command", "timeout"]);
    for (const f of Object.values(fields)) expect(f.support).toBe("native");
    expect(status_message?.support).toBe("dropped");
    expect(opencodeHooks.matcher).toMatchObject({ listSeparators: ["|", ","], regex: null });
    expect(opencodeHooks.timeouts).toEqual({ unit: "s", defaultSec: 600 });
    expect(PLUGIN_RUNTIME).toContain(`const DEFAULT_TIMEOUT_SEC = ${opencodeHooks.timeouts.defaultSec};`);
  });
});
