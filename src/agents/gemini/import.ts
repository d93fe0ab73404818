/** Gemini CLI settings.json read back (kanon import): kanon's hook groups beside the `mcpServers` entries. */
import { readHookGroups } from "../../core/hooks/groups.js";
import type { Agent } from "../../model/manifest.js";
import { geminiManifest } from "./manifest.js";

/** Handler names kanon writes start with this: how kanon tells its hook groups from the user's. */
export const GEMINI_HOOK_PREFIX = "kanon:";

export const geminiImport: Pick<Agent, "readOtherMcpKey" | "readHooks"> = {
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
