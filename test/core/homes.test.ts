/** The one resolver from manifest paths to real paths, with the agents' home variables set or not. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AGENTS } from "../../src/agents/index.js";
import { agentHomes, agentPath, userPath } from "../../src/core/homes.js";
import type { AgentManifest, ScopedPath } from "../../src/model/manifest.js";
import type { Scope } from "../../src/model/types.js";

const manifest = (id: string): AgentManifest => AGENTS.find((a) => a.manifest.id === id)!.manifest;
const MANIFESTS = AGENTS.map((a) => a.manifest);
const HOME = "/home/me";

/** Every user-scope path an agent renders (skills as their root). */
const renderedPaths = (m: AgentManifest): ScopedPath[] => [
  m.instructions,
  m.skills.root,
  m.mcp.file,
  ...(m.mcp.alternatives ?? []),
  m.hooks.file,
];

function userScope(env: NodeJS.ProcessEnv, cwd = "/srv/checkout"): Scope {
  return { kind: "user", userHome: HOME, homes: agentHomes(MANIFESTS, env, cwd).homes };
}

describe("agentHomes", () => {
  it("reads each manifest's variable, taking an empty value as unset", () => {
    const r = agentHomes(MANIFESTS, { CODEX_HOME: "/c", CLAUDE_CONFIG_DIR: "", KIMI_CODE_HOME: "/k" }, "/w");
    expect(r).toEqual({ homes: { CODEX_HOME: "/c", KIMI_CODE_HOME: "/k" }, warnings: [] });
  });

  it("warns about an empty value for an agent that still reads files through it (Kimi Code)", () => {
    expect(agentHomes(MANIFESTS, { KIMI_CODE_HOME: "", CODEX_HOME: "" }, "/w")).toEqual({
      homes: {},
      warnings: [
        "KIMI_CODE_HOME is set but empty: kanon takes it as unset, while Kimi Code reads config.toml and mcp.json from the directory it runs in",
      ],
    });
  });

  it("takes a relative value from the current directory, with a warning naming the agent", () => {
    const r = agentHomes(MANIFESTS, { GEMINI_CLI_HOME: "g/../gem" }, "/srv/checkout");
    expect(r.homes).toEqual({ GEMINI_CLI_HOME: "/srv/checkout/gem" });
    expect(r.warnings).toEqual([
      "GEMINI_CLI_HOME is a relative path (g/../gem): kanon uses /srv/checkout/gem, while Gemini CLI resolves it from the directory it runs in",
    ]);
  });

  it("takes the real path only for an agent that does (Codex), and only when the folder exists", () => {
    const real = (dir: string) => (dir === "/link" ? "/real" : null);
    const env = { CODEX_HOME: "/link", KIMI_CODE_HOME: "/link" };
    expect(agentHomes(MANIFESTS, env, "/w", real).homes).toEqual({
      CODEX_HOME: "/real",
      KIMI_CODE_HOME: "/link",
    });
    expect(agentHomes(MANIFESTS, { CODEX_HOME: "/missing" }, "/w", real).homes).toEqual({
      CODEX_HOME: "/missing",
    });
  });

  it("does not find a variable on Object.prototype", () => {
    expect(agentHomes(MANIFESTS, Object.create({ CODEX_HOME: "/x" }), "/w").homes).toEqual({});
  });
});

describe("userPath and agentPath", () => {
  it("without the variables, every path is under the user's home as the manifest says", () => {
    const scope = userScope({});
    for (const m of MANIFESTS)
      for (const p of renderedPaths(m)) if (p.user) expect(agentPath(m, p, scope)).toBe(`${HOME}/${p.user}`);
  });

  it("CODEX_HOME moves ~/.codex but not the shared ~/.agents/skills", () => {
    const scope = userScope({ CODEX_HOME: "/srv/codex" });
    const m = manifest("codex");
    expect(agentPath(m, m.instructions, scope)).toBe("/srv/codex/AGENTS.md");
    expect(agentPath(m, m.mcp.file, scope)).toBe("/srv/codex/config.toml");
    expect(agentPath(m, m.hooks.file, scope)).toBe("/srv/codex/hooks.json");
    expect(agentPath(m, m.skills.root, scope)).toBe(`${HOME}/.agents/skills`);
    expect(userPath(m, ".codex/skills", scope)).toBe("/srv/codex/skills");
    expect(userPath(m, ".codex", scope)).toBe("/srv/codex");
    // A name that only starts like the home is not under it.
    expect(userPath(m, ".codex-old/x", scope)).toBe(`${HOME}/.codex-old/x`);
  });

  it("CLAUDE_CONFIG_DIR moves ~/.claude and takes ~/.claude.json into it", () => {
    const scope = userScope({ CLAUDE_CONFIG_DIR: "/srv/claude" });
    const m = manifest("claude");
    expect(renderedPaths(m).map((p) => agentPath(m, p, scope))).toEqual([
      "/srv/claude/CLAUDE.md",
      "/srv/claude/skills",
      "/srv/claude/.claude.json",
      "/srv/claude/settings.json",
    ]);
  });

  it("GEMINI_CLI_HOME stands for the folder that holds .gemini/", () => {
    const scope = userScope({ GEMINI_CLI_HOME: "/srv/g" });
    const m = manifest("gemini");
    expect(agentPath(m, m.mcp.file, scope)).toBe("/srv/g/.gemini/settings.json");
    expect(userPath(m, ".gemini", scope)).toBe("/srv/g/.gemini");
  });

  it("XDG_CONFIG_HOME moves OpenCode's config folder, not the Claude files OpenCode also reads", () => {
    const scope = userScope({ XDG_CONFIG_HOME: "/srv/xdg" });
    const m = manifest("opencode");
    expect(agentPath(m, m.hooks.file, scope)).toBe("/srv/xdg/opencode/plugins/kanon-hooks.js");
    expect(agentPath(m, m.import!.instructionFallbacks![0]!, scope)).toBe(`${HOME}/.claude/CLAUDE.md`);
  });

  it("KIMI_CODE_HOME moves ~/.kimi-code; one agent's variable never moves another's files", () => {
    const scope = userScope({ KIMI_CODE_HOME: "/srv/kimi" });
    expect(agentPath(manifest("kimi"), manifest("kimi").mcp.file, scope)).toBe("/srv/kimi/mcp.json");
    const codex = manifest("codex");
    expect(agentPath(codex, codex.mcp.file, scope)).toBe(`${HOME}/.codex/config.toml`);
  });

  it("project scope never moves", () => {
    const homes = agentHomes(MANIFESTS, { CODEX_HOME: "/c", CLAUDE_CONFIG_DIR: "/d" }, "/w").homes;
    const scope: Scope = { kind: "project", userHome: HOME, dir: "/p", homes };
    const m = manifest("codex");
    expect(agentPath(m, m.mcp.file, scope)).toBe("/p/.codex/config.toml");
    // The user files an agent reads in project scope (Codex's hook reviews) still move.
    expect(userPath(m, ".codex/config.toml", scope)).toBe("/c/config.toml");
  });
});

describe("userPath (property)", () => {
  const segment = fc.stringMatching(/^[A-Za-z0-9._-]{1,8}$/).filter((s) => s !== "." && s !== "..");
  const rel = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));

  it("a path under an agent's home moves under the variable's folder; any other stays under the user's home", () => {
    fc.assert(
      fc.property(fc.constantFrom(...MANIFESTS), rel, segment, (m, tail, dirName) => {
        const home = m.home!;
        const dir = `/moved/${dirName}`;
        const scope: Scope = { kind: "user", userHome: HOME, homes: { [home.name]: dir } };
        const under = home.replaces === "" ? tail : `${home.replaces}/${tail}`;
        const moved = home.alsoMoves?.[under];
        expect(userPath(m, under, scope)).toBe(moved !== undefined ? `${dir}/${moved}` : `${dir}/${tail}`);
        // Another agent's variable moves nothing of this one.
        const other = MANIFESTS.find((o) => o.home!.name !== home.name)!;
        expect(userPath(other, `x-${tail}`, scope)).toBe(`${HOME}/x-${tail}`);
      }),
    );
  });
});
