/** OpenCode: instructions, skills and MCP as OpenCode 1 reads them (OpenCode 2 reads the same V1 shapes). */
import type { AgentManifest } from "../../model/manifest.js";
import { opencodeHooks } from "./hooks.js";

export const opencodeManifest: AgentManifest = {
  id: "opencode",
  displayName: "OpenCode",
  instructions: { user: ".config/opencode/AGENTS.md", project: "AGENTS.md" },
  skills: { root: { user: ".config/opencode/skills", project: ".opencode/skills" }, providerNaming: "slug" },
  mcp: {
    file: { user: ".config/opencode/opencode.json", project: "opencode.json" },
    alternatives: [{ user: ".config/opencode/opencode.jsonc", project: "opencode.jsonc" }],
    format: "jsonc",
    key: "mcp",
  },
  hooks: opencodeHooks,
};
