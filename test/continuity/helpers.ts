/** Temporary projects and a worker script that runs the continuity store in other processes. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { afterAll, afterEach, beforeEach } from "vitest";
import { type ProjectFiles, projectFiles } from "../../src/continuity/files.js";
import { ROOT } from "../support/cli.js";

let workerDir: string | undefined;

/** A fresh project folder for each test of the calling file (and its worker script removed after it). */
export function projectPerTest(): { readonly files: ProjectFiles; readonly dir: string } {
  let dir: string | undefined;
  // Here, not at the top of this module: test files share modules (vitest runs them without
  // isolation), so a module-level afterAll would run after the first file only.
  afterAll(() => {
    if (workerDir) rmSync(workerDir, { recursive: true, force: true });
    workerDir = undefined;
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kanon-continuity-"));
  });
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return {
    get dir() {
      return dir!;
    },
    get files() {
      return projectFiles(dir!);
    },
  };
}

/** test/continuity/worker.ts bundled once per file, so that other Node processes run the real store. */
function worker(): string {
  if (!workerDir) {
    workerDir = mkdtempSync(join(tmpdir(), "kanon-continuity-worker-"));
    buildSync({
      entryPoints: [join(ROOT, "test/continuity/worker.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: join(workerDir, "worker.mjs"),
      logLevel: "error",
    });
  }
  return join(workerDir, "worker.mjs");
}

/** Starts `n` worker processes at once with `args`; resolves to each one's stdout lines. */
export function runWorkers(n: number, args: (i: number) => string[]): Promise<string[][]> {
  const script = worker();
  return Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise<string[]>((resolve, reject) => {
          const child = spawn(process.execPath, [script, ...args(i)], { stdio: ["ignore", "pipe", "pipe"] });
          let out = "";
          let err = "";
          child.stdout.on("data", (d) => {
            out += d;
          });
          child.stderr.on("data", (d) => {
            err += d;
          });
          child.on("close", (code) =>
            code === 0 ? resolve(out.split("\n").filter(Boolean)) : reject(new Error(`worker ${i}: ${err}`)),
          );
        }),
    ),
  );
}
