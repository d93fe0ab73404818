// Gemini CLI: Gemini API over SSE, hooks in settings.json (user ~/.gemini/ and project .gemini/), which
// kanon shares with the endpoint settings the driver writes there first.

import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { geminiManifest } from "../../src/agents/gemini/manifest.js";
import { installAgent } from "../lib/install.js";
import { defineDriver } from "./define.js";
import type { FieldRule, LifecycleEvent, PayloadContext } from "./types.js";

const VERSION = geminiManifest.hooks.verified.version;

export const gemini = defineDriver({
  manifest: geminiManifest,
  pkg: "@google/gemini-cli",
  protocol: "gemini",
  shellToolName: "run_shell_command",
  timeoutMs: 120_000,
  // Gemini expands ${VAR} in settings strings when it loads them: kanon splits each `$NAME`/`${` of a
  // command with a line continuation (`$\<newline>NAME`) that bash removes again.
  nativeCommand: (command) => command.replace(/\$([\w{])/g, "$\\\n$1"),

  install(ctx) {
    // One package with a self-contained bundle; Node 20 runs it.
    return installAgent(ctx, {
      id: "gemini",
      version: VERSION,
      packages: [`@google/gemini-cli@${VERSION}`],
      argv: (dir) => [
        process.execPath,
        join(dir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js"),
      ],
    });
  },

  async prepare(layout) {
    // API-key auth with the endpoint from GOOGLE_GEMINI_BASE_URL; no updates, no telemetry. kanon then
    // merges its hooks (and MCP servers) into this same file in user scope.
    const dir = join(layout.home, ".gemini");
    mkdirSync(dir, { recursive: true });
    const settings = {
      security: { auth: { selectedType: "gemini-api-key" } },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    };
    writeFileSync(join(dir, "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
  },

  invocation(installed, _layout, modelUrl, prompt) {
    return {
      argv: [...installed.argv, "-p", prompt, "-m", "gemini-2.5-flash", "--approval-mode", "yolo"],
      env: {
        GEMINI_API_KEY: "kanon-conformance",
        GOOGLE_GEMINI_BASE_URL: modelUrl,
        // Folder trust gates every settings.json hook; trusting the project is the user's decision,
        // which `kanon status` reports as a gate (see the gemini-trust check).
        GEMINI_CLI_TRUST_WORKSPACE: "true",
      },
    };
  },

  payload(event: LifecycleEvent, ctx: PayloadContext) {
    // Gemini's events for the neutral ones (docs/agents.md): BeforeAgent, BeforeTool, AfterTool, AfterAgent.
    const common = (native: string): Record<string, FieldRule> => ({
      hook_event_name: { equals: native },
      session_id: "string",
      transcript_path: "present",
      cwd: "project",
      timestamp: "string",
    });
    const tool: Record<string, FieldRule> = {
      tool_name: { equals: "run_shell_command" },
      "tool_input.command": { equals: ctx.command },
    };
    switch (event) {
      case "SessionStart":
        return { ...common("SessionStart"), source: { equals: "startup" } };
      case "UserPromptSubmit":
        return { ...common("BeforeAgent"), prompt: { equals: ctx.prompt } };
      case "PreToolUse":
        return { ...common("BeforeTool"), ...tool };
      case "PostToolUse":
        return { ...common("AfterTool"), ...tool, tool_response: "present" };
      case "Stop":
        return {
          ...common("AfterAgent"),
          prompt: { equals: ctx.prompt },
          stop_hook_active: { equals: false },
        };
    }
  },

  // The subagent tool takes the name; the subagent ends its turn only by calling its own complete_task.
  subagentCalls: (name, task) => [
    { name: "invoke_agent", args: { agent_name: name, prompt: task } },
    { name: "complete_task", args: { result: "done" } },
  ],

  async subagentSetup(layout, scope, subagents) {
    // Project subagents run only once the user acknowledged each file (its SHA-256) in the interactive
    // CLI; the pinned Gemini keeps that in ~/.gemini/acknowledgments/agents.json (bundle read:
    // AcknowledgedAgentsService). The suite makes the user's decision, as it trusts the folder.
    if (scope !== "project") return;
    const acknowledged = Object.fromEntries(
      subagents.map((s) => [s.name, createHash("sha256").update(readFileSync(s.file)).digest("hex")]),
    );
    const dir = join(layout.home, ".gemini", "acknowledgments");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "agents.json"),
      `${JSON.stringify({ [layout.project]: acknowledged }, null, 2)}\n`,
    );
  },

  async extraChecks(ctx) {
    // Project hooks run only in a trusted folder: without the trust variable, kanon status must say so.
    if (ctx.scope !== "project") return [];
    const status = await ctx.kanon(["status"]);
    const held =
      status.stdout.includes("Gemini CLI will skip") && status.stdout.includes("folder not trusted yet");
    return [
      {
        id: "review",
        ok: status.code === 0 && held,
        detail: held
          ? "kanon status names the project hooks that folder trust holds back"
          : `kanon status did not report folder trust: exit ${status.code}\n${status.stdout}${status.stderr}`,
      },
    ];
  },
});
