// OpenCode 1: OpenAI Chat Completions over SSE, hooks through one generated plugin file
// (~/.config/opencode/plugins/ and <project>/.opencode/plugins/).

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { opencodeManifest } from "../../src/agents/opencode/manifest.js";
import { installAgent, isMusl, platformKey } from "../lib/install.js";
import { defineDriver } from "./define.js";
import type { FieldRule, LifecycleEvent, PayloadContext } from "./types.js";

const VERSION = opencodeManifest.hooks.verified.version;
const ENV = {
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  OPENCODE_DISABLE_SHARE: "1",
  OPENCODE_DISABLE_CLAUDE_CODE: "1",
};
const RUN = ["run", "--print-logs", "--log-level", "INFO", "--model", "fake/fake-model"];

function nativePackage(): string {
  const platform = platformKey().replace(/^win32-/, "windows-");
  return `opencode-${platform}${isMusl() ? "-musl" : ""}`;
}

export const opencode = defineDriver({
  manifest: opencodeManifest,
  pkg: "opencode-ai",
  protocol: "chat",
  // kanon passes OpenCode's own tool id through as is: `bash` on OpenCode 1.
  shellToolName: "bash",
  timeoutMs: 120_000,

  install(ctx) {
    // bin/opencode.exe is a stub that its postinstall replaces; run the platform package's binary.
    const native = nativePackage();
    return installAgent(ctx, {
      id: "opencode",
      version: VERSION,
      packages: [`opencode-ai@${VERSION}`, `${native}@${VERSION}`],
      argv: (dir) => [
        join(dir, "node_modules", native, "bin", process.platform === "win32" ? "opencode.exe" : "opencode"),
      ],
    });
  },

  async prepare(layout, modelUrl) {
    // The provider is global config; kanon only merges its own keys into this file.
    const dir = join(layout.xdgConfig, "opencode");
    mkdirSync(dir, { recursive: true });
    const config = {
      autoupdate: false,
      share: "disabled",
      model: "fake/fake-model",
      small_model: "fake/fake-model",
      permission: { bash: "allow", edit: "allow", read: "allow" },
      provider: {
        fake: {
          npm: "@ai-sdk/openai-compatible",
          name: "kanon conformance fake model",
          options: { baseURL: `${modelUrl}/v1`, apiKey: "kanon-conformance" },
          models: {
            "fake-model": { name: "Fake model", tool_call: true, limit: { context: 128000, output: 4096 } },
          },
        },
      },
    };
    writeFileSync(join(dir, "opencode.json"), `${JSON.stringify(config, null, 2)}\n`);
  },

  invocation(installed, _layout, _modelUrl, prompt) {
    return {
      // The prompt goes on stdin: as an argument, OpenCode 1 sends it wrapped in literal quotes.
      argv: [...installed.argv, ...RUN],
      stdin: prompt,
      env: ENV,
    };
  },

  // A slash command is not read from the prompt: `run --command <name>` with the arguments as the message
  // (OpenCode quotes a word that holds a space, so the suite passes single words).
  commandInvocation(installed, _layout, _modelUrl, name, args) {
    return { argv: [...installed.argv, ...RUN, "--command", name, ...args], env: ENV };
  },

  subagentCalls: (name, task) => [
    { name: "task", args: { subagent_type: name, description: "kanon conformance", prompt: task } },
  ],

  payload(event: LifecycleEvent, ctx: PayloadContext) {
    // What docs/agents.md promises for OpenCode (Runtime notes): hook_event_name, session_id and cwd;
    // tool events add tool_name (OpenCode's own tool id: bash on OpenCode 1), tool_input (its
    // arguments, as is) and tool_use_id; PostToolUse adds tool_response, UserPromptSubmit prompt,
    // SessionStart source.
    const common: Record<string, FieldRule> = {
      hook_event_name: { equals: event },
      session_id: "string",
      cwd: "project",
    };
    const tool: Record<string, FieldRule> = {
      tool_name: { equals: "bash" },
      "tool_input.command": { equals: ctx.command },
      tool_use_id: "string",
    };
    switch (event) {
      case "SessionStart":
        return { ...common, source: { equals: "startup" } };
      case "UserPromptSubmit":
        return { ...common, prompt: { equals: ctx.prompt } };
      case "PreToolUse":
        return { ...common, ...tool };
      case "PostToolUse":
        return { ...common, ...tool, tool_response: "present" };
      case "Stop":
        return common;
    }
  },
});
