/**
 * Import is the inverse of render: for random homes H, rendering the home that `kanon import` makes
 * from the files `kanon apply` wrote for H gives exactly the files H renders (path, bytes and mode),
 * in both scopes, for every agent (random `agents:` lists bring in Gemini CLI and Kimi Code). 40 runs per scope by default; `ROUNDTRIP_RUNS=150 npx vitest run
 * test/import/roundtrip.test.ts` searches longer.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { AGENT_IDS, AGENTS, selectAgents } from "../../src/agents/index.js";
import { renderAll } from "../../src/core/render.js";
import { applyChanges } from "../../src/destination/apply.js";
import { planChanges } from "../../src/destination/plan.js";
import { importMachine } from "../../src/import/read.js";
import { configYaml } from "../../src/import/yaml.js";
import type { HookEntry, KanonConfig, McpServer } from "../../src/model/config.js";
import { KanonError, type Scope, type TargetFile } from "../../src/model/types.js";
import { loadConfig, resolvePaths } from "../../src/source/load.js";
import { loadSource } from "../../src/source/source.js";
import { validateConfig } from "../../src/source/validate.js";

// "Every agent" (no targets) means the agents a home renders for by default.
const DEFAULT_IDS = AGENTS.filter((a) => a.manifest.defaultOn).map((a) => a.manifest.id);

const base = mkdtempSync(join(tmpdir(), "kanon-roundtrip-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const env = { HOME: base };

async function render(home: string, scope: Scope): Promise<TargetFile[] | null> {
  const paths = resolvePaths({ home }, env, scope.userHome, base);
  const loaded = await loadConfig(paths, AGENT_IDS);
  const validation = await validateConfig(loaded.config, paths, AGENTS, scope.kind, env);
  if (validation.errors.length > 0) return null;
  const source = await loadSource(loaded.config, paths, { lock: null, env });
  const agents = selectAgents("all", loaded.config.agents);
  try {
    return renderAll({
      source,
      scope,
      agents,
      decisions: validation.decisions,
      mcp: validation.mcp,
      items: validation.items,
    });
  } catch (e) {
    // e.g. project AGENTS.md with different text for Codex and OpenCode: not a valid home.
    if (e instanceof KanonError) return null;
    throw e;
  }
}

const view = (files: TargetFile[]) =>
  files.map((f) => `${f.path} ${f.mode.toString(8)}\n${Buffer.from(f.content).toString("latin1")}`);

interface Home {
  config: KanonConfig;
  files: Record<string, { text: string; mode: number }>;
}

function writeHome(dir: string, home: Home): void {
  mkdirSync(dir, { recursive: true });
  for (const [rel, f] of Object.entries(home.files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), f.text, { mode: f.mode });
  }
  writeFileSync(join(dir, "kanon.yaml"), configYaml(home.config));
}

const targets = fc.option(fc.subarray([...AGENT_IDS], { minLength: 1 }), { nil: undefined });
const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
const value = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("${TOKEN}", "${TOKEN:-fallback}", "it's", 'a "b" > c', "Bearer x"),
);
const map = fc.dictionary(fc.stringMatching(/^[A-Z][A-Z_]{0,5}$/), value, { maxKeys: 2 });

const server: fc.Arbitrary<McpServer> = fc
  .record(
    {
      remote: fc.boolean(),
      command: word,
      args: fc.array(value, { maxLength: 2 }),
      env: map,
      url: fc.constantFrom("https://mcp.example.com/mcp", "http://127.0.0.1:9/x"),
      headers: map,
      env_headers: fc.dictionary(fc.constantFrom("X-Env", "X-Key"), fc.constantFrom("ENV_A", "ENV_B"), {
        maxKeys: 1,
      }),
      bearer_token_env_var: fc.option(fc.constantFrom("MCP_TOKEN"), { nil: undefined }),
      startup_timeout_sec: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
      tool_timeout_sec: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
      env_vars: fc.array(fc.constantFrom("HOME", "PATH"), { maxLength: 1 }),
      enabled_tools: fc.array(fc.constantFrom("search", "fetch"), { maxLength: 2 }),
      disabled_tools: fc.array(fc.constantFrom("delete"), { maxLength: 1 }),
      default_approval: fc.option(fc.constantFrom("prompt", "approve"), { nil: undefined }),
      tools: fc.dictionary(
        fc.constantFrom("search", "fetch"),
        fc.record({ description: word, approval: fc.constantFrom("auto", "prompt") }, { requiredKeys: [] }),
        { maxKeys: 1 },
      ),
      opencode_enabled: fc.option(fc.boolean(), { nil: undefined }),
      type: fc.option(fc.constantFrom("stdio", "http", "sse"), { nil: undefined }),
      targets,
    },
    { requiredKeys: ["remote", "command"] },
  )
  .map(({ remote, command, url, ...rest }) => {
    const s: McpServer = remote ? { url: url ?? "https://x.example/mcp" } : { command };
    for (const [k, v] of Object.entries(rest)) {
      if (v === undefined || (typeof v === "object" && Object.keys(v).length === 0)) continue;
      if (remote && (k === "args" || k === "env")) continue;
      if (!remote && (k === "headers" || k === "env_headers" || k === "bearer_token_env_var")) continue;
      (s as Record<string, unknown>)[k] = v;
    }
    return s;
  });

const hook: fc.Arbitrary<Omit<HookEntry, "name">> = fc
  .record(
    {
      event: fc.constantFrom(
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "Notification",
        "PreCompact",
        "SessionEnd",
        "Interrupt",
      ),
      matcher: fc.constantFrom(
        "",
        "Bash",
        "Edit|Write",
        "Bash, Edit",
        "Write",
        "mcp__x__y",
        "^Ba.*",
        "startup",
      ),
      command: fc.constantFrom(
        "/usr/local/bin/guard",
        "echo hi",
        "./format.sh",
        "printf '%s' x",
        "'a b' 'c'",
        // Gemini CLI gets every $ protected from its settings loader.
        "echo \"$HOME\" '$X' ${Y:-z}",
      ),
      type: fc.constantFrom(undefined, "command", "http", "mcp_tool", "prompt"),
      args: fc.array(value, { maxLength: 2 }),
      timeout: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
      async: fc.boolean(),
      status_message: fc.option(fc.constantFrom("Checking", 'é "q"'), { nil: undefined }),
      targets,
    },
    { requiredKeys: ["event", "command"] },
  )
  .map((h) => {
    // Claude's other handler types have no command; only Claude runs them.
    const other: Partial<Record<string, Omit<HookEntry, "name">>> = {
      http: {
        event: h.event!,
        type: "http",
        url: "https://audit.example/hook",
        headers: { Authorization: "Bearer $TOKEN" },
        allowed_env_vars: ["TOKEN"],
      },
      mcp_tool: {
        event: h.event!,
        type: "mcp_tool",
        server: "lint",
        tool: "check",
        input: { path: "x", n: 2 },
      },
      prompt: { event: h.event!, type: "prompt", prompt: "Done? $ARGUMENTS", model: "fast" },
    };
    const o = other[h.type ?? ""];
    if (o)
      return { ...o, ...(h.status_message ? { status_message: h.status_message } : {}), targets: ["claude"] };
    const out: Omit<HookEntry, "name"> = { event: h.event!, command: h.command! };
    if (h.status_message) out.status_message = h.status_message;
    if (h.type) out.type = h.type;
    if (h.matcher) out.matcher = h.matcher;
    if (h.args && h.args.length > 0) out.args = h.args;
    if (h.timeout) out.timeout = h.timeout;
    if (h.async) out.async = true;
    if (h.targets) out.targets = h.targets;
    return out;
  });

const skill = fc.record({
  files: fc.dictionary(fc.constantFrom("SKILL.md", "run.sh", "ref/notes.md"), fc.string({ maxLength: 20 }), {
    minKeys: 1,
    maxKeys: 3,
  }),
  exec: fc.boolean(),
  targets,
});

const homes: fc.Arbitrary<Home> = fc
  .record({
    agents: fc.option(fc.subarray([...AGENT_IDS], { minLength: 1 }), { nil: undefined }),
    // Blank instruction files are left out: joined with others they leave extra blank lines (a Go
    // quirk) that no single imported file can reproduce.
    instructions: fc.array(
      fc.record({ text: fc.string({ maxLength: 20 }).filter((t) => t.trim() !== ""), targets }),
      { maxLength: 2 },
    ),
    skills: fc.dictionary(word, skill, { maxKeys: 2 }),
    servers: fc.dictionary(word, server, { maxKeys: 3 }),
    hooks: fc.array(hook, { maxLength: 4 }),
  })
  .map(({ agents, instructions, skills, servers, hooks }) => {
    const files: Home["files"] = {};
    const config: KanonConfig = {
      version: 1,
      ...(agents ? { agents } : {}),
      instructions: { files: [] },
      skills: [],
      mcp: { servers },
      hooks: hooks.map((h, i) => ({ name: `hook-${i}`, ...h })),
      metadata: {},
    };
    instructions.forEach((inst, i) => {
      const rel = `instructions/${i}.md`;
      files[rel] = { text: inst.text, mode: 0o644 };
      config.instructions.files.push(inst.targets ? { path: rel, targets: inst.targets } : rel);
    });
    for (const [name, s] of Object.entries(skills)) {
      for (const [rel, text] of Object.entries({ "SKILL.md": "---\nname: x\n---\n", ...s.files }))
        files[`skills/${name}/${rel}`] = { text, mode: rel === "run.sh" && s.exec ? 0o755 : 0o644 };
      if (s.targets) config.skills.push({ name, targets: s.targets });
    }
    return { config, files };
  });

let run = 0;
async function roundTrip(home: Home, project: boolean): Promise<void> {
  const dir = join(base, `run-${run++}`);
  const userHome = join(dir, "user");
  mkdirSync(userHome, { recursive: true });
  const scope: Scope = project
    ? { kind: "project", userHome, dir: join(dir, "project") }
    : { kind: "user", userHome };
  writeHome(join(dir, "h"), home);
  const before = await render(join(dir, "h"), scope);
  fc.pre(before !== null);
  applyChanges((await planChanges(before!)).changes);

  const imported = await importMachine({
    agents: AGENTS,
    allAgents: DEFAULT_IDS,
    scope,
    instructionPolicy: "per-agent",
    secretPolicy: "keep",
    hookNames: "command",
  });
  const out = join(dir, "imported");
  mkdirSync(out);
  for (const f of imported.files) {
    mkdirSync(dirname(join(out, f.rel)), { recursive: true });
    writeFileSync(join(out, f.rel), f.content, { mode: f.mode });
  }
  writeFileSync(join(out, "kanon.yaml"), configYaml(imported.config));
  const after = await render(out, scope);
  expect(after, configYaml(imported.config)).not.toBeNull();
  expect(view(after!), `${configYaml(home.config)}\n---\n${configYaml(imported.config)}`).toEqual(
    view(before!),
  );
  rmSync(dir, { recursive: true, force: true });
}

describe("render(import(apply(H))) == render(H)", () => {
  it("user scope (property)", { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(homes, (h) => roundTrip(h, false)),
      { numRuns: Number(process.env.ROUNDTRIP_RUNS ?? 40) },
    );
  });
  it("project scope (property)", { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(homes, (h) => roundTrip(h, true)),
      { numRuns: Number(process.env.ROUNDTRIP_RUNS ?? 40) },
    );
  });
});
