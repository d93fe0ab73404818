/** OpenCode: instructions, skills and MCP as OpenCode 1 reads them (OpenCode 2 reads the same V1 shapes). */
import type { AgentManifest } from "../../model/manifest.js";
import { opencodeHooks } from "./hooks.js";

export const opencodeManifest: AgentManifest = {
  id: "opencode",
  displayName: "OpenCode",
  defaultOn: true,
  instructions: { user: ".config/opencode/AGENTS.md", project: "AGENTS.md" },
  skills: { root: { user: ".config/opencode/skills", project: ".opencode/skills" }, providerNaming: "slug" },
  mcp: {
    file: { user: ".config/opencode/opencode.json", project: "opencode.json" },
    alternatives: [{ user: ".config/opencode/opencode.jsonc", project: "opencode.jsonc" }],
    format: "jsonc",
    key: "mcp",
  },
  import: {
    // OpenCode also reads Claude's instructions and skills and the shared .agents/skills.
    instructionFallbacks: [{ user: ".claude/CLAUDE.md", project: "CLAUDE.md" }],
    skillRoots: [
      { user: ".claude/skills", project: ".claude/skills" },
      { user: ".agents/skills", project: ".agents/skills" },
    ],
    mcpFile: { label: "config", secretPath: "config" },
    mcpEntry: {
      envRef: "{env:NAME}",
      fields: {
        // local/remote follow from command/url; kanon writes them itself.
        type: { kind: "transport", values: { local: null, remote: null } },
        command: { kind: "command list" },
        environment: { kind: "env" },
        env: { kind: "env" },
        url: { kind: "string", to: "url" },
        headers: { kind: "headers", envRefs: true, bearer: "any case" },
        timeout: { kind: "milliseconds", to: "startup_timeout_sec", round: "up" },
        // OpenCode's own switch, never the neutral `enabled`.
        enabled: { kind: "boolean", to: "opencode_enabled" },
      },
    },
    hookFile: { label: "plugin", secretPath: "plugin" },
  },
  hooks: opencodeHooks,
};
