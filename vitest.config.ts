import { readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { bundleText } from "./scripts/esbuild-text.mjs";

const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as {
  version: string;
};

export default defineConfig({
  plugins: [
    {
      // `import text from "./entry.ts?bundle"`: as in the build (scripts/esbuild-text.mjs).
      name: "bundle-text",
      async load(id) {
        if (!id.endsWith("?bundle")) return null;
        return `export default ${JSON.stringify(await bundleText(id.slice(0, -"?bundle".length)))};`;
      },
      // The module cache below keys a module by its own file's text: a bundle's text depends on the
      // files it imports too, so it is never cached. The version is in every key, for the define below.
      configureVitest({ experimental_defineCacheKeyGenerator }) {
        experimental_defineCacheKeyGenerator(({ id }) => (id.endsWith("?bundle") ? false : pkg.version));
      },
    },
  ],
  // As the build defines it: `kanon --version` in-process prints the package's version.
  define: { __KANON_VERSION__: JSON.stringify(pkg.version) },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Measured with the whole suite on this 2-core machine (shared, load average 12-13 during each
    // run; CPU is user+sys of vitest and everything it started, which the load barely moves):
    //   forks, isolate, 1 worker (vitest's default here)   not run: 2 workers below is the same work
    //   forks, isolate, 2 workers                          640 s wall, 220 s CPU
    //   forks, no isolate, 1 worker                        442 s wall, 129 s CPU
    //   forks, no isolate, 2 workers                       256 s wall, 117 s CPU   <- chosen
    //   forks, no isolate, 3 workers                       241 s wall, 128 s CPU
    //   threads, no isolate, 2 workers                     436 s wall, 158 s CPU
    // Isolation re-imports kanon's modules for every file; no file needs it (a test passes its own
    // file system to plan and apply rather than setting one, and restores its spies). Threads share
    // one process, so each git or kanon it spawns forks all of them. Files run in parallel, tests
    // within a file in order.
    pool: "forks",
    isolate: false,
    maxWorkers: 2,
    // No optimizing compiler (TurboFan) in the workers: a worker runs each of kanon's functions for a
    // few tests, and perf showed V8's background threads compiling optimized code for ~15 s of CPU per
    // suite that the tests never earned back. Whole suite, same machine and load, A/B: files' own CPU
    // (the workers, without the processes they start) 91.8 -> 68.3 s, vitest in all 206 -> 178 s of
    // CPU; the fuzz and property tests are faster too (fuzz 3.6 -> 2.2 s). Processes the tests start
    // (kanon, git, hook runners) do not inherit it.
    execArgv: ["--no-opt"],
    // Modules transformed by an earlier run are read from node_modules/.experimental-vitest-cache
    // (keyed by each file's text, the config and vitest's version) instead of transformed again.
    // Whole suite, same machine: CPU of vitest's main process 8.4, 10.5, 10.8 s -> 5.6, 6.3 s with the
    // cache of the run before (a fresh clone, or an edit of this file, starts without it).
    experimental: { fsModuleCache: true },
  },
});
