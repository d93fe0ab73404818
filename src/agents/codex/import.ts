/** Codex config.toml and hooks.json read back into the neutral form (kanon import). */
import { readHookGroups } from "../../core/hooks/groups.js";
import { readMcpShape } from "../../core/import/mcp-entry.js";
import { isPlainObject } from "../../formats/values.js";
import type { Agent } from "../../model/manifest.js";
import { codexManifest } from "./manifest.js";

export const codexImport: Pick<Agent, "readMcpServer" | "readOtherMcpKey" | "readHooks"> = {
  readMcpServer: (name, entry) => readMcpShape("codex", name, entry, { headerRefsAreEnv: false }),
  readOtherMcpKey(key, value) {
    if (key !== "profiles" || !isPlainObject(value)) return null;
    return Object.keys(value).map((p) => `skipped unsupported codex profiles field ${JSON.stringify(p)}`);
  },
  readHooks: (text, path) => readHookGroups(codexManifest, text, { label: "hooks", path }),
};
