/**
 * The review of what arrives with a pull (core/runnable.ts) lists the home's hooks, not kanon's own:
 * the continuity hooks and kanon/carry run kanon's built-in handlers, no command of the home.
 */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { AGENTS } from "../../src/agents/index.js";
import { runnables } from "../../src/core/runnable.js";
import type { KanonConfig } from "../../src/model/config.js";
import type { Source } from "../../src/model/source.js";
import { locator } from "../../src/source/decode.js";
import { normalizeConfig } from "../../src/source/load.js";
import { validateConfig } from "../../src/source/validate.js";

const YAML = `version: 1
continuity: { reanchor: true, position_on_prompt: true }
hooks:
  - { name: anchor, event: SessionStart, envelope: neutral, command: ./where-was-i.sh }
`;

describe("the review of hooks that arrive with a pull", () => {
  it("lists the home's hooks, and none of kanon's own", async () => {
    const config = normalizeConfig(parse(YAML) as Partial<KanonConfig>);
    const paths = { home: "/nonexistent", config: "/nonexistent/kanon.yaml", userHome: "/nonexistent" };
    const machine = { node: "/opt/node/bin/node", runner: "/home/u/.local/share/kanon/hook-runner.mjs" };
    const v = await validateConfig(
      config,
      paths,
      AGENTS,
      "user",
      {},
      locator(YAML, "kanon.yaml"),
      undefined,
      machine,
    );
    // kanon's own hooks are there to be rendered: kanon/carry for Kimi, the continuity ones for all.
    const names = new Set(v.decisions.filter((d) => d.outcome !== "omitted").map((d) => d.hook.name));
    expect([...names].sort()).toEqual([
      "anchor",
      "kanon/carry",
      "kanon/pause",
      "kanon/position",
      "kanon/reanchor",
      "kanon/reanchor-compact",
      "kanon/stop",
    ]);
    const items = runnables({
      source: { config, localSkills: [], providers: [] } as unknown as Source,
      agents: AGENTS,
      scope: { kind: "user", userHome: "/nonexistent", homes: {} } as never,
      decisions: v.decisions,
      mcp: v.mcp,
      items: v.items,
      outside: () => false,
      reads: [],
    });
    expect(items.map((i) => `${i.agent} ${i.name}: ${i.what}`).sort()).toEqual(
      AGENTS.map((a) => `${a.manifest.id} anchor: SessionStart: ./where-was-i.sh`).sort(),
    );
  });
});
