/** Gemini CLI settings.json read back (kanon import): `mcpServers` entries and kanon's hook groups. */
import { readHookGroups } from "../../core/hooks/groups.js";
import {
  finishMcpRead,
  isStringList,
  isStringMap,
  leftRaw,
  readHeaderRefs,
  secondsFromMs,
  skippedField,
} from "../../core/import/mcp-entry.js";
import { isPlainObject } from "../../formats/values.js";
import type { McpServer } from "../../model/config.js";
import type { Agent, McpRead } from "../../model/manifest.js";
import { geminiManifest } from "./manifest.js";

/** Handler names kanon writes start with this: how kanon tells its hook groups from the user's. */
export const GEMINI_HOOK_PREFIX = "kanon:";

function readMcpServer(name: string, entry: unknown): McpRead {
  const agent = "gemini";
  const warnings: string[] = [];
  if (!isPlainObject(entry)) return { server: null, warnings: [leftRaw(agent, name, "it is not an object")] };
  const s: McpServer = {};
  const wrong = (key: string, kind: string) =>
    warnings.push(skippedField(agent, name, key, ` because it is not ${kind}`));
  for (const [key, v] of Object.entries(entry)) {
    switch (key) {
      case "command":
      case "url":
        if (typeof v === "string") s[key] = v;
        else wrong(key, "a string");
        break;
      case "type":
        // http is what kanon writes for every url; only sse needs saying.
        if (v === "sse") s.type = "sse";
        else if (v !== "http") wrong(key, '"http" or "sse"');
        break;
      case "args":
        if (isStringList(v)) s.args = [...v];
        else wrong(key, "a list of strings");
        break;
      case "includeTools":
      case "excludeTools":
        if (isStringList(v)) s[key === "includeTools" ? "enabled_tools" : "disabled_tools"] = [...v];
        else wrong(key, "a list of strings");
        break;
      case "env":
        if (isStringMap(v)) s.env = { ...v };
        else wrong(key, "a map of strings");
        break;
      case "headers":
        if (isStringMap(v)) Object.assign(s, readHeaderRefs(v, true));
        else wrong(key, "a map of strings");
        break;
      case "timeout": {
        // The MCP request timeout, in milliseconds.
        const sec = secondsFromMs(v);
        if (sec !== null) s.tool_timeout_sec = sec;
        else wrong(key, "a whole number of seconds in milliseconds");
        break;
      }
      default:
        warnings.push(skippedField(agent, name, key));
    }
  }
  return finishMcpRead(agent, name, s, warnings);
}

export const geminiImport: Pick<Agent, "readMcpServer" | "readOtherMcpKey" | "readHooks"> = {
  readMcpServer,
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
