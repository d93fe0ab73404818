// Installs a pinned agent package into the suite's cache (never into the product's dependencies).
// Each agent version gets its own folder, `<cacheRoot>/<id>@<version>`; an install goes to a scratch
// folder first and is renamed into place only once the binary answers `--version`, so an interrupted
// install is never mistaken for a cached one.

import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { InstallContext, Installed } from "../drivers/types.js";
import { runProcess } from "./proc.js";

const MARKER = ".kanon-conformance-install.json";
const NPM_TIMEOUT_MS = 5 * 60_000;

export interface InstallSpec {
  id: string;
  version: string;
  /** Package specs for `npm install`, e.g. `opencode-ai@1.18.33`. */
  packages: string[];
  /** argv prefix that starts the agent, given the install folder. */
  argv(dir: string): string[];
}

export async function installAgent(ctx: InstallContext, spec: InstallSpec): Promise<Installed> {
  const started = performance.now();
  const dir = join(ctx.cacheRoot, `${spec.id}@${spec.version}`);
  const marker = join(dir, MARKER);
  const argv = spec.argv(dir);
  if (existsSync(marker) && argv.filter((part) => part.startsWith(dir)).every((part) => existsSync(part))) {
    try {
      const recorded = JSON.parse(readFileSync(marker, "utf8")) as { version?: string; packages?: string[] };
      if (
        recorded.version === spec.version &&
        JSON.stringify(recorded.packages) === JSON.stringify(spec.packages)
      ) {
        return {
          version: spec.version,
          argv,
          dir,
          cached: true,
          seconds: (performance.now() - started) / 1000,
        };
      }
    } catch {
      // A broken marker means a fresh install.
    }
  }

  await mkdir(ctx.cacheRoot, { recursive: true });
  removeAbandonedScratch(ctx.cacheRoot, `${spec.id}@${spec.version}`);
  const scratch = `${dir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  await mkdir(scratch, { recursive: true });
  ctx.log(`installing ${spec.packages.join(" ")}`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = await runProcess(
    [
      npm,
      "install",
      "--prefix",
      scratch,
      "--no-save",
      "--no-package-lock",
      "--ignore-scripts",
      "--omit=optional",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      ...spec.packages,
    ],
    { cwd: scratch, env: process.env, timeoutMs: NPM_TIMEOUT_MS },
  );
  if (result.code !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(
      `npm install failed (${result.timedOut ? "timed out" : `exit ${result.code}`}): ${result.stderr.trim().slice(-2000)}`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);

  const versionHome = mkdtempSync(join(tmpdir(), "kanon-conformance-version-"));
  const check = await runProcess([...argv, "--version"], {
    cwd: versionHome,
    env: { ...process.env, HOME: versionHome, XDG_CONFIG_HOME: join(versionHome, ".config") },
    timeoutMs: 60_000,
  });
  rmSync(versionHome, { recursive: true, force: true });
  const output = `${check.stdout}\n${check.stderr}`;
  if (check.code !== 0 || !output.includes(spec.version)) {
    throw new Error(
      `installed ${spec.id} does not report version ${spec.version}: ${output.trim().slice(0, 500)}`,
    );
  }
  writeFileSync(marker, `${JSON.stringify({ version: spec.version, packages: spec.packages }, null, 2)}\n`);
  return { version: spec.version, argv, dir, cached: false, seconds: (performance.now() - started) / 1000 };
}

/** Removes scratch folders of installs whose process is gone (an interrupted earlier run). */
function removeAbandonedScratch(cacheRoot: string, name: string): void {
  for (const entry of readdirSync(cacheRoot)) {
    const match = /\.partial-(\d+)$/.exec(entry);
    if (!match || !entry.startsWith(`${name}.partial-`)) continue;
    const pid = Number(match[1]);
    let alive = pid === process.pid;
    if (!alive) {
      try {
        process.kill(pid, 0);
        alive = true;
      } catch {
        alive = false;
      }
    }
    if (!alive) rmSync(join(cacheRoot, entry), { recursive: true, force: true });
  }
}

/** npm's platform suffix for the agents' native packages, e.g. `linux-x64`. */
export function platformKey(): string {
  return `${process.platform}-${process.arch}`;
}

/** True on Linux with musl instead of glibc. */
export function isMusl(): boolean {
  if (process.platform !== "linux") return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return !report?.header?.glibcVersionRuntime;
}
