/** Shared helpers for the OpenCode plugin tests: paths, the runtime text module, loading a rendered plugin. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type PluginHook, renderOpenCodePlugin } from "../../../src/agents/opencode/plugin.js";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const RUNTIME_JS = join(ROOT, "src/agents/opencode/plugin-runtime.js");
export const RUNTIME_TEXT_TS = join(ROOT, "src/agents/opencode/plugin-runtime-text.ts");
export const GOLDEN_DIR = join(ROOT, "test/golden/opencode-plugin");
export const FIXTURES_DIR = join(ROOT, "test/fixtures/opencode");
/** Set UPDATE_GOLDEN=1 to rewrite golden files and plugin-runtime-text.ts instead of comparing. */
export const UPDATE = process.env.UPDATE_GOLDEN === "1";

/** plugin-runtime-text.ts for a runtime source: the source as one template literal, escaped. */
export function runtimeTextModule(source: string): string {
  const escaped = source.replace(/\\/g, "\\\\").replace(/`/g, "\\`").replace(/\$\{/g, "\\${");
  return `// Generated from plugin-runtime.js; do not edit. Regenerate with:
//   UPDATE_GOLDEN=1 npx vitest run test/agents/opencode/plugin-runtime.test.ts

/** The source of plugin-runtime.js, which renderOpenCodePlugin fills in with the hooks. */
export const PLUGIN_RUNTIME = \`${escaped}\`;
`;
}

export const readRuntime = () => readFileSync(RUNTIME_JS, "utf8");

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
