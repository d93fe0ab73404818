// The agent facts a driver needs (id, name, version, scopes, hook files, events left out) come from kanon's
// manifest, so they have one home: a driver states only how to install, configure and run the agent.

import { agentHomes, agentPath } from "../../src/core/homes.js";
import { NEUTRAL_EVENTS } from "../../src/core/hooks/vocabulary.js";
import type { AgentDriver, DriverSpec, Layout, Scope } from "./types.js";

export function defineDriver(spec: DriverSpec): AgentDriver {
  const { id, displayName, hooks } = spec.manifest;
  const scopes = (["user", "project"] as const).filter((s) => hooks.file[s] !== null);
  const mcpOnlyScopes = (["user", "project"] as const).filter(
    (s) => hooks.file[s] === null && spec.manifest.mcp.file[s] !== null,
  );
  return {
    ...spec,
    id,
    title: displayName,
    version: hooks.verified.version,
    scopes,
    mcpOnlyScopes,
    // A pass-through agent gets every hook as written; the others only the events their table lists.
    omittedEvents: hooks.passThrough
      ? []
      : NEUTRAL_EVENTS.map((e) => e.name).filter((e) => !(e in hooks.events)),
    hookFiles(layout: Layout, scope: Scope): string[] {
      const { homes } = agentHomes([spec.manifest], spec.homeEnv?.(layout) ?? {}, layout.project);
      const at = agentPath(
        spec.manifest,
        hooks.file,
        scope === "user"
          ? { kind: "user", userHome: layout.home, homes }
          : { kind: "project", userHome: layout.home, dir: layout.project, homes },
      );
      return at === null ? [] : [at];
    },
  };
}
