/** OpenCode's hooks read back from kanon's own kanon-hooks.js (kanon import). */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { type ParseError, parse } from "jsonc-parser";
import { isPlainObject, isStringList } from "../../formats/values.js";
import type { AgentImport, HookRead, NativeHook } from "../../model/manifest.js";
import { opencodeHooks } from "./hooks.js";
import { BEGIN, HEADER } from "./plugin.js";

/**
 * The hook table of a kanon-hooks.js that kanon generated (import), or null when the text is not
 * kanon's plugin. The table is JSON data (one entry a line, trailing commas), never code.
 */
function readOpenCodePlugin(text: string): unknown[] | null {
  if (!text.startsWith(HEADER.slice(0, HEADER.indexOf("\n")))) return null;
  const start = text.indexOf(`${BEGIN}const HOOKS = `);
  const end = text.indexOf(";\nconst TOOL_NAMES", start);
  if (start < 0 || end < 0) return null;
  const errors: ParseError[] = [];
  const table: unknown = parse(text.slice(start + BEGIN.length + "const HOOKS = ".length, end), errors, {
    allowTrailingComma: true,
    disallowComments: true,
  });
  return errors.length === 0 && Array.isArray(table) ? table : null;
}

function readHooks(text: string): HookRead {
  const out: HookRead = { hooks: [], named: true, order: "file", warnings: [] };
  const table = readOpenCodePlugin(text);
  if (table === null) throw new Error("not a kanon-hooks.js that kanon generated");
  table.forEach((entry, i) => {
    const h = pluginEntry(entry);
    if (typeof h === "string") out.warnings.push(`left opencode plugin hook ${i + 1} raw because ${h}`);
    else out.hooks.push(h);
  });
  return out;
}

/** One HOOKS table entry as the hook the plugin runs, or why it is not one. */
function pluginEntry(e: unknown): NativeHook | string {
  if (!isPlainObject(e)) return "it is not an object";
  const { name, event, matcher, command, args, timeout } = e;
  if (typeof name !== "string" || name === "") return "it has no name";
  if (typeof event !== "string" || !Object.hasOwn(opencodeHooks.events, event))
    return `event ${JSON.stringify(event)} is not an OpenCode hook event`;
  if (typeof command !== "string") return "command is not a string";
  if (args !== undefined && !isStringList(args)) return "args is not a list of strings";
  if (timeout !== undefined && !(typeof timeout === "number" && timeout > 0))
    return "timeout is not a number";
  const h: NativeHook = {
    name,
    neutralEvent: event,
    event: opencodeHooks.events[event]!.native,
    matcher: { kind: "all" },
    type: "command",
    command,
    fields: {},
  };
  if (isPlainObject(matcher) && isStringList(matcher.names) && matcher.names.length > 0)
    h.matcher = { kind: "names", names: [...matcher.names] };
  else if (isPlainObject(matcher) && typeof matcher.regex === "string")
    h.matcher = { kind: "regex", source: matcher.regex };
  else if (matcher !== null && matcher !== undefined) return "matcher is not names or a regex";
  if (args) h.args = [...args];
  if (typeof timeout === "number") h.timeout = timeout;
  if (e.async === true) h.async = true;
  return h;
}

/**
 * The user's own plugins: OpenCode loads every `.js` and `.ts` file in `plugin/` and `plugins/` (both
 * spellings) beside kanon's; they are code, not hook data, so import names them and leaves them.
 */
function unreadableHookFiles(hookPath: string): string[] {
  const config = dirname(dirname(hookPath));
  return ["plugin", "plugins"].flatMap((folder) => {
    const dir = join(config, folder);
    try {
      return readdirSync(dir)
        .filter((f) => /\.(m?js|ts)$/.test(f) && join(dir, f) !== hookPath)
        .sort()
        .map((f) => join(dir, f));
    } catch {
      return [];
    }
  });
}

export const opencodeImport: Pick<AgentImport, "readHooks" | "unreadableHookFiles"> = {
  readHooks,
  unreadableHookFiles,
};
