/** Claude's .claude.json/.mcp.json servers and settings.json hooks read back (kanon import). */
import { readHookGroups } from "../../core/hooks/groups.js";
import { readMcpShape } from "../../core/import/mcp-entry.js";
import type { Agent } from "../../model/manifest.js";
import { claudeManifest } from "./manifest.js";

export const claudeImport: Pick<Agent, "readMcpServer" | "readHooks"> = {
  readMcpServer(name, entry) {
    const read = readMcpShape("claude", name, entry, { headerRefsAreEnv: true });
    // The type kanon would write anyway is not worth a line in kanon.yaml.
    const s = read.server;
    if (s && s.type === (s.url ? "http" : "stdio")) delete s.type;
    return read;
  },
  readHooks: (text, path) => readHookGroups(claudeManifest, text, { label: "settings", path }),
};
