// Claude Code: Anthropic Messages over SSE, hooks in settings.json (user and project).

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claudeManifest } from "../../src/agents/claude/manifest.js";
import { installAgent, isMusl, platformKey } from "../lib/install.js";
import { defineDriver } from "./define.js";
import type { FieldRule, LifecycleEvent, PayloadContext } from "./types.js";

const VERSION = claudeManifest.hooks.verified.version;

function nativePackage(): string {
  return `@anthropic-ai/claude-code-${platformKey()}${isMusl() ? "-musl" : ""}`;
}

export const claude = defineDriver({
  manifest: claudeManifest,
  pkg: "@anthropic-ai/claude-code",
  protocol: "anthropic",
  shellToolName: "Bash",
  timeoutMs: 90_000,

  install(ctx) {
    // --ignore-scripts leaves bin/claude.exe a stub (its postinstall would copy the native binary over it),
    // so the suite runs the platform package's binary directly.
    const native = nativePackage();
    return installAgent(ctx, {
      id: "claude",
      version: VERSION,
      packages: [`@anthropic-ai/claude-code@${VERSION}`, `${native}@${VERSION}`],
      argv: (dir) => [
        join(
          dir,
          "node_modules",
          ...native.split("/"),
          process.platform === "win32" ? "claude.exe" : "claude",
        ),
      ],
    });
  },

  async prepare() {
    // The endpoint is configured through the environment (see invocation); no file is needed.
  },

  invocation(installed, _layout, modelUrl, prompt) {
    return {
      // --allowedTools is variadic: the prompt goes after `--`. Never --bare/--safe-mode: they skip hooks.
      argv: [
        ...installed.argv,
        "-p",
        "--model",
        "fake-model",
        "--output-format",
        "text",
        "--allowedTools",
        "Bash",
        "--",
        prompt,
      ],
      env: {
        ANTHROPIC_BASE_URL: modelUrl,
        ANTHROPIC_API_KEY: "sk-ant-kanon-conformance",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
      },
    };
  },

  // Agents run in the background unless the call says otherwise; the result must come back in this turn.
  subagentCalls: (name, task) => [
    {
      name: "Agent",
      args: { subagent_type: name, description: "kanon conformance", prompt: task, run_in_background: false },
    },
  ],

  async mcpSetup(layout, _scope, servers) {
    // The user's approval of the project's .mcp.json servers, and of their tools in -p mode.
    const dir = join(layout.home, ".claude");
    mkdirSync(dir, { recursive: true });
    const settings = {
      enableAllProjectMcpServers: true,
      permissions: { allow: servers.map((s) => `mcp__${s}`) },
    };
    writeFileSync(join(dir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
    // MCP tools up front (no ToolSearch round-trip): the fake model calls them by name.
    return { ENABLE_TOOL_SEARCH: "false" };
  },

  payload(event: LifecycleEvent, ctx: PayloadContext) {
    const common: Record<string, FieldRule> = {
      hook_event_name: { equals: event },
      session_id: "string",
      transcript_path: "string",
      cwd: "project",
    };
    switch (event) {
      case "SessionStart":
        return { ...common, source: { equals: "startup" } };
      case "UserPromptSubmit":
        return { ...common, prompt: { equals: ctx.prompt } };
      case "PreToolUse":
        return {
          ...common,
          tool_name: { equals: "Bash" },
          "tool_input.command": { equals: ctx.command },
          tool_use_id: "string",
        };
      case "PostToolUse":
        return {
          ...common,
          tool_name: { equals: "Bash" },
          "tool_input.command": { equals: ctx.command },
          tool_use_id: "string",
          tool_response: "present",
        };
      case "Stop":
        return { ...common, stop_hook_active: { equals: false } };
    }
  },
});
