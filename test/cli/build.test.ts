import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KANON, ROOT } from "../support/cli.js";

const DIST = join(ROOT, "dist");
const read = (name: string) => readFileSync(join(DIST, name), "utf8");

describe("the build", () => {
  it("keeps Ink and React out of every command's start-up: only kanon ui loads them", () => {
    for (const name of ["kanon.js", "kanon-cli.js"]) {
      const text = read(name);
      expect(text.includes("yoga"), name).toBe(false);
      expect(text.includes("react.transitional.element"), name).toBe(false);
    }
    const ui = read("kanon-ui.mjs");
    expect(ui).toContain("yoga");
    expect(ui).toContain("react.transitional.element");
    expect(read("kanon-cli.js")).toContain('import("./kanon-ui.mjs")');
  });

  it("starts under a 4 GB limit of virtual memory (Node itself needs under 1 GB)", () => {
    // No command but kanon ui loads WebAssembly, whose memory reserves about 10 GB of address space.
    const r = spawnSync("sh", ["-c", 'ulimit -v 4000000; exec "$0" "$1" --help', process.execPath, KANON], {
      encoding: "utf8",
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: kanon /);
  });
});
