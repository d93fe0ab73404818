/**
 * The agent-independent hook checks in validateConfig, with positions from the real locator: the
 * "did you mean" sources (case, spelling, an agent's native event name) and enabled: false.
 */
import { describe, expect, it } from "vitest";
import { claude } from "../../src/agents/claude/index.js";
import { AGENTS } from "../../src/agents/index.js";
import type { KanonConfig } from "../../src/model/config.js";
import type { Agent } from "../../src/model/manifest.js";
import { locator } from "../../src/source/decode.js";
import { normalizeConfig } from "../../src/source/load.js";
import { hookWarnings, validateConfig } from "../../src/source/validate.js";
import { projectDirUnset } from "../support/manifests.js";

const paths = { home: "/nonexistent", config: "/nonexistent/kanon.yaml", userHome: "/nonexistent" };

/** A Gemini-like agent: kanon's PreToolUse is its BeforeTool. */
const nativeNamed: Agent = {
  ...claude,
  manifest: {
    ...claude.manifest,
    id: "claude",
    hooks: {
      ...claude.manifest.hooks,
      passThrough: false,
      events: { PreToolUse: { ...claude.manifest.hooks.events.PreToolUse!, native: "BeforeTool" } },
    },
  },
};

async function check(yaml: string, agents: readonly Agent[] = AGENTS, env: NodeJS.ProcessEnv = {}) {
  const { parse } = await import("yaml");
  const config = normalizeConfig(parse(yaml) as Partial<KanonConfig>);
  return validateConfig(config, paths, agents, "user", env, locator(yaml, "kanon.yaml"));
}

describe("unknown events", () => {
  it("suggest the neutral name for an agent's native one", async () => {
    const v = await check("version: 1\nhooks:\n  - name: g\n    event: BeforeTool\n    command: x\n", [
      nativeNamed,
    ]);
    expect(v.warnings).toEqual([
      'kanon.yaml:4:12: hook "g": unknown event "BeforeTool"; did you mean "PreToolUse"?',
    ]);
  });

  it("suggest nothing when nothing is close", async () => {
    const v = await check("version: 1\nhooks:\n  - name: g\n    event: Lunchtime\n    command: x\n");
    expect(v.warnings).toEqual(['kanon.yaml:4:12: hook "g": unknown event "Lunchtime"']);
    expect(v.decisions.find((d) => d.agent === "claude")?.outcome).toBe("passed-through");
  });

  it("are none for an event only one agent has (PermissionRequest, PreModelRequest)", async () => {
    const v = await check(
      "version: 1\nhooks:\n  - {name: a, event: PermissionRequest, command: x}\n  - {name: b, event: PreModelRequest, command: x}\n",
    );
    expect(v.warnings).toEqual([]);
    // Codex's own event is one kanon knows, so Claude is not given it.
    expect(v.decisions.find((d) => d.hook.name === "b" && d.agent === "claude")?.outcome).toBe("omitted");
  });
});

describe("enabled: false", () => {
  it("makes no decisions and no errors for the hook, but its name still counts", async () => {
    const v = await check(
      "version: 1\nhooks:\n  - {name: off, event: Stop, enabled: false}\n  - {name: off, event: Stop, command: x}\n",
    );
    expect(v.errors).toEqual(['kanon.yaml:4:12: hook "off": duplicate name (first at kanon.yaml:3:5)']);
    const only = await check("version: 1\nhooks:\n  - {name: off, event: Stop, enabled: false}\n");
    expect(only).toMatchObject({ errors: [], warnings: [], decisions: [] });
  });
});

describe("positions", () => {
  it("are left out without a locator, which the pipeline then supplies for warnings too", async () => {
    const config = normalizeConfig({ version: 1, hooks: [{ name: "x", event: "Stop" }] });
    const v = await validateConfig(config, paths, AGENTS, "user", {});
    expect(v.errors).toEqual(['hook "x": type command requires command']);
    const w = await validateConfig(
      normalizeConfig({ version: 1, hooks: [{ name: "x", event: "Stopp", command: "c" }] }),
      paths,
      AGENTS,
      "user",
      {},
    );
    expect(w.warnings).toEqual(['hook "x": unknown event "Stopp"; did you mean "Stop"?']);
  });
});

describe("the agents rendered", () => {
  it("are the only ones hooks are decided for, besides an agent a hook names (its errors stay)", async () => {
    const yaml =
      "version: 1\nhooks:\n  - {name: a, event: Stop, command: x}\n  - {name: b, event: Stop, type: http, url: https://h.example, targets: [kimi, claude]}\n";
    const { parse } = await import("yaml");
    const config = normalizeConfig(parse(yaml) as Partial<KanonConfig>);
    const all = await validateConfig(config, paths, AGENTS, "user", {});
    const some = await validateConfig(config, paths, AGENTS, "user", {}, undefined, new Set(["claude"]));
    expect(all.errors).toEqual(['hook "b" targets kimi but type "http" is not supported for kimi']);
    expect(some.errors).toEqual(all.errors);
    expect(some.decisions).toEqual(all.decisions.filter((d) => d.agent === "claude" || d.explicit));
    expect(some.decisions.map((d) => `${d.hook.name} ${d.agent}`)).toEqual([
      "a claude",
      "b claude",
      "b kimi",
    ]);
  });
});

describe("~ in the command of a hook with args", () => {
  it("warns only where no shell would expand it: a command starting with ~, args set, enabled", async () => {
    const v = await check(`version: 1
hooks:
  - {name: home, event: Stop, command: ~/bin/x, args: [a]}
  - {name: bare, event: Stop, command: "~", args: [a]}
  - {name: shell, event: Stop, command: ~/bin/x a}
  - {name: no-args, event: Stop, command: ~/bin/x, args: []}
  - {name: inside, event: Stop, command: /opt/x~, args: [~/a]}
  - {name: off, event: Stop, command: ~/bin/x, args: [a], enabled: false}
`);
    expect(v.errors).toEqual([]);
    const why =
      'with args is run without a shell, so "~" is not expanded; write the full path, or drop args and put them in command';
    expect(v.warnings).toEqual([
      `kanon.yaml:3:40: hook "home": command "~/bin/x" ${why}`,
      `kanon.yaml:4:40: hook "bare": command "~" ${why}`,
    ]);
  });
});

describe("a variable an agent sets for its hooks", () => {
  const guard = (extra = "") =>
    `version: 1\nhooks:\n  - name: guard\n    event: PreToolUse\n    matcher: Bash\n    command: '"$CLAUDE_PROJECT_DIR"/hooks/guard.sh'\n${extra}`;
  const hint = (agent: string) => `variable $CLAUDE_PROJECT_DIR is not supported (${projectDirUnset(agent)})`;

  it("is not an unset variable of kanon's for a hook only agents that set it run", async () => {
    for (const env of [{}, { CLAUDE_PROJECT_DIR: "/p" }]) {
      const claude = await check(
        "version: 1\nhooks:\n  - {name: fmt, event: PostToolUse, command: '${CLAUDE_PROJECT_DIR}/fmt', targets: [claude]}\n",
        AGENTS,
        env,
      );
      expect(claude).toMatchObject({ errors: [], warnings: [] });
      expect(claude.decisions.map((d) => `${d.agent} ${d.outcome}`)).toEqual(["claude as-written"]);
    }
  });

  it("leaves an implicitly targeted hook out, with a warning, for each agent that does not set it", async () => {
    for (const env of [{}, { CLAUDE_PROJECT_DIR: "/p" }]) {
      const v = await check(guard(), AGENTS, env);
      expect(v).toMatchObject({ errors: [], warnings: [] });
      expect(hookWarnings(v.decisions, AGENTS)).toEqual([
        `hook "guard" is not rendered for codex: ${hint("codex")}`,
        `hook "guard" is not rendered for opencode: ${hint("opencode")}`,
        `hook "guard" is not rendered for kimi: ${hint("kimi")}`,
      ]);
    }
  });

  it("is an error, at the hook, for an agent its targets name", async () => {
    for (const env of [{}, { CLAUDE_PROJECT_DIR: "/p" }]) {
      const v = await check(guard("    targets: [claude, codex]\n"), AGENTS, env);
      expect(v.errors).toEqual([
        `kanon.yaml:3:5: hook "guard" targets codex but ${hint("codex").replace("is not supported", "is not supported for codex")}`,
      ]);
      expect(v.warnings).toEqual([]);
    }
  });

  it("renders for Claude Code and Gemini CLI, which both set CLAUDE_PROJECT_DIR, without a word", async () => {
    const braces = guard("    targets: [claude, gemini]\n").replace(
      '"$CLAUDE_PROJECT_DIR"',
      "${CLAUDE_PROJECT_DIR}",
    );
    const v = await check(braces);
    expect(v).toMatchObject({ errors: [], warnings: [] });
    expect(v.decisions.map((d) => `${d.agent} ${d.outcome}`)).toEqual([
      "claude as-written",
      "gemini translated",
    ]);
    expect(hookWarnings(v.decisions, AGENTS)).toEqual([]);
  });

  it("leaves the unset check for the user's own variables as it was", async () => {
    const v = await check(
      "version: 1\nhooks:\n  - {name: x, event: Stop, command: '${MY_HOOKS}/x', targets: [codex]}\n",
    );
    expect(v).toMatchObject({
      errors: [],
      warnings: ["kanon.yaml:3:37: references unset environment variable MY_HOOKS"],
    });
  });
});
