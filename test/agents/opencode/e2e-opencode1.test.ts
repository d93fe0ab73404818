/**
 * End to end with the real OpenCode 1 (opencode-ai 1.18.33) against a fake model on 127.0.0.1, in an
 * isolated HOME: the rendered plugin loads from plugins/ in both scopes, a PreToolUse hook that exits
 * 2 blocks one of two parallel shell calls (the model gets the hook's stderr, the sibling runs), and
 * the Stop hook fires before `opencode run` exits.
 *
 * Skipped when the binary is not installed. To install it (outside the project's dependencies):
 *   npm install --prefix .cache/agents/opencode@1.18.33 --no-save opencode-ai@1.18.33
 * or point KANON_OPENCODE_BIN at an opencode 1.x binary.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { opencodeHooks } from "../../../src/agents/opencode/hooks.js";
import { type PluginHook, renderOpenCodePlugin } from "../../../src/agents/opencode/plugin.js";
import { startFakeModel } from "./fake-model.js";
import { ROOT, removeTempDirs, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

const VERSION = "1.18.33";
/** Where `npm run test:agents` installs agents (KANON_AGENTS_CACHE, default .cache/agents). */
const AGENTS_CACHE = process.env.KANON_AGENTS_CACHE || join(ROOT, ".cache/agents");
const INSTALL = join(AGENTS_CACHE, `opencode@${VERSION}`, "node_modules");

/** The platform binary (the opencode-ai wrapper needs its postinstall, which a cache install may skip). */
function findOpenCode(): string | undefined {
  const given = process.env.KANON_OPENCODE_BIN;
  if (given) return existsSync(given) ? given : undefined;
  const arch = process.arch;
  for (const pkg of [
    `opencode-${process.platform}-${arch}`,
    `opencode-${process.platform}-${arch}-baseline`,
  ]) {
    const bin = join(INSTALL, pkg, "bin", "opencode");
    if (existsSync(bin)) return bin;
  }
  const wrapper = join(INSTALL, ".bin", "opencode");
  return existsSync(wrapper) ? wrapper : undefined;
}

const BIN = findOpenCode();
const SKIP = BIN
  ? ""
  : ` (skipped: OpenCode ${VERSION} is not installed under ${AGENTS_CACHE}/opencode@${VERSION}` +
    `${process.env.KANON_OPENCODE_BIN ? " and KANON_OPENCODE_BIN does not exist" : ""}; see this file's header)`;

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

function runOpenCode(bin: string, cwd: string, home: string, proxy: string, prompt: string[]): Promise<Run> {
  const proxies = Object.fromEntries(
    ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"].flatMap((k) => [
      [k, proxy],
      [k.toLowerCase(), proxy],
    ]),
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local/state"),
    TMPDIR: join(home, "tmp"),
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    CI: "1",
    ...proxies,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_CLAUDE_CODE: "1",
  };
  mkdirSync(env.TMPDIR!, { recursive: true });
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(bin, ["run", "--print-logs", "--log-level", "INFO", "--format", "json", ...prompt], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, seconds: (Date.now() - t0) / 1000 });
    });
  });
}

/** A project with a git repo and an opencode.json that points OpenCode 1 at the fake model. */
function project(root: string, modelUrl: string): { home: string; work: string } {
  const home = join(root, "home");
  const work = join(root, "work");
  mkdirSync(join(home, ".config"), { recursive: true });
  mkdirSync(work, { recursive: true });
  spawnSync("git", ["init", "-q", work]);
  const config = {
    $schema: "https://opencode.ai/config.json",
    model: "fake/fake-model",
    small_model: "fake/fake-model",
    autoupdate: false,
    share: "disabled",
    permission: { bash: "allow", edit: "allow", read: "allow" },
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake",
        options: { baseURL: modelUrl, apiKey: "test-key" },
        models: {
          "fake-model": { name: "Fake Model", tool_call: true, limit: { context: 100000, output: 4096 } },
        },
      },
    },
  };
  writeFileSync(join(work, "opencode.json"), JSON.stringify(config, null, 2));
  return { home, work };
}

function writePlugin(path: string, hooks: PluginHook[]) {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, renderOpenCodePlugin(hooks));
}

function hookLog(file: string): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const describeE2E = BIN ? describe : describe.skip;
if (!BIN) console.warn(`e2e-opencode1:${SKIP}`);

describeE2E(`OpenCode ${VERSION}, real binary${SKIP}`, () => {
  it.concurrent(`runs the hooks of a project-scope plugin: block with exit 2, sibling runs, Stop before exit${SKIP}`, async () => {
    const root = realpathSync(tempDir("kanon-oc-e2e-"));
    const model = await startFakeModel(["echo blocked > blocked.txt", "echo hello > out.txt"]);
    try {
      const { home, work } = project(root, model.url);
      const log = join(root, "hooks.jsonl");
      const record = `cat >> ${sq(log)}`;
      // The guard: exit 2 with a message for the command that writes blocked.txt, record the rest.
      const guard = `input=$(cat); case "$input" in *blocked.txt*) echo "kanon blocked: no blocked.txt here" >&2; exit 2;; esac; printf '%s\\n' "$input" >> ${sq(log)}`;
      writePlugin(join(work, opencodeHooks.file.project!), [
        { name: "start", event: "SessionStart", matcher: { names: ["startup"] }, command: record },
        { name: "prompt", event: "UserPromptSubmit", matcher: null, command: record },
        {
          name: "guard",
          event: "PreToolUse",
          matcher: { names: ["bash", "shell"] },
          command: guard,
          timeout: 30,
        },
        { name: "post", event: "PostToolUse", matcher: { regex: "^Bash$" }, command: record },
        // Slow on purpose: it is only in the log at exit if OpenCode waited for it.
        { name: "stop", event: "Stop", matcher: null, command: `sleep 1; ${record}` },
      ]);

      const run = await runOpenCode(BIN!, work, home, `http://127.0.0.1:${model.port}`, [
        "Create",
        "out.txt",
      ]);
      const context = `exit ${run.code} after ${run.seconds}s\n--- stderr (tail)\n${run.stderr.slice(-4000)}`;
      const hooks = hookLog(log); // read right at exit: the Stop hook must already be there

      expect(run.code, context).toBe(0);
      expect(run.stderr, context).not.toMatch(/failed to load plugin|Plugin .* skipped/i);
      expect(run.stderr, context).not.toContain("[kanon-hooks]");
      expect(readFileSync(join(work, "out.txt"), "utf8"), context).toBe("hello\n");
      expect(existsSync(join(work, "blocked.txt")), context).toBe(false);

      const names = hooks.map((h) => h.hook_event_name);
      expect(
        names.filter((n) => n === "SessionStart"),
        context,
      ).toHaveLength(1);
      expect(
        names.filter((n) => n === "UserPromptSubmit"),
        context,
      ).toHaveLength(1);
      expect(
        names.filter((n) => n === "PostToolUse"),
        context,
      ).toHaveLength(1);
      expect(
        names.filter((n) => n === "Stop"),
        context,
      ).toHaveLength(1);
      // One PreToolUse per call, recorded for the allowed one only: the plugin registered once.
      expect(
        hooks.filter((h) => h.hook_event_name === "PreToolUse"),
        context,
      ).toEqual([
        expect.objectContaining({
          tool_name: "bash",
          tool_input: expect.objectContaining({ command: "echo hello > out.txt" }),
          cwd: work,
        }),
      ]);
      expect(hooks.find((h) => h.hook_event_name === "SessionStart")).toMatchObject({
        source: "startup",
        cwd: work,
      });
      expect(String(hooks.find((h) => h.hook_event_name === "UserPromptSubmit")?.prompt)).toContain("Create");
      expect(hooks.find((h) => h.hook_event_name === "PostToolUse")).toMatchObject({
        tool_name: "bash",
        tool_input: { command: "echo hello > out.txt" },
      });
      const sessions = new Set(hooks.map((h) => h.session_id));
      expect(sessions.size, context).toBe(1);
      expect(names.indexOf("Stop")).toBe(names.length - 1);

      // The model saw the hook's stderr as the blocked call's result, and the sibling's real output.
      const toolResults = model.requests.flatMap((r) => r.messages.filter((m) => m.role === "tool"));
      const result = (id: string) =>
        JSON.stringify(toolResults.find((m) => m.tool_call_id === id)?.content ?? null);
      expect(result("call_1"), context).toContain("kanon blocked: no blocked.txt here");
      expect(result("call_2"), context).not.toContain("kanon blocked");
      if (process.env.KANON_E2E_VERBOSE) console.log({ seconds: run.seconds, egress: model.egress, hooks });
    } finally {
      await model.close();
    }
  }, 180_000);

  it.concurrent(`loads the user-scope plugin from ~/.config/opencode/plugins${SKIP}`, async () => {
    const root = realpathSync(tempDir("kanon-oc-e2e-user-"));
    const model = await startFakeModel(["echo hello > out.txt"]);
    try {
      const { home, work } = project(root, model.url);
      const log = join(root, "hooks.jsonl");
      writePlugin(join(home, opencodeHooks.file.user!), [
        {
          name: "guard",
          event: "PreToolUse",
          matcher: { names: ["bash", "shell"] },
          command: "echo 'no shell today' >&2; exit 2",
        },
        { name: "stop", event: "Stop", matcher: null, command: `cat >> ${sq(log)}` },
      ]);
      const run = await runOpenCode(BIN!, work, home, `http://127.0.0.1:${model.port}`, [
        "Create",
        "out.txt",
      ]);
      const context = `exit ${run.code} after ${run.seconds}s\n--- stderr (tail)\n${run.stderr.slice(-4000)}`;
      expect(run.code, context).toBe(0);
      expect(existsSync(join(work, "out.txt")), context).toBe(false);
      expect(
        hookLog(log).map((h) => h.hook_event_name),
        context,
      ).toEqual(["Stop"]);
      const toolResults = model.requests.flatMap((r) => r.messages.filter((m) => m.role === "tool"));
      expect(JSON.stringify(toolResults), context).toContain("no shell today");
    } finally {
      await model.close();
    }
  }, 180_000);
});
