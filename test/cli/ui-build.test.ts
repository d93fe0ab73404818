import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/cli.js";

const DIST = join(ROOT, "dist");

describe("the UI chunk", () => {
  it("instantiates Ink's layout engine without fetch() (scripts/build.mjs, yoga-sync)", () => {
    // The WebAssembly is no longer a data: URL, and loading the chunk never calls fetch().
    expect(readFileSync(join(DIST, "kanon-ui.mjs"), "utf8").includes("base64,AGFzbQ")).toBe(false);
    const script = `globalThis.fetch = () => { throw new Error("fetch called"); };
      const ui = await import(${JSON.stringify(join(DIST, "kanon-ui.mjs"))});
      console.log(typeof ui.runUi);`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("function");
  });

  it("carries Ink, React and the screen, and none of kanon's modules: the CLI bundle's come through the host", () => {
    const ui = readFileSync(join(DIST, "kanon-ui.mjs"), "utf8");
    const cli = readFileSync(join(DIST, "kanon.js"), "utf8");
    expect(ui.includes("react.transitional.element")).toBe(true);
    // Messages of loading (source/), planning and applying (destination/, cli/ui/review.ts) and the diff pane.
    for (const text of ["kanon.yaml", "reload before applying", "Binary files differ"]) {
      expect(ui.includes(text), text).toBe(false);
      expect(cli.includes(text), text).toBe(true);
    }
  });
});
