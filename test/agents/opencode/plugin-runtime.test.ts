/**
 * plugin-runtime.js is the readable source of the plugin's code; plugin-runtime-text.ts carries it as
 * a string so the bundled CLI can write it. This keeps the two in step.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { PLUGIN_RUNTIME } from "../../../src/agents/opencode/plugin-runtime-text.js";
import { RUNTIME_JS, RUNTIME_TEXT_TS, readRuntime, runtimeTextModule, UPDATE } from "./helpers.js";

describe("plugin runtime", () => {
  it("plugin-runtime-text.ts is generated from plugin-runtime.js", () => {
    const expected = runtimeTextModule(readRuntime());
    if (UPDATE) writeFileSync(RUNTIME_TEXT_TS, expected);
    expect(
      readFileSync(RUNTIME_TEXT_TS, "utf8"),
      "plugin-runtime-text.ts is stale: UPDATE_GOLDEN=1 npx vitest run test/agents/opencode/plugin-runtime.test.ts",
    ).toBe(expected);
  });

  it("embeds the runtime byte for byte", () => {
    expect(PLUGIN_RUNTIME).toBe(readRuntime());
  });

  it("has exactly one data block, which holds an empty table", () => {
    const src = readRuntime();
    expect(src.split("// kanon:hooks-begin\n")).toHaveLength(2);
    expect(src.split("// kanon:hooks-end\n")).toHaveLength(2);
    const block = src.slice(src.indexOf("// kanon:hooks-begin\n"), src.indexOf("// kanon:hooks-end\n"));
    expect(block).toBe("// kanon:hooks-begin\nconst HOOKS = [];\nconst TOOL_NAMES = {};\n");
  });

  it("is itself a loadable plugin that does nothing", async () => {
    const mod = await import(pathToFileURL(RUNTIME_JS).href);
    expect(Object.keys(mod)).toEqual(["default"]);
    expect(mod.default.id).toBe("kanon-hooks");
    const hooks = await mod.default.server({ directory: process.cwd() });
    expect(Object.keys(hooks)).toEqual(["dispose"]);
    await hooks.dispose();
  });
});
