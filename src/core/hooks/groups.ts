/**
 * The Claude-shaped hook document (`{ "<Event>": [{ "matcher"?, "hooks": [handler] }] }`) that Claude
 * settings.json and Codex hooks.json share. Each hook is its own group, in kanon.yaml order; groups
 * with the same event and matcher are not coalesced (byte-compatible with the Go original). Gemini
 * CLI's settings.json `hooks` has the same shape, with named handlers.
 */
import type { NativeHook } from "../../model/manifest.js";

export function hookGroups(
  hooks: NativeHook[],
  options: { namePrefix?: string } = {},
): Record<string, unknown[]> {
  const events: Record<string, unknown[]> = {};
  for (const h of hooks) {
    const handler: Record<string, unknown> = {};
    // Agents that name handlers (Gemini CLI) get the hook's name, prefixed so kanon knows its own.
    if (options.namePrefix !== undefined) handler.name = `${options.namePrefix}${h.name}`;
    if (h.args && h.args.length > 0) handler.args = h.args;
    if (h.async) handler.async = true;
    handler.command = h.command ?? "";
    if (h.timeout && h.timeout > 0) handler.timeout = h.timeout;
    if (h.type) handler.type = h.type;
    const group: Record<string, unknown> = { hooks: [handler] };
    if (h.matcherText) group.matcher = h.matcherText;
    const list = Object.hasOwn(events, h.event) ? events[h.event]! : [];
    list.push(group);
    events[h.event] = list;
  }
  return events;
}
