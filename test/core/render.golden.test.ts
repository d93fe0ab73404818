/**
 * Golden files for every rendered file of every agent in both scopes, from a fixture home that uses
 * every field (test/fixtures/homes/full, plus a git skill provider made from
 * test/fixtures/provider-repo). `UPDATE_GOLDEN=1 npx vitest run test/core/render.golden.test.ts`
 * rewrites them; review the diff.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_IDS, AGENTS } from "../../src/agents/index.js";
import { renderAll } from "../../src/core/render.js";
import type { MergeSpec, Scope, TargetFile } from "../../src/model/types.js";
import { loadLock } from "../../src/providers/lock-file.js";
import { loadConfig, resolvePaths } from "../../src/source/load.js";
import { loadSource } from "../../src/source/source.js";
import { hookWarnings, itemWarnings, serverWarnings, validateConfig } from "../../src/source/validate.js";
import { pluginGoldenForm } from "../agents/opencode/helpers.js";
import { ROOT } from "../support/cli.js";

const GOLDEN = join(ROOT, "test/golden/render");
const UPDATE = !!process.env.UPDATE_GOLDEN;

let base: string;
let env: NodeJS.ProcessEnv;

/** Copies a fixture tree with normalised modes (644, or 755 where the checkout has the exec bit). */
function copyFixture(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
  for (const e of readdirSync(to, { recursive: true, withFileTypes: true })) {
    const p = join(e.parentPath, e.name);
    if (e.isFile()) chmodSync(p, statSync(p).mode & 0o100 ? 0o755 : 0o644);
  }
}

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "kanon-golden-"));
  copyFixture(join(ROOT, "test/fixtures/homes/full"), join(base, "kanon-home"));
  const repo = join(base, "provider-src");
  copyFixture(join(ROOT, "test/fixtures/provider-repo"), repo);
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: repo,
      env: {
        ...process.env,
        GIT_CONFIG_NOSYSTEM: "1",
        HOME: base,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@example.invalid",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@example.invalid",
      },
    });
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-q", "-m", "skills");
  env = { PROVIDER_URL: `file://${repo}`, HOME: join(base, "user") };
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** One word per merge for the index: `kind:format:key`, several regions joined by `+`. */
function describeMerge(spec: MergeSpec): string {
  if (spec.kind === "regions") return spec.regions.map(describeMerge).join("+");
  return `${spec.kind}:${spec.format}:${spec.key}`;
}

async function render(
  scope: Scope,
  home = join(base, "kanon-home"),
): Promise<{ files: TargetFile[]; warnings: string[] }> {
  const paths = resolvePaths({ home }, env, scope.userHome, base);
  const loaded = await loadConfig(paths, AGENT_IDS);
  const validation = await validateConfig(loaded.config, paths, AGENTS, scope.kind, env);
  expect(validation.errors).toEqual([]);
  const source = await loadSource(loaded.config, paths, { lock: await loadLock(paths.home), env });
  const files = renderAll({
    source,
    scope,
    agents: AGENTS,
    decisions: validation.decisions,
    mcp: validation.mcp,
    items: validation.items,
  });
  return {
    files,
    warnings: [
      ...loaded.warnings,
      ...validation.warnings,
      ...hookWarnings(validation.decisions, AGENTS),
      ...serverWarnings(validation.mcp, AGENTS),
      ...itemWarnings(validation.items, AGENTS),
    ],
  };
}

/** The file as its golden copy holds it: the OpenCode plugin's fixed runtime by hash, anything else as is. */
function goldenForm(f: TargetFile): Uint8Array {
  if (!f.path.endsWith("/plugins/kanon-hooks.js")) return f.content;
  return Buffer.from(pluginGoldenForm(Buffer.from(f.content).toString("utf8")));
}

function goldenCheck(name: string, files: TargetFile[], warnings: string[], anchor: string): void {
  const dir = join(GOLDEN, name);
  const index = [
    "# mode agent merge path (rendered files of this scope; the file contents are beside this index)",
    ...files.map(
      (f) =>
        `${f.mode.toString(8)} ${f.agent} ${f.merge ? describeMerge(f.merge) : "replace"} ${relative(anchor, f.path)}`,
    ),
    "# warnings",
    ...warnings,
  ].join("\n");
  if (UPDATE) {
    rmSync(dir, { recursive: true, force: true });
    for (const f of files) {
      const p = join(dir, relative(anchor, f.path));
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, goldenForm(f));
    }
    writeFileSync(join(dir, "INDEX"), `${index}\n`);
    return;
  }
  expect(existsSync(join(dir, "INDEX")), `golden ${name} missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(index).toBe(readFileSync(join(dir, "INDEX"), "utf8").trimEnd());
  for (const f of files) {
    const rel = relative(anchor, f.path);
    expect(Buffer.from(goldenForm(f)).toString("latin1"), rel).toBe(
      readFileSync(join(dir, rel)).toString("latin1"),
    );
  }
}

describe("golden render of a home that uses every field", () => {
  it("user scope", async () => {
    const userHome = join(base, "user");
    const { files, warnings } = await render({ kind: "user", userHome });
    goldenCheck("user", files, warnings, userHome);
  });

  it("project scope", async () => {
    const userHome = join(base, "user");
    const dir = join(base, "project");
    const { files, warnings } = await render({ kind: "project", userHome, dir });
    goldenCheck("project", files, warnings, dir);
  });

  it("Kimi Code's MCP servers, whose strings reach the server as written", async () => {
    const userHome = join(base, "user");
    const { files, warnings } = await render(
      { kind: "user", userHome },
      join(ROOT, "test/fixtures/homes/kimi-mcp"),
    );
    goldenCheck("kimi-mcp", files, warnings, userHome);
  });
});
