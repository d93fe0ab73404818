// Codex CLI: OpenAI Responses over SSE, hooks in hooks.json (user ~/.codex and trusted project .codex).
//
// Codex runs a user or project hook only once the user has reviewed and trusted it; kanon must not write
// trust entries. The suite runs Codex the way its documentation allows for automation,
// `--dangerously-bypass-hook-trust`, and the `review` check proves that kanon status reports the same hooks
// as awaiting review and that Codex itself sees them as untrusted.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { codexManifest } from "../../src/agents/codex/manifest.js";
import { installAgent } from "../lib/install.js";
import { reviewChecks } from "./codex-review.js";
import { defineDriver } from "./define.js";
import type { FieldRule, LifecycleEvent, PayloadContext } from "./types.js";

const VERSION = codexManifest.hooks.verified.version;

const NATIVE_SUFFIX: Record<string, string> = {
  "linux-x64": "linux-x64",
  "linux-arm64": "linux-arm64",
  "darwin-x64": "darwin-x64",
  "darwin-arm64": "darwin-arm64",
  "win32-x64": "win32-x64",
  "win32-arm64": "win32-arm64",
};

export const codex = defineDriver({
  manifest: codexManifest,
  pkg: "@openai/codex",
  protocol: "responses",
  shellToolName: "Bash",
  timeoutMs: 90_000,

  install(ctx) {
    // The npm launcher (bin/codex.js) finds the native binary in the aliased platform package.
    const suffix =
      NATIVE_SUFFIX[`${process.platform}-${process.arch}`] ?? `${process.platform}-${process.arch}`;
    return installAgent(ctx, {
      id: "codex",
      version: VERSION,
      packages: [
        `@openai/codex@${VERSION}`,
        `@openai/codex-${suffix}@npm:@openai/codex@${VERSION}-${suffix}`,
      ],
      argv: (dir) => [process.execPath, join(dir, "node_modules", "@openai", "codex", "bin", "codex.js")],
    });
  },

  async prepare(layout, modelUrl, scope) {
    const lines = [
      'model = "fake-model"',
      'model_provider = "kanon_fake"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      "check_for_update_on_startup = false",
      "",
      "# Hermetic: with these on, Codex also reaches out to other hosts.",
      "[features]",
      "plugins = false",
      "remote_plugin = false",
      "apps = false",
      "",
      "[analytics]",
      "enabled = false",
      "",
      "[model_providers.kanon_fake]",
      'name = "kanon conformance fake model"',
      `base_url = ${JSON.stringify(`${modelUrl}/v1`)}`,
      'wire_api = "responses"',
      'env_key = "KANON_FAKE_MODEL_KEY"',
      "request_max_retries = 0",
      "stream_max_retries = 0",
      "",
    ];
    if (scope === "project") {
      // Project hooks need a trusted project. That is the user's (here: the suite's) decision, not kanon's.
      lines.push(`[projects.${JSON.stringify(layout.project)}]`, 'trust_level = "trusted"', "");
    }
    const dir = join(layout.home, ".codex");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "config.toml"), lines.join("\n"));
  },

  invocation(installed, layout, _modelUrl, prompt) {
    return {
      argv: [
        ...installed.argv,
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--dangerously-bypass-hook-trust",
        "--color",
        "never",
        prompt,
      ],
      env: { CODEX_HOME: join(layout.home, ".codex"), KANON_FAKE_MODEL_KEY: "kanon-conformance" },
    };
  },

  payload(event: LifecycleEvent, ctx: PayloadContext) {
    const common: Record<string, FieldRule> = {
      hook_event_name: { equals: event },
      session_id: "string",
      transcript_path: "present",
      cwd: "project",
      model: { equals: "fake-model" },
    };
    const tool: Record<string, FieldRule> = {
      turn_id: "string",
      tool_name: { equals: "Bash" },
      "tool_input.command": { equals: ctx.command },
      tool_use_id: "string",
    };
    switch (event) {
      case "SessionStart":
        return { ...common, source: { equals: "startup" } };
      case "UserPromptSubmit":
        return { ...common, turn_id: "string", prompt: { equals: ctx.prompt } };
      case "PreToolUse":
        return { ...common, ...tool };
      case "PostToolUse":
        return { ...common, ...tool, tool_response: "present" };
      case "Stop":
        return { ...common, turn_id: "string", stop_hook_active: { equals: false } };
    }
  },

  extraChecks: reviewChecks,

  // Subagents are roles that the namespaced tool multi_agent_v1.spawn_agent starts in the background:
  // `codex exec` ends with the main turn, so the main agent's final answer waits for the subagent.
  subagentCalls: (name, task) => [
    { name: "multi_agent_v1__spawn_agent", args: { agent_type: name, message: task } },
  ],
  subagentDelayMs: 2000,

  // The MCP phase runs without the approval bypass: config.toml's approval_policy = "never" still
  // lets a tool run unasked, unless kanon's approval settings for it say otherwise.
  mcpArgv: (argv) => [
    ...argv.slice(0, argv.indexOf("exec") + 1),
    "-c",
    'approval_policy="on-request"',
    ...argv.slice(argv.indexOf("exec") + 1).filter((a) => a !== "--dangerously-bypass-approvals-and-sandbox"),
  ],
});
