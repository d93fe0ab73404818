/**
 * Codex hook trust: which rendered Codex hooks will Codex run, and which will it skip until the user
 * reviews them in `/hooks`? kanon only reads trust state here. It never writes `[hooks.state]`.
 *
 * Verified against Codex CLI 0.171.0 (npm `@openai/codex@0.171.0`, binary `codex-cli 0.171.0`).
 *
 * ## Hook id (the key of `[hooks.state."<id>"]`)
 *
 *   `<hooks.json path>:<event label>:<group index>:<handler index>`
 *
 * - The path is the absolute hooks.json path as Codex reaches it: `$CODEX_HOME/hooks.json` for user
 *   scope, `<dir>/.codex/hooks.json` for project scope. Codex does not resolve symlinks, so a
 *   checkout opened through a symlink gets other ids.
 * - The event label is snake_case: `pre_tool_use`, `permission_request`, `post_tool_use`,
 *   `pre_compact`, `post_compact`, `session_start`, `session_end`, `user_prompt_submit`,
 *   `subagent_start`, `subagent_stop`, `stop`, `pre_model_request`, `post_model_request`,
 *   `interrupt`.
 * - Both indices are 0-based positions in the file. Groups Codex drops (an invalid matcher) and
 *   handlers it skips (empty command, `prompt`/`agent`) still use up their index.
 * - Limitation: Codex drops a group whose matcher is neither match-all, nor a plain `A|B` list, nor
 *   a valid Rust regex. This module does not check regex syntax, so it still reports the handlers of
 *   such a group. Codex lists them nowhere.
 * - The matcher is not part of the id. So editing a hook keeps its id but changes its hash, and
 *   moving or reordering hooks changes their ids.
 *
 * ## Trusted hash
 *
 * The value is `sha256:` + the lowercase hex SHA-256 of the UTF-8 bytes of compact JSON, with the
 * object keys of every level sorted by their UTF-8 bytes. The JSON is the handler's normalised
 * identity:
 *
 *   {"event_name": <label>, "matcher": <m>, "hooks": [<handler>]}
 *
 * - `matcher` is left out when it is absent or null, and also for events that ignore matchers:
 *   UserPromptSubmit, Stop, PreModelRequest, PostModelRequest and Interrupt. Otherwise it is kept
 *   verbatim (`""` and `"*"` included).
 * - A command handler is
 *   `{"type":"command","command":…,"timeout":T,"async":bool,"statusMessage"?,"additionalContextLimit"?}`.
 *   - T is the effective timeout: `timeout`, default 600, at least 1. For SessionEnd and Interrupt
 *     the default is 1 and T is clamped to 1..3. `timeoutSec` is not an alias in 0.171.0: Codex
 *     ignores it like any unknown field (and runs with the default).
 *   - `async` is the configured flag (default false), even for SessionEnd, which runs it synchronously.
 *   - `statusMessage` is included when set, even if it is `""`.
 *   - `additionalContextLimit` is included only for PreToolUse, PostToolUse, SessionStart,
 *     UserPromptSubmit and SubagentStart, and only when it is not 2500 (Codex's default).
 *   - `commandWindows` (alias `command_windows`) is never hashed. On Windows it replaces `command`
 *     (this follows the Codex source and was not verified on Windows).
 * - An MCP handler is `{"type":"mcp_tool","server","tool","input":{…} (default {}),"timeout":T,"statusMessage"?}`.
 *   - Every number inside `input` is hashed as `{"$serde_json::private::Number":"<literal>"}`,
 *     because Codex uses serde_json's `arbitrary_precision` (see trust-json.ts).
 *   - A `null` in `input` makes Codex reject the whole file.
 * - Unknown group or handler fields and unknown events are ignored, and never hashed.
 *
 * ## Where trust is read from
 *
 * Codex reads `hooks.state` only from the user config, `$CODEX_HOME/config.toml` (default
 * `~/.codex/config.toml`). It also reads session `-c hooks.state=…` flags, which kanon cannot see.
 * This holds for project hooks too: a `[hooks.state]` in `<repo>/.codex/config.toml` is ignored.
 * Project hooks additionally need the project itself trusted (`[projects."<root>"]`); this module
 * does not check that.
 *
 * Each entry has `trusted_hash` (a string) and/or `enabled` (a bool). Other fields are ignored. Keys
 * are trimmed. A wrongly typed field makes Codex reject the whole config, and then no hook runs. This
 * module reports that case as `configError`.
 *
 * For each hook, Codex decides:
 * - `enabled = false`: the hook never runs.
 * - no `trusted_hash`: "untrusted" (here `new`).
 * - `trusted_hash` differs from the current hash: "modified" (here `changed`).
 * - equal hashes: "trusted".
 * Only enabled and trusted hooks run, unless `--dangerously-bypass-hook-trust` is given; that flag
 * still skips disabled hooks. The others are skipped silently (`codex exec`), or, in the TUI, listed
 * for review.
 *
 * ## How this was verified
 *
 * The rules above come from reading the openai/codex source: `hooks/src/engine/discovery.rs`
 * (`hook_hash`, `normalize_command_hook`), `hooks/src/lib.rs` (`hook_key`),
 * `hooks/src/config_rules.rs` (`hook_states_from_stack`) and `config/src/fingerprint.rs`
 * (`version_for_toml`). They were then checked against the real 0.171.0 binary:
 * - `codex app-server` → `hooks/list` returned `key`, `currentHash` and `trustStatus` for:
 *   - all 14 events;
 *   - matchers absent, null, `""`, `"*"`, `|` lists and regexes, plus ignored and invalid ones;
 *   - commands with quotes, backslashes, control characters, CJK and emoji;
 *   - timeouts absent, 0, large and clamped, plus a `timeoutSec`, which Codex ignored;
 *   - async, statusMessage (also `""`), additionalContextLimit (0, 2500, 2501, an ignored one),
 *     commandWindows;
 *   - MCP handlers with varied `input` numbers;
 *   - skipped handlers and groups;
 *   - user and project scope, including a symlinked checkout.
 *   This module reproduced every key and hash, except for the invalid-matcher group above.
 * - Real trust state came from the TUI, driven in tmux:
 *   - the startup "Hooks need review" prompt → "Trust all and continue";
 *   - `/hooks` to turn one hook off.
 *   Both wrote `config.toml`.
 * - Then hooks were edited, added and disabled, and `hooks/list`'s `trustStatus` was compared with
 *   this module's states.
 * The real files are in test/fixtures/codex-trust, with their paths replaced by placeholders.
 */

import { parse as parseToml } from "smol-toml";
import { isPlainObject } from "../../formats/values.js";
import { trimSpace } from "../../model/text.js";
import { ADDITIONAL_CONTEXT_LIMIT, codexManifest } from "./manifest.js";
import {
  type CanonObject,
  type CanonValue,
  canonicalJson,
  fromJsValue,
  isJsonObject,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  parseJsonText,
  SerdeNumber,
  serdeNumberLiteral,
  sha256Tagged,
} from "./trust-json.js";

const { events: EVENTS, timeouts } = codexManifest.hooks;

/** Codex's label of an event in hook ids and hashes: its name in snake_case (PreToolUse → pre_tool_use). */
const label = (name: string): string => name.replace(/(?<!^)[A-Z]/g, (c) => `_${c}`).toLowerCase();

/**
 * Codex's hook events, in the order Codex lists them (the manifest's order), with their label and
 * whether the event keeps its matcher (the manifest's matcher kind is not "none").
 */
const CODEX_HOOK_EVENTS = Object.values(EVENTS).map((e) => ({
  name: e.native,
  label: label(e.native),
  matcher: e.matcher !== "none",
  /** SessionEnd and Interrupt: the timeout is clamped to 1..maxTimeoutSec and defaults to 1 s. */
  maxTimeoutSec: e.maxTimeoutSec === undefined ? undefined : BigInt(e.maxTimeoutSec),
}));

type CodexHookEvent = string;

/**
 * Events whose handlers hash `additionalContextLimit` (Codex's normalize_command_hook). The manifest
 * lists SubagentStart's context as none, so this set is not derived from it.
 */
const ADDITIONAL_CONTEXT_EVENTS: ReadonlySet<CodexHookEvent> = new Set([
  "PreToolUse",
  "PostToolUse",
  "SessionStart",
  "UserPromptSubmit",
  "SubagentStart",
]);
const DEFAULT_TIMEOUT_SEC = BigInt(timeouts.defaultSec);
const SHORT_DEFAULT_TIMEOUT_SEC = 1n;
const DEFAULT_ADDITIONAL_CONTEXT_LIMIT = BigInt(ADDITIONAL_CONTEXT_LIMIT);
const U64_MAX = (1n << 64n) - 1n;

/**
 * - `trusted`: the hash matches; Codex runs the hook.
 * - `changed`: Codex knows the id, but the trusted hash differs. Codex skips the hook until it is
 *   reviewed again.
 * - `new`: the hook was never reviewed. Codex skips it.
 * - `disabled`: the hook has `enabled = false`. Codex never runs it, whatever its hash.
 */
export type CodexHookTrustState = "trusted" | "changed" | "new" | "disabled";

export interface CodexHookTrustEntry {
  /** The `[hooks.state."<id>"]` key. */
  id: string;
  event: CodexHookEvent;
  groupIndex: number;
  handlerIndex: number;
  handlerType: "command" | "mcp_tool";
  /** The matcher as Codex uses it; undefined when absent or ignored for this event. */
  matcher: string | undefined;
  /** `sha256:<hex>`, as Codex computes it now. */
  hash: string;
  /** The `trusted_hash` recorded in the config, if any. */
  trustedHash: string | undefined;
  /** false only for `enabled = false`. */
  enabled: boolean;
  /** The trust outcome, whether or not the hook is enabled. */
  trust: "trusted" | "changed" | "new";
  state: CodexHookTrustState;
}

/** A handler that Codex loads but never runs, whatever the trust state. It has no entry. */
export interface CodexSkippedHandler {
  event: CodexHookEvent;
  groupIndex: number;
  handlerIndex: number;
  reason: string;
}

export interface CodexHookTrustReport {
  entries: CodexHookTrustEntry[];
  skipped: CodexSkippedHandler[];
  /**
   * Set when Codex would reject the whole hooks.json (it then loads none of its hooks). In that
   * case `entries` is empty.
   */
  hooksError?: string;
  /**
   * Set when the config text cannot be parsed, or when its `hooks.state` has a wrongly typed field
   * (Codex rejects such a config). It is meant to be printed as a warning. The states are then
   * computed as if no trust had been recorded.
   */
  configError?: string;
}

export interface CodexHookTrustInput {
  /** The hooks.json text, or its parsed object. */
  hooks: string | unknown;
  /** The absolute path hooks.json is (or will be) written to, as Codex will reach it. */
  hooksPath: string;
  /**
   * The text of the user config Codex reads trust from, `$CODEX_HOME/config.toml`. This holds for
   * project hooks too. Pass undefined or null when the file does not exist.
   */
  configToml?: string | null;
  /** Compute as Codex on Windows does (`commandWindows` replaces `command`). Default false. */
  windows?: boolean;
}

/** The persisted state of one hook id. */
export interface CodexHookState {
  enabled?: boolean;
  trustedHash?: string;
}

/** The `[hooks.state."<id>"]` key of one handler. */
export function codexHookId(
  hooksPath: string,
  event: CodexHookEvent,
  groupIndex: number,
  handlerIndex: number,
): string {
  return `${hooksPath}:${eventInfo(event).label}:${groupIndex}:${handlerIndex}`;
}

/**
 * Read `[hooks.state]` from a Codex config.toml, as Codex does. It never writes anything.
 *
 * Throws when the text is not valid TOML (TomlError), or when `hooks.state` has a wrongly typed
 * field. Codex then rejects the whole config, and no hook runs.
 */
export function readCodexHookStates(configToml: string): Map<string, CodexHookState> {
  const states = new Map<string, CodexHookState>();
  const doc = parseToml(configToml) as Record<string, unknown>;
  const hooks = doc.hooks;
  if (hooks === undefined) return states;
  if (!isPlainObject(hooks)) throw new TypeError("hooks: expected a table");
  const table = hooks.state;
  if (table === undefined) return states;
  if (!isPlainObject(table)) throw new TypeError("hooks.state: expected a table");
  for (const [rawKey, raw] of Object.entries(table)) {
    const where = `hooks.state.${JSON.stringify(rawKey)}`;
    if (!isPlainObject(raw)) throw new TypeError(`${where}: expected a table`);
    const { enabled, trusted_hash } = raw;
    if (enabled !== undefined && typeof enabled !== "boolean") {
      throw new TypeError(`${where}.enabled: expected a boolean`);
    }
    if (trusted_hash !== undefined && typeof trusted_hash !== "string") {
      throw new TypeError(`${where}.trusted_hash: expected a string`);
    }
    const key = trimSpace(rawKey);
    if (key === "") continue;
    // Codex merges field by field, so a later duplicate key (after trimming) keeps earlier fields.
    const state = states.get(key) ?? {};
    if (enabled !== undefined) state.enabled = enabled;
    if (trusted_hash !== undefined) state.trustedHash = trusted_hash;
    states.set(key, state);
  }
  return states;
}

/**
 * For each hook in a rendered hooks.json, give its Codex id and hash, and its trust state in the
 * given config.
 */
export function codexHookTrust(input: CodexHookTrustInput): CodexHookTrustReport {
  let states = new Map<string, CodexHookState>();
  let configError: string | undefined;
  if (input.configToml != null) {
    try {
      states = readCodexHookStates(input.configToml);
    } catch (err) {
      configError = `cannot read Codex hook trust from config.toml: ${firstLine(err)}`;
    }
  }

  let handlers: NormalizedHandler[];
  let skipped: CodexSkippedHandler[];
  try {
    ({ handlers, skipped } = normalizeHooksFile(input.hooks, input.windows ?? false));
  } catch (err) {
    const hooksError = `Codex would not load ${input.hooksPath}: ${firstLine(err)}`;
    return { entries: [], skipped: [], hooksError, ...(configError ? { configError } : {}) };
  }

  const entries = handlers.map((h): CodexHookTrustEntry => {
    const id = codexHookId(input.hooksPath, h.event, h.groupIndex, h.handlerIndex);
    const state = states.get(id);
    const enabled = state?.enabled !== false;
    const trustedHash = state?.trustedHash;
    const trust = trustedHash === undefined ? "new" : trustedHash === h.hash ? "trusted" : "changed";
    return {
      id,
      event: h.event,
      groupIndex: h.groupIndex,
      handlerIndex: h.handlerIndex,
      handlerType: h.handlerType,
      matcher: h.matcher,
      hash: h.hash,
      trustedHash,
      enabled,
      trust,
      state: enabled ? trust : "disabled",
    };
  });
  return { entries, skipped, ...(configError ? { configError } : {}) };
}

// ---------------------------------------------------------------------------------------------
// hooks.json → normalised handlers

interface NormalizedHandler {
  event: CodexHookEvent;
  groupIndex: number;
  handlerIndex: number;
  handlerType: "command" | "mcp_tool";
  matcher: string | undefined;
  hash: string;
}

class HooksFileError extends Error {}

function fail(path: string, message: string): never {
  throw new HooksFileError(`${path}: ${message}`);
}

function normalizeHooksFile(
  hooks: unknown,
  windows: boolean,
): { handlers: NormalizedHandler[]; skipped: CodexSkippedHandler[] } {
  let root: JsonValue;
  try {
    root = typeof hooks === "string" ? parseJsonText(hooks) : fromJsValue(hooks);
  } catch (err) {
    throw new HooksFileError(`invalid JSON: ${firstLine(err)}`);
  }
  if (!isJsonObject(root)) fail("$", "expected an object");
  for (const key of root.keys()) {
    if (key !== "hooks" && key !== "description") fail("$", `unknown field \`${key}\``);
  }
  const events = root.get("hooks");
  const handlers: NormalizedHandler[] = [];
  const skipped: CodexSkippedHandler[] = [];
  if (events === undefined) return { handlers, skipped };
  if (!isJsonObject(events)) fail("hooks", "expected an object");

  for (const info of CODEX_HOOK_EVENTS) {
    const groups = events.get(info.name);
    if (groups === undefined) continue;
    const eventPath = `hooks.${info.name}`;
    if (!Array.isArray(groups)) fail(eventPath, "expected an array of matcher groups");
    groups.forEach((group, groupIndex) => {
      const groupPath = `${eventPath}[${groupIndex}]`;
      if (!isJsonObject(group)) fail(groupPath, "expected an object");
      const rawMatcher = optionalString(group, "matcher", groupPath);
      const matcher = info.matcher ? rawMatcher : undefined;
      const list = group.get("hooks");
      if (list === undefined) return;
      if (!Array.isArray(list)) fail(`${groupPath}.hooks`, "expected an array");
      list.forEach((handler, handlerIndex) => {
        const where = { event: info.name, groupIndex, handlerIndex };
        const path = `${groupPath}.hooks[${handlerIndex}]`;
        const result = normalizeHandler(handler, info.name, path, windows);
        if ("skip" in result) {
          skipped.push({ ...where, reason: result.skip });
          return;
        }
        const identity: CanonObject = new Map<string, CanonValue>([
          ["event_name", info.label],
          ["hooks", [result.handler]],
        ]);
        if (matcher !== undefined) identity.set("matcher", matcher);
        handlers.push({
          ...where,
          handlerType: result.type,
          matcher,
          hash: sha256Tagged(canonicalJson(identity)),
        });
      });
    });
  }
  return { handlers, skipped };
}

type HandlerResult = { type: "command" | "mcp_tool"; handler: CanonObject } | { skip: string };

function normalizeHandler(
  handler: JsonValue,
  event: CodexHookEvent,
  path: string,
  windows: boolean,
): HandlerResult {
  if (!isJsonObject(handler)) fail(path, "expected an object");
  const type = handler.get("type");
  if (type === "prompt" || type === "agent") return { skip: `${type} hooks are not supported by Codex` };
  if (type !== "command" && type !== "mcp_tool") {
    fail(path, `unknown handler type ${JSON.stringify(type ?? null)}`);
  }
  const timeout = effectiveTimeout(event, optionalU64(handler, "timeout", path));
  const statusMessage = optionalString(handler, "statusMessage", path);

  if (type === "command") {
    let command = requiredString(handler, "command", path);
    const commandWindows =
      optionalString(handler, "commandWindows", path) ?? optionalString(handler, "command_windows", path);
    if (windows && commandWindows !== undefined) command = commandWindows;
    const isAsync = optionalBool(handler, "async", path) ?? false;
    const limit = optionalU64(handler, "additionalContextLimit", path);
    if (trimSpace(command) === "") return { skip: "empty command" };
    const out: CanonObject = new Map<string, CanonValue>([
      ["type", "command"],
      ["command", command],
      ["timeout", timeout],
      ["async", isAsync],
    ]);
    if (statusMessage !== undefined) out.set("statusMessage", statusMessage);
    if (
      limit !== undefined &&
      ADDITIONAL_CONTEXT_EVENTS.has(event) &&
      limit !== DEFAULT_ADDITIONAL_CONTEXT_LIMIT
    ) {
      out.set("additionalContextLimit", limit);
    }
    return { type, handler: out };
  }

  const server = requiredString(handler, "server", path);
  const tool = requiredString(handler, "tool", path);
  const rawInput = handler.get("input");
  const input = rawInput === undefined ? new Map<string, CanonValue>() : mcpInput(rawInput, `${path}.input`);
  if (event === "SessionEnd") return { skip: "SessionEnd MCP hooks are not supported by Codex" };
  if (trimSpace(server) === "" || trimSpace(tool) === "") return { skip: "empty MCP server or tool" };
  const out: CanonObject = new Map<string, CanonValue>([
    ["type", "mcp_tool"],
    ["server", server],
    ["tool", tool],
    ["input", input],
    ["timeout", timeout],
  ]);
  if (statusMessage !== undefined) out.set("statusMessage", statusMessage);
  return { type, handler: out };
}

function mcpInput(value: JsonValue, path: string): CanonObject {
  if (!isJsonObject(value)) fail(path, "expected an object");
  return toCanon(value, path) as CanonObject;
}

function toCanon(value: JsonValue, path: string): CanonValue {
  if (value === null) fail(path, "MCP hook input must be representable as TOML (no null)");
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (value instanceof JsonNumber) return new SerdeNumber(serdeNumberLiteral(value.literal));
  if (Array.isArray(value)) return value.map((item, i) => toCanon(item, `${path}[${i}]`));
  const out: CanonObject = new Map();
  for (const [k, v] of value) out.set(k, toCanon(v, `${path}.${k}`));
  return out;
}

function effectiveTimeout(event: CodexHookEvent, timeout: bigint | undefined): bigint {
  const max = eventInfo(event).maxTimeoutSec;
  if (max !== undefined) {
    const t = timeout ?? SHORT_DEFAULT_TIMEOUT_SEC;
    return t < 1n ? 1n : t > max ? max : t;
  }
  const t = timeout ?? DEFAULT_TIMEOUT_SEC;
  return t < 1n ? 1n : t;
}

// ---------------------------------------------------------------------------------------------
// small helpers

function eventInfo(event: CodexHookEvent): (typeof CODEX_HOOK_EVENTS)[number] {
  const info = CODEX_HOOK_EVENTS.find((e) => e.name === event);
  if (!info) throw new TypeError(`not a Codex hook event: ${event}`);
  return info;
}

function optionalString(obj: JsonObject, key: string, path: string): string | undefined {
  const v = obj.get(key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") fail(`${path}.${key}`, "expected a string");
  return v;
}

function requiredString(obj: JsonObject, key: string, path: string): string {
  const v = obj.get(key);
  if (typeof v !== "string") fail(`${path}.${key}`, "expected a string");
  return v;
}

function optionalBool(obj: JsonObject, key: string, path: string): boolean | undefined {
  const v = obj.get(key);
  if (v === undefined) return undefined;
  if (typeof v !== "boolean") fail(`${path}.${key}`, "expected a boolean");
  return v;
}

function optionalU64(obj: JsonObject, key: string, path: string): bigint | undefined {
  const v = obj.get(key);
  if (v === undefined || v === null) return undefined;
  if (!(v instanceof JsonNumber) || !/^\d+$/.test(v.literal) || BigInt(v.literal) > U64_MAX) {
    fail(`${path}.${key}`, "expected a non-negative integer");
  }
  return BigInt(v.literal);
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split("\n")[0] ?? message;
}
