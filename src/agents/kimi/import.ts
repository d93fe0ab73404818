/** Kimi Code's `[[hooks]]` tables in config.toml that kanon wrote, read back (kanon import). */
import { parse as parseToml } from "smol-toml";
import { toSeconds } from "../../core/hooks/groups.js";
import { ownerLabel } from "../../formats/toml.js";
import { parseTomlSyntax } from "../../formats/toml-syntax.js";
import { isPlainObject } from "../../formats/values.js";
import type { AgentImport, HookRead, NativeHook } from "../../model/manifest.js";
import { KIMI_HOOK_MARKER, kimiManifest } from "./manifest.js";

/** config.toml's `[[hooks]]`: kanon's tables (marked on their header line) come back under their names. */
function readHooks(text: string, path: string): HookRead {
  const body = text.replace(/^\uFEFF/, "");
  const doc = parseToml(body);
  const out: HookRead = { hooks: [], named: true, order: "file", warnings: [], document: doc };
  for (const key of Object.keys(doc))
    if (key !== "hooks") out.warnings.push(`skipped unsupported kimi config field ${JSON.stringify(key)}`);
  const tables = doc.hooks;
  if (tables === undefined) return out;
  if (!Array.isArray(tables)) {
    out.warnings.push("left kimi hooks raw because hooks is not an array of tables");
    return out;
  }
  const labels = hookLabels(body);
  // An inline `hooks = [...]` array has no headers: none of it is kanon's.
  const marked = labels.length === tables.length ? labels : tables.map(() => null);
  const byNative = new Map(
    Object.entries(kimiManifest.hooks.events).map(([neutral, e]) => [e.native, neutral]),
  );
  tables.forEach((t, i) => {
    const which = `kimi hook ${i + 1}`;
    if (!isPlainObject(t)) {
      out.warnings.push(`left ${which} raw because it is not a table`);
      return;
    }
    const { event, matcher, command, timeout } = t;
    if (typeof event !== "string" || typeof command !== "string") {
      out.warnings.push(`left ${which} raw because its event or command is not a string`);
      return;
    }
    const name = marked[i];
    if (name === null || name === undefined) {
      out.warnings.push(
        `left kimi hook ${JSON.stringify(event)} (${JSON.stringify(command)}) in ${path} where it is: kanon did not write it (its [[hooks]] header has no "# ${KIMI_HOOK_MARKER}:" comment) and would add a copy beside it`,
      );
      return;
    }
    for (const key of Object.keys(t))
      if (!["event", "matcher", "command", "timeout"].includes(key))
        out.warnings.push(
          `skipped unsupported kimi hook ${JSON.stringify(event)} field ${JSON.stringify(key)}`,
        );
    if (matcher !== undefined && typeof matcher !== "string") {
      out.warnings.push(`left ${which} raw because matcher is not a string`);
      return;
    }
    if (timeout !== undefined && !(typeof timeout === "number" && timeout > 0)) {
      out.warnings.push(`left ${which} raw because timeout is not a number`);
      return;
    }
    const h: NativeHook = {
      name,
      neutralEvent: byNative.get(event) ?? event,
      event,
      matcher: { kind: "all" },
      type: "command",
      command,
      fields: {},
    };
    if (matcher) h.matcherText = matcher;
    if (timeout !== undefined) h.timeout = toSeconds(timeout, kimiManifest.hooks.timeouts.unit);
    out.hooks.push(h);
  });
  return out;
}

/** The owner label of each `[[hooks]]` table, in document order (null: the user's). */
function hookLabels(text: string): (string | null)[] {
  const labels: (string | null)[] = [];
  for (const item of parseTomlSyntax(text).body[0].body) {
    if (item.type !== "TOMLTable" || item.kind !== "array") continue;
    const path = item.key.keys.map((k) => (k.type === "TOMLBare" ? k.name : k.value));
    if (path.length !== 1 || path[0] !== "hooks") continue;
    const end = item.key.range[1];
    const lineEnd = text.indexOf("\n", end);
    labels.push(ownerLabel(text.slice(end, lineEnd < 0 ? text.length : lineEnd), KIMI_HOOK_MARKER));
  }
  return labels;
}

export const kimiImport: Pick<AgentImport, "readHooks"> = { readHooks };
