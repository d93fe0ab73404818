/**
 * Each agent's translation of every neutral MCP field, as its manifest's MCP table says (the table
 * is what `kanon mcp` and docs/mcp.md print, and what the conformance suite checks in the real agent),
 * and the decisions core/mcp.ts makes from it: references the agent cannot say, resolve_env, fields
 * left out.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { claude } from "../../src/agents/claude/index.js";
import { codex } from "../../src/agents/codex/index.js";
import { gemini } from "../../src/agents/gemini/index.js";
import { AGENTS } from "../../src/agents/index.js";
import { kimi } from "../../src/agents/kimi/index.js";
import { opencode } from "../../src/agents/opencode/index.js";
import { decideServer } from "../../src/core/mcp.js";
import type { McpServer } from "../../src/model/config.js";
import { type Agent, MCP_FIELDS, type McpFieldName } from "../../src/model/manifest.js";

/** One value for each neutral field (a stdio server for the stdio fields, an HTTP one for the rest). */
const SAMPLE: Record<McpFieldName, McpServer> = {
  type: { url: "https://h.example/mcp", type: "sse" },
  command: { command: "srv" },
  args: { command: "srv", args: ["--a", "two words"] },
  env: { command: "srv", env: { PLAIN: "v" } },
  env_vars: { command: "srv", env_vars: ["HOME_DIR"] },
  url: { url: "https://h.example/mcp" },
  headers: { url: "https://h.example/mcp", headers: { "X-A": "b" } },
  env_headers: { url: "https://h.example/mcp", env_headers: { "X-Env": "X_ENV" } },
  bearer_token_env_var: { url: "https://h.example/mcp", bearer_token_env_var: "TOKEN" },
  startup_timeout_sec: { command: "srv", startup_timeout_sec: 7 },
  tool_timeout_sec: { command: "srv", tool_timeout_sec: 9 },
  enabled_tools: { command: "srv", enabled_tools: ["search"] },
  disabled_tools: { command: "srv", disabled_tools: ["delete"] },
  default_approval: { command: "srv", default_approval: "prompt" },
  tools: { command: "srv", tools: { search: { approval: "auto" } } },
  opencode_enabled: { command: "srv", opencode_enabled: false },
};

/** What each agent's entry holds for each sample (the native spelling of the field). */
const NATIVE: Record<string, Record<McpFieldName, Record<string, unknown>>> = {
  codex: {
    type: { url: "https://h.example/mcp" },
    command: { command: "srv" },
    args: { command: "srv", args: ["--a", "two words"] },
    env: { command: "srv", env: { PLAIN: "v" } },
    env_vars: { command: "srv", env_vars: ["HOME_DIR"] },
    url: { url: "https://h.example/mcp" },
    headers: { url: "https://h.example/mcp", http_headers: { "X-A": "b" } },
    env_headers: { url: "https://h.example/mcp", env_http_headers: { "X-Env": "X_ENV" } },
    bearer_token_env_var: { url: "https://h.example/mcp", bearer_token_env_var: "TOKEN" },
    startup_timeout_sec: { command: "srv", startup_timeout_sec: 7 },
    tool_timeout_sec: { command: "srv", tool_timeout_sec: 9 },
    enabled_tools: { command: "srv", enabled_tools: ["search"] },
    disabled_tools: { command: "srv", disabled_tools: ["delete"] },
    default_approval: { command: "srv", default_tools_approval_mode: "prompt" },
    tools: { command: "srv", tools: { search: { approval_mode: "auto" } } },
    opencode_enabled: { command: "srv" },
  },
  claude: {
    type: { type: "sse", url: "https://h.example/mcp" },
    command: { type: "stdio", command: "srv" },
    args: { type: "stdio", command: "srv", args: ["--a", "two words"] },
    env: { type: "stdio", command: "srv", env: { PLAIN: "v" } },
    env_vars: { type: "stdio", command: "srv", env: { HOME_DIR: "${HOME_DIR}" } },
    url: { type: "http", url: "https://h.example/mcp" },
    headers: { type: "http", url: "https://h.example/mcp", headers: { "X-A": "b" } },
    env_headers: { type: "http", url: "https://h.example/mcp", headers: { "X-Env": "${X_ENV}" } },
    bearer_token_env_var: {
      type: "http",
      url: "https://h.example/mcp",
      headers: { Authorization: "Bearer ${TOKEN}" },
    },
    startup_timeout_sec: { type: "stdio", command: "srv", timeout: 7 },
    tool_timeout_sec: { type: "stdio", command: "srv" },
    enabled_tools: { type: "stdio", command: "srv" },
    disabled_tools: { type: "stdio", command: "srv" },
    default_approval: { type: "stdio", command: "srv" },
    tools: { type: "stdio", command: "srv" },
    opencode_enabled: { type: "stdio", command: "srv" },
  },
  opencode: {
    type: { type: "remote", url: "https://h.example/mcp" },
    command: { type: "local", command: ["srv"] },
    args: { type: "local", command: ["srv", "--a", "two words"] },
    env: { type: "local", command: ["srv"], environment: { PLAIN: "v" } },
    env_vars: { type: "local", command: ["srv"], environment: { HOME_DIR: "{env:HOME_DIR}" } },
    url: { type: "remote", url: "https://h.example/mcp" },
    headers: { type: "remote", url: "https://h.example/mcp", headers: { "X-A": "b" } },
    env_headers: { type: "remote", url: "https://h.example/mcp", headers: { "X-Env": "{env:X_ENV}" } },
    bearer_token_env_var: {
      type: "remote",
      url: "https://h.example/mcp",
      headers: { Authorization: "Bearer {env:TOKEN}" },
    },
    startup_timeout_sec: { type: "local", command: ["srv"], timeout: 7000 },
    tool_timeout_sec: { type: "local", command: ["srv"] },
    enabled_tools: { type: "local", command: ["srv"] },
    disabled_tools: { type: "local", command: ["srv"] },
    default_approval: { type: "local", command: ["srv"] },
    tools: { type: "local", command: ["srv"] },
    opencode_enabled: { type: "local", command: ["srv"], enabled: false },
  },
  gemini: {
    type: { url: "https://h.example/mcp", type: "sse" },
    command: { command: "srv" },
    args: { command: "srv", args: ["--a", "two words"] },
    env: { command: "srv", env: { PLAIN: "v" } },
    env_vars: { command: "srv", env: { HOME_DIR: "${HOME_DIR}" } },
    url: { url: "https://h.example/mcp", type: "http" },
    headers: { url: "https://h.example/mcp", type: "http", headers: { "X-A": "b" } },
    env_headers: { url: "https://h.example/mcp", type: "http", headers: { "X-Env": "${X_ENV}" } },
    bearer_token_env_var: {
      url: "https://h.example/mcp",
      type: "http",
      headers: { Authorization: "Bearer ${TOKEN}" },
    },
    startup_timeout_sec: { command: "srv" },
    tool_timeout_sec: { command: "srv", timeout: 9000 },
    enabled_tools: { command: "srv", includeTools: ["search"] },
    disabled_tools: { command: "srv", excludeTools: ["delete"] },
    default_approval: { command: "srv" },
    tools: { command: "srv" },
    opencode_enabled: { command: "srv" },
  },
  kimi: {
    type: { transport: "sse", url: "https://h.example/mcp" },
    command: { command: "srv" },
    args: { command: "srv", args: ["--a", "two words"] },
    env: { command: "srv", env: { PLAIN: "v" } },
    env_vars: { command: "srv" },
    url: { url: "https://h.example/mcp" },
    headers: { url: "https://h.example/mcp", headers: { "X-A": "b" } },
    // Kimi sends headers as written: the env header is left for core/mcp.ts (see below).
    env_headers: { url: "https://h.example/mcp", headers: { "X-Env": "${X_ENV}" } },
    bearer_token_env_var: { url: "https://h.example/mcp", bearerTokenEnvVar: "TOKEN" },
    startup_timeout_sec: { command: "srv", startupTimeoutMs: 7000 },
    tool_timeout_sec: { command: "srv", toolTimeoutMs: 9000 },
    enabled_tools: { command: "srv", enabledTools: ["search"] },
    disabled_tools: { command: "srv", disabledTools: ["delete"] },
    default_approval: { command: "srv" },
    tools: { command: "srv" },
    opencode_enabled: { command: "srv" },
  },
};

const decide = (agent: Agent, server: McpServer, env: NodeJS.ProcessEnv = {}) =>
  decideServer(agent, "s", server, false, env);

describe("each agent's entry for each neutral field", () => {
  for (const agent of AGENTS) {
    const id = agent.manifest.id;
    for (const field of MCP_FIELDS) {
      it(`${id}: ${field}`, () => {
        const d = decide(agent, SAMPLE[field]);
        const support = agent.manifest.mcp.fields[field];
        if (id === "kimi" && field === "env_headers") {
          // A header from a variable is text to Kimi: left out unless resolve_env.
          expect(d.outcome).toBe("omitted");
          expect(d.omitted?.paths).toEqual(["env_headers.X-Env"]);
          return;
        }
        if (id === "codex" && field === "type") {
          // Codex has no SSE client: the sse server is left out for it.
          expect(d.omitted).toEqual({
            why: "Codex CLI has no sse transport (it speaks stdio, http)",
            paths: ["type"],
          });
          expect(agent.mcpServer({ url: "https://h.example/mcp", type: "http" })).toEqual(NATIVE[id]![field]);
          return;
        }
        expect(agent.mcpServer(d.render!)).toEqual(NATIVE[id]![field]);
        // The decision says what the table says.
        const says = (list: string[]) => list.filter((t) => t.startsWith(`${field}: `));
        if (support.support === "translated")
          expect(says(d.translations)).toEqual([`${field}: ${support.how}`]);
        if (support.support === "dropped") expect(says(d.notes)).toEqual([`${field}: ${support.why}`]);
        if (support.support === "none") expect(d.left).toEqual([{ field, why: support.why }]);
        if (support.support === "native") {
          expect([...says(d.translations), ...says(d.notes), ...d.left.map((l) => l.field)]).toEqual([]);
        }
      });
    }
  }
});

describe("references an agent cannot expand", () => {
  const refs: McpServer = {
    command: "srv",
    env: {
      SAME: "${SAME}",
      RENAMED: "${SOURCE}",
      DEFAULTED: "${UNSET:-fallback}",
      LITERAL: "plain",
    },
  };

  it("Codex forwards NAME: ${NAME} through env_vars, and leaves the server out for the rest", () => {
    expect(codex.mcpServer({ command: "srv", env: { SAME: "${SAME}", LITERAL: "plain" } })).toEqual({
      command: "srv",
      env: { LITERAL: "plain" },
      env_vars: ["SAME"],
    });
    const d = decide(codex, refs);
    expect(d.outcome).toBe("omitted");
    expect(d.omitted?.paths).toEqual(["env.RENAMED", "env.DEFAULTED"]);
    expect(d.omitted?.why).toContain(
      "resolve_env: true lets kanon fill in env.RENAMED, env.DEFAULTED at apply",
    );
  });

  it("Codex headers: a whole ${VAR} as env_http_headers, Bearer ${VAR} as bearer_token_env_var", () => {
    expect(
      codex.mcpServer({
        url: "https://h.example/mcp",
        headers: { "X-Ref": "${REF}", Authorization: "Bearer ${TOKEN}", "X-Lit": "v" },
      }),
    ).toEqual({
      url: "https://h.example/mcp",
      http_headers: { "X-Lit": "v" },
      env_http_headers: { "X-Ref": "REF" },
      bearer_token_env_var: "TOKEN",
    });
  });

  it("resolve_env fills in, from kanon's environment, only what the agent cannot say", () => {
    const env = { SAME: "kanon-same", SOURCE: "kanon-source" };
    const d = decide(codex, { ...refs, resolve_env: true }, env);
    expect(d.outcome).toBe("translated");
    expect(d.resolved).toEqual(["env.RENAMED", "env.DEFAULTED"]);
    expect(codex.mcpServer(d.render!)).toEqual({
      command: "srv",
      env: { RENAMED: "kanon-source", DEFAULTED: "fallback", LITERAL: "plain" },
      env_vars: ["SAME"],
    });
    const k = decide(kimi, { ...refs, resolve_env: true }, env);
    expect(k.resolved).toEqual(["env.RENAMED", "env.DEFAULTED"]);
    expect(kimi.mcpServer(k.render!)).toEqual({
      command: "srv",
      env: { RENAMED: "kanon-source", DEFAULTED: "fallback", LITERAL: "plain" },
    });
  });

  it("OpenCode takes {env:VAR} but no default; Claude and Gemini expand both", () => {
    const o = decide(opencode, refs);
    expect(o.omitted?.paths).toEqual(["env.DEFAULTED"]);
    for (const agent of [claude, gemini]) {
      const d = decide(agent, refs);
      expect(d.outcome).not.toBe("omitted");
      expect(d.resolved).toEqual([]);
    }
  });

  it("resolves env_headers and bearer_token_env_var into header values for Kimi", () => {
    const d = decide(
      kimi,
      { url: "https://h.example/mcp", env_headers: { "X-Env": "X_ENV" }, resolve_env: true },
      { X_ENV: "v" },
    );
    expect(d.resolved).toEqual(["env_headers.X-Env"]);
    expect(kimi.mcpServer(d.render!)).toEqual({ url: "https://h.example/mcp", headers: { "X-Env": "v" } });
  });

  it("no agent's entry ever holds a ${…} it would pass as text (property)", () => {
    const name = fc.constantFrom("A", "B", "TOKEN");
    const value = fc.oneof(
      fc.constantFrom("plain", "x y"),
      name.map((n) => `\${${n}}`),
      name.map((n) => `\${${n}:-d}`),
      name.map((n) => `pre-\${${n}}`),
    );
    const server = fc.record(
      {
        command: fc.constant("srv"),
        args: fc.array(value, { maxLength: 2 }),
        env: fc.dictionary(name, value, { maxKeys: 3 }),
        resolve_env: fc.boolean(),
      },
      { requiredKeys: ["command"] },
    );
    fc.assert(
      fc.property(server, (s) => {
        for (const agent of AGENTS) {
          const d = decide(agent, s, { A: "a" });
          if (!d.render) continue;
          const text = JSON.stringify(agent.mcpServer(d.render));
          if (agent.manifest.mcp.variables === "as-written") expect(text).not.toMatch(/\$\{/);
        }
      }),
    );
  });
});
