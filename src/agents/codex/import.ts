/** Codex config.toml and hooks.json read back into the neutral form (kanon import): what the manifest cannot say. */
import { readHookGroups } from "../../core/hooks/groups.js";
import { isPlainObject } from "../../formats/values.js";
import type { AgentImport } from "../../model/manifest.js";
import { codexManifest } from "./manifest.js";

export const codexImport: Pick<AgentImport, "readOtherMcpKey" | "readHooks"> = {
  readOtherMcpKey(key, value) {
    if (key !== "profiles" || !isPlainObject(value)) return null;
    return Object.keys(value).map((p) => `skipped unsupported codex profiles field ${JSON.stringify(p)}`);
  },
  readHooks: (text, path) => readHookGroups(codexManifest, text, { label: "hooks", path }),
};
