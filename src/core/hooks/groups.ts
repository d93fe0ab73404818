/**
 * The Claude-shaped hook document (`{ "<Event>": [{ "matcher"?, "hooks": [handler] }] }`) that Claude
 * settings.json and Codex hooks.json share. Each hook is its own group, in kanon.yaml order; groups
 * with the same event and matcher are not coalesced (byte-compatible with the Go original).
 */
import type { NativeHook } from "../../model/manifest.js";

export function hookGroups(hooks: NativeHook[]): Record<string, unknown[]> {
  const events: Record<string, unknown[]> = {};
  for (const h of hooks) {
    const all: Record<string, unknown> = { ...h.fields, type: h.type };
    if (h.args && h.args.length > 0) all.args = h.args;
    if (h.async) all.async = true;
    if (h.command !== undefined) all.command = h.command;
    if (h.timeout && h.timeout > 0) all.timeout = h.timeout;
    // Keys in sorted order, as the Go original's encoder wrote them.
    const handler = Object.fromEntries(
      Object.keys(all)
        .sort()
        .map((k) => [k, all[k]]),
    );
    const group: Record<string, unknown> = { hooks: [handler] };
    if (h.matcherText) group.matcher = h.matcherText;
    const list = Object.hasOwn(events, h.event) ? events[h.event]! : [];
    list.push(group);
    events[h.event] = list;
  }
  return events;
}
