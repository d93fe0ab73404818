/** Per-agent overrides as `kanon mcp` and validation see them: each agent's server is the one its override makes. */
import { describe, expect, it } from "vitest";
import { sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();

describe("per-agent overrides", () => {
  it("kanon mcp decides each agent's server with its override applied", async () => {
    s.writeHome(
      [
        "version: 1",
        "agents: [codex, claude, kimi]",
        "mcp:",
        "  servers:",
        "    api:",
        "      command: api-mcp",
        "      env: { URL: '${API_URL:-https://api.example}' }",
        "      overrides:",
        "        codex: { env: { URL: https://api.example } }",
        "        kimi: { env: { URL: https://api.example } }",
        "",
      ].join("\n"),
    );
    const r = await s.k("mcp");
    expect(r.status).toBe(0);
    // Without the overrides, Codex and Kimi Code would get `${API_URL:-…}` as text: left out.
    expect(r.stdout).toContain(
      "SERVER  CODEX       CLAUDE      KIMI\napi     translated  as written  translated\n",
    );
    expect(r.stdout).not.toContain(": left out:");
    const apply = await s.k("apply", "--yes");
    expect(apply.status).toBe(0);
    expect(s.read(".codex/config.toml")).toContain("URL = 'https://api.example'");
    expect(s.read(".claude.json")).toContain('"URL": "${API_URL:-https://api.example}"');
  });

  it("a value an agent cannot take, set by its override, is an error at the override", async () => {
    s.writeHome(
      [
        "version: 1",
        "agents: [kimi]",
        "mcp:",
        "  servers:",
        "    api:",
        "      command: api-mcp",
        "      targets: [kimi]",
        "      overrides:",
        "        kimi:",
        "          env: { API_KEY: '${OTHER_TOKEN}' }",
        "",
      ].join("\n"),
    );
    const r = await s.k("validate");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^kanon\.yaml:10:\d+: mcp server "api" targets kimi but Kimi Code would pass \$\{OTHER_TOKEN\} in env\.API_KEY to the server as written/,
    );
  });
});
