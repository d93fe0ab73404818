/** Gemini CLI settings.json read back (kanon import): kanon's hook groups beside the `mcpServers` entries. */
import { readHookGroups } from "../../core/hooks/groups.js";
import type { AgentImport } from "../../model/manifest.js";
import { GEMINI_HOOK_PREFIX, geminiManifest } from "./manifest.js";

export const geminiImport: Pick<AgentImport, "readOtherMcpKey" | "readHooks"> = {
  // settings.json holds the hooks too: they are read by readHooks, not skipped.
  readOtherMcpKey: (key) => (key === "hooks" ? [] : null),
  readHooks: (text, path) =>
    readHookGroups(geminiManifest, text, {
      label: "settings",
      path,
      namePrefix: GEMINI_HOOK_PREFIX,
      sharedWithMcp: true,
    }),
};
