/** Shared helpers for the OpenCode plugin tests: paths, the runtime text module, loading a rendered plugin. */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, type MockInstance, vi } from "vitest";
import { type PluginHook, pluginRuntime, renderOpenCodePlugin } from "../../../src/agents/opencode/plugin.js";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const RUNTIME_JS = join(ROOT, "src/agents/opencode/plugin-runtime.js");
export const GOLDEN_DIR = join(ROOT, "test/golden/opencode-plugin");
/** Set UPDATE_GOLDEN=1 to rewrite golden files instead of comparing. */
export const UPDATE = process.env.UPDATE_GOLDEN === "1";

export const readRuntime = () => readFileSync(RUNTIME_JS, "utf8");

const BEGIN = "// kanon:hooks-begin\n";
const END = "// kanon:hooks-end\n";

/**
 * A rendered kanon-hooks.js as golden files record it: the header and the data block in full, the
 * runtime around them by its SHA-256 (after checking that it is plugin-runtime.js byte for byte, its
 * neutral sections left out when no hook is neutral), so a runtime edit changes one line per golden
 * file instead of repeating the runtime in each.
 */
export function pluginGoldenForm(text: string): string {
  const PLUGIN_RUNTIME = pluginRuntime(text.includes('"neutral":true'));
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END) + END.length;
  const runtimeHead = PLUGIN_RUNTIME.slice(0, PLUGIN_RUNTIME.indexOf(BEGIN));
  const runtimeTail = PLUGIN_RUNTIME.slice(PLUGIN_RUNTIME.indexOf(END) + END.length);
  const head = text.slice(0, begin);
  if (begin < 0 || !head.endsWith(runtimeHead) || text.slice(end) !== runtimeTail)
    throw new Error("the rendered plugin is not plugin-runtime.js around one data block");
  const sha = createHash("sha256").update(PLUGIN_RUNTIME).digest("hex");
  return `${head.slice(0, head.length - runtimeHead.length)}// [golden] plugin-runtime.js sha256:${sha} surrounds this data block\n${text.slice(begin, end)}`;
}

export interface V1Hooks {
  event?: (input: { event: unknown }) => void;
  "chat.message"?: (input: unknown, output: unknown) => Promise<void>;
  "tool.execute.before"?: (input: unknown, output: unknown) => Promise<void>;
  "tool.execute.after"?: (input: unknown, output: unknown) => Promise<void>;
  dispose?: () => Promise<void>;
}

export interface LoadedPlugin {
  id: string;
  server: (input: unknown, options?: unknown) => Promise<V1Hooks>;
  setup: (ctx: unknown) => Promise<(() => Promise<void>) | undefined>;
}

const made: string[] = [];

/** Removes every directory tempDir made in this file (call it from afterAll); KANON_KEEP_TMP=1 keeps them. */
export function removeTempDirs(): void {
  if (process.env.KANON_KEEP_TMP === "1") return;
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A fresh temporary directory; see removeTempDirs. */
export function tempDir(prefix = "kanon-oc-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** Renders `hooks`, writes the plugin to a fresh directory and imports it (a new module each time). */
export async function loadPlugin(
  hooks: PluginHook[],
): Promise<{ plugin: LoadedPlugin; file: string; text: string }> {
  const text = renderOpenCodePlugin(hooks);
  const file = join(tempDir("kanon-oc-plugin-"), "kanon-hooks.js");
  writeFileSync(file, text);
  const mod = (await import(pathToFileURL(file).href)) as { default: LoadedPlugin };
  return { plugin: mod.default, file, text };
}

/** Polls until `check` is true (or throws after `ms`). */
export async function waitFor(check: () => boolean, ms = 5000, what = "condition"): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Node as a hook command in exec form: `node -e <script> <args…>`, no shell involved. */
export function nodeHook(script: string, ...args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: ["-e", script, ...args] };
}

/** `s` in shell single quotes. */
export const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * For each test of the calling file: a fresh directory `dir`, the file `log` that `hook(...)`s append
 * what they receive to, and process.stderr captured (the plugin's log lines). The object stands for
 * the running test's; its functions may be taken out of it.
 */
export function recordingPerTest() {
  let current: { dir: string; log: string; stderr: MockInstance } | undefined;
  const now = () => {
    if (!current) throw new Error("the recording exists only while a test runs");
    return current;
  };
  beforeEach(() => {
    const dir = realpathSync(tempDir());
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    current = { dir, log: join(dir, "log.jsonl"), stderr };
  });
  afterEach(() => {
    current?.stderr.mockRestore();
    current = undefined;
  });
  const records = (): Record<string, unknown>[] => {
    const { log } = now();
    if (!existsSync(log)) return [];
    return readFileSync(log, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  };
  return {
    get dir() {
      return now().dir;
    },
    get log() {
      return now().log;
    },
    /** Every JSON object the recording hooks received, in order. */
    records,
    events: () => records().map((r) => r.hook_event_name),
    /** What the plugin wrote to stderr. */
    logged: () =>
      now()
        .stderr.mock.calls.map((c) => String(c[0]))
        .join(""),
    /** A hook that appends its stdin to the log. */
    hook: (event: string, over: Partial<PluginHook> = {}): PluginHook => ({
      name: `${event}-hook`,
      event,
      matcher: null,
      command: `cat >> ${sq(now().log)}`,
      ...over,
    }),
  };
}
