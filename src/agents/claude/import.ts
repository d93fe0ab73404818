/** Claude's settings.json hooks read back (kanon import); its MCP entries are read by its manifest's table. */
import { readHookGroups } from "../../core/hooks/groups.js";
import type { AgentImport } from "../../model/manifest.js";
import { claudeManifest } from "./manifest.js";

export const claudeImport: Pick<AgentImport, "readHooks"> = {
  readHooks: (text, path) => readHookGroups(claudeManifest, text, { label: "settings", path }),
};
