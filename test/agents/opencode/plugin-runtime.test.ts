/**
 * plugin-runtime.js is the source of the plugin's code; plugin.ts imports it as text (`?raw`), which
 * the bundle (scripts/esbuild-text.mjs) and vitest both resolve to the file's bytes.
 */
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import PLUGIN_RUNTIME from "../../../src/agents/opencode/plugin-runtime.js?raw";
import { RUNTIME_JS, readRuntime } from "./helpers.js";

describe("plugin runtime", () => {
  it("is imported as text byte for byte", () => {
    expect(PLUGIN_RUNTIME).toBe(readRuntime());
  });

  it("is ASCII, so that V8 holds it (in the bundle and in every rendered plugin) one byte a character", () => {
    expect(readRuntime()).not.toMatch(/[^\t\n -~]/);
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
