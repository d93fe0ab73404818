/** OpenCode's opencode.json(c) servers and kanon's own kanon-hooks.js read back (kanon import). */
import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import {
  finishMcpRead,
  isStringList,
  isStringMap,
  leftRaw,
  skippedField,
} from "../../core/import/mcp-entry.js";
import { isPlainObject } from "../../formats/values.js";
import type { McpServer } from "../../model/config.js";
import type { Agent, HookRead, NativeHook } from "../../model/manifest.js";
import { opencodeHooks } from "./hooks.js";
import { readOpenCodePlugin } from "./plugin.js";

/** `{env:NAME}` → `${NAME}` (the inverse of the render's conversion). */
const fromOpenCodeEnv = (v: string) => v.replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, "$${$1}");
const WHOLE_ENV = /^\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;
const BEARER_ENV = /^Bearer \{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

function readMcpServer(name: string, entry: unknown): ReturnType<NonNullable<Agent["readMcpServer"]>> {
  const agent = "opencode";
  const warnings: string[] = [];
  if (!isPlainObject(entry)) return { server: null, warnings: [leftRaw(agent, name, "it is not an object")] };
  const s: McpServer = {};
  const wrong = (key: string, kind: string) =>
    warnings.push(skippedField(agent, name, key, ` because it is not ${kind}`));
  for (const [key, v] of Object.entries(entry)) {
    switch (key) {
      case "type":
        // local/remote follow from command/url; kanon writes them itself.
        if (v !== "local" && v !== "remote") wrong(key, '"local" or "remote"');
        break;
      case "command":
        if (typeof v === "string") s.command = v;
        else if (isStringList(v) && v.length > 0) {
          s.command = v[0]!;
          if (v.length > 1) s.args = v.slice(1);
        } else wrong(key, "a command list");
        break;
      case "environment":
      case "env":
        if (isStringMap(v))
          s.env = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromOpenCodeEnv(x)]));
        else wrong(key, "a map of strings");
        break;
      case "url":
        if (typeof v === "string") s.url = v;
        else wrong(key, "a string");
        break;
      case "headers":
        if (!isStringMap(v)) {
          wrong(key, "a map of strings");
          break;
        }
        for (const [header, value] of Object.entries(v)) {
          const bearer = header.toLowerCase() === "authorization" ? BEARER_ENV.exec(value) : null;
          const whole = WHOLE_ENV.exec(value);
          if (bearer) s.bearer_token_env_var = bearer[1]!;
          else if (whole) s.env_headers = { ...s.env_headers, [header]: whole[1]! };
          else s.headers = { ...s.headers, [header]: fromOpenCodeEnv(value) };
        }
        break;
      case "timeout":
        if (typeof v === "number" && v >= 0) s.startup_timeout_sec = Math.ceil(v / 1000);
        else wrong(key, "a number of milliseconds");
        break;
      case "enabled":
        if (typeof v === "boolean") s.opencode_enabled = v;
        else wrong(key, "true or false");
        break;
      default:
        warnings.push(skippedField(agent, name, key));
    }
  }
  return finishMcpRead(agent, name, s, warnings);
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

/** Other plugins in the plugins folder: OpenCode runs them, but they are code, not hook data. */
function unreadableHookFiles(hookPath: string): string[] {
  const dir = dirname(hookPath);
  try {
    return readdirSync(dir)
      .filter((f) => /\.(m?js|ts)$/.test(f) && f !== basename(hookPath))
      .sort()
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
}

export const opencodeImport: Pick<Agent, "readMcpServer" | "readHooks" | "unreadableHookFiles"> = {
  readMcpServer,
  readHooks,
  unreadableHookFiles,
};
