import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { KANON, ROOT, sandboxEnv } from "../support/cli.js";

const DIST = join(ROOT, "dist");
const read = (name: string) => readFileSync(join(DIST, name), "utf8");

describe("the build", () => {
  it("keeps Ink and React out of every command's start-up: only kanon ui loads them", () => {
    const cli = read("kanon.js");
    expect(cli.includes("yoga")).toBe(false);
    expect(cli.includes("react.transitional.element")).toBe(false);
    const ui = read("kanon-ui.mjs");
    expect(ui).toContain("yoga");
    expect(ui).toContain("react.transitional.element");
    expect(cli).toContain('import("./kanon-ui.mjs")');
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

describe("output", () => {
  const dir = mkdtempSync(join(tmpdir(), "kanon-output-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("to a file or /dev/null is what goes to a pipe", () => {
    const env = sandboxEnv(dir);
    const argv = [KANON, "--home", join(ROOT, "examples/home"), "diff"];
    const piped = spawnSync(process.execPath, argv, { encoding: "utf8", env });
    expect(piped.stdout).toContain("+++ ");
    expect(piped.stderr).toContain("warning: ");
    const [out, err] = [join(dir, "out.txt"), join(dir, "err.txt")];
    const [outFd, errFd] = [openSync(out, "w"), openSync(err, "w")];
    const toFiles = spawnSync(process.execPath, argv, { stdio: ["ignore", outFd, errFd], env });
    closeSync(outFd);
    closeSync(errFd);
    expect(toFiles.status).toBe(piped.status);
    expect(readFileSync(out, "utf8")).toBe(piped.stdout);
    expect(readFileSync(err, "utf8")).toBe(piped.stderr);
    const devNull = openSync("/dev/null", "w");
    const discarded = spawnSync(process.execPath, argv, { stdio: ["ignore", devNull, devNull], env });
    closeSync(devNull);
    expect(discarded.status).toBe(piped.status);
  });
});
