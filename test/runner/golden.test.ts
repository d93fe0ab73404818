/**
 * Golden files for neutral hooks in every agent's hook file, in both scopes, and for the runner kanon
 * writes beside them (its code by SHA-256, its tables in full), from test/fixtures/homes/envelope
 * with fixed machine facts. `UPDATE_GOLDEN=1 npx vitest run test/runner/golden.test.ts` rewrites them.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_IDS, AGENTS } from "../../src/agents/index.js";
import { renderAll } from "../../src/core/render.js";
import type { Scope, TargetFile } from "../../src/model/types.js";
import { BEGIN, runnerText } from "../../src/runner/file.js";
import RUNNER from "../../src/runner/runner.js?raw";
import { loadConfig, resolvePaths } from "../../src/source/load.js";
import { loadSource } from "../../src/source/source.js";
import { validateConfig } from "../../src/source/validate.js";
import { pluginGoldenForm } from "../agents/opencode/helpers.js";
import { ROOT } from "../support/cli.js";

const GOLDEN = join(ROOT, "test/golden/envelope");
const HOME = join(ROOT, "test/fixtures/homes/envelope");
const UPDATE = !!process.env.UPDATE_GOLDEN;
const USER_HOME = "/home/u";
const NODE = "/usr/local/bin/node";

async function render(scope: Scope, runner: string): Promise<TargetFile[]> {
  const paths = resolvePaths({ home: HOME }, {}, USER_HOME, HOME);
  const loaded = await loadConfig(paths, AGENT_IDS);
  const machine = { node: NODE, runner };
  const v = await validateConfig(loaded.config, paths, AGENTS, scope.kind, {}, undefined, undefined, machine);
  expect(v.errors).toEqual([]);
  const source = await loadSource(loaded.config, paths, { lock: null, env: {} });
  const content = runnerText(
    AGENTS.map((a) => a.manifest),
    `${USER_HOME}/.local/state/kanon`,
  );
  return renderAll({
    source,
    scope,
    agents: AGENTS,
    decisions: v.decisions,
    mcp: v.mcp,
    items: v.items,
    runner: { path: runner, content },
  });
}

/** The runner as its golden copy holds it: the header and tables in full, runner.js by its hash. */
function runnerGoldenForm(text: string): string {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf("// kanon:runner-end\n");
  const sha = createHash("sha256").update(RUNNER).digest("hex");
  expect(text.slice(0, start).endsWith(RUNNER.slice(0, RUNNER.indexOf(BEGIN)))).toBe(true);
  return `${text.slice(0, text.indexOf("// kanon's hook runner."))}// [golden] runner.js sha256:${sha} surrounds this data block\n${text.slice(start, end)}`;
}

function goldenForm(f: TargetFile): string {
  const text = Buffer.from(f.content).toString("utf8");
  if (f.path.endsWith("/hook-runner.mjs")) return runnerGoldenForm(text);
  if (f.path.endsWith("/plugins/kanon-hooks.js")) return pluginGoldenForm(text);
  return text;
}

function check(name: string, files: TargetFile[]): void {
  const dir = join(GOLDEN, name);
  const hookFiles = files.filter((f) => /hooks|settings|config\.toml|runner/.test(f.path));
  const rel = (f: TargetFile) => relative("/", f.path);
  const index = hookFiles
    .map((f) => `${f.agent}${f.sharedWith ? `+${f.sharedWith.join("+")}` : ""} ${rel(f)}`)
    .join("\n");
  if (UPDATE) {
    rmSync(dir, { recursive: true, force: true });
    for (const f of hookFiles) {
      mkdirSync(dirname(join(dir, rel(f))), { recursive: true });
      writeFileSync(join(dir, rel(f)), goldenForm(f));
    }
    writeFileSync(join(dir, "INDEX"), `${index}\n`);
    return;
  }
  expect(existsSync(join(dir, "INDEX")), `golden ${name} missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(index).toBe(readFileSync(join(dir, "INDEX"), "utf8").trimEnd());
  for (const f of hookFiles) expect(goldenForm(f), rel(f)).toBe(readFileSync(join(dir, rel(f)), "utf8"));
}

describe("golden render of neutral hooks", () => {
  it("user scope", async () => {
    check(
      "user",
      await render({ kind: "user", userHome: USER_HOME }, `${USER_HOME}/.local/share/kanon/hook-runner.mjs`),
    );
  });

  it("project scope", async () => {
    const runner = `${USER_HOME}/.local/share/kanon/projects/project-0123456789ab/hook-runner.mjs`;
    check("project", await render({ kind: "project", userHome: USER_HOME, dir: "/work/project" }, runner));
  });
});
