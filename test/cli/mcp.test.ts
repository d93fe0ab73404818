/** `kanon mcp`, and MCP servers the agents get in their own spelling (resolve_env, fields left out). */
import { statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();

const HOME = [
  "version: 1",
  "agents: [codex, claude, kimi]",
  "mcp:",
  "  servers:",
  "    api:",
  "      command: api-mcp",
  "      env: { TOKEN: '${TOKEN}', URL: '${API_URL:-https://api.example}' }",
  "      enabled_tools: [search]",
  "",
].join("\n");

describe("kanon mcp", () => {
  it("prints every server × agent with how it renders and why", async () => {
    s.writeHome(HOME);
    const r = await s.run(["--home", s.kh, "mcp"], { env: { TOKEN: "t" } });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      "SERVER  CODEX     CLAUDE                        KIMI\napi     left out  translated (fields left out)  left out\n",
    );
    expect(r.stdout).toContain(
      "api → codex: left out: Codex CLI would pass ${API_URL} in env.URL to the server as written (it does not expand variables in config.toml); resolve_env: true lets kanon fill in env.URL at apply",
    );
    expect(r.stdout).toContain(
      "api → claude: enabled_tools left out: Claude Code's MCP entry has no tool filter; every tool of the server is offered",
    );
  });

  it("--json gives the decisions, with the values kanon resolves at apply", async () => {
    s.writeHome(HOME.replace("      enabled_tools: [search]\n", "      resolve_env: true\n"));
    const r = await s.run(["--home", s.kh, "mcp", "--json"], { env: { TOKEN: "t" } });
    const doc = JSON.parse(r.stdout) as { servers: { agent: string; outcome: string; resolved: string[] }[] };
    expect(doc.servers.map((d) => [d.agent, d.outcome, d.resolved])).toEqual([
      ["codex", "translated", ["env.URL"]],
      ["claude", "as-written", []],
      ["kimi", "translated", ["env.URL"]],
    ]);
  });

  it("--strict exits 1 when a server is not rendered as written", async () => {
    s.writeHome(HOME);
    expect((await s.run(["--home", s.kh, "mcp", "--strict"], { env: { TOKEN: "t" } })).status).toBe(1);
  });
});

describe("resolve_env", () => {
  it("writes what Codex can say natively and the resolved rest, in a private file", async () => {
    s.writeHome(HOME.replace("      enabled_tools: [search]\n", "      resolve_env: true\n"));
    const r = await s.run(["--home", s.kh, "--agent", "codex", "apply", "--yes"], {
      env: { TOKEN: "kanon-token" },
    });
    expect(r.status).toBe(0);
    expect(s.read(".codex/config.toml")).toBe(
      "[mcp_servers]\n[mcp_servers.api]\ncommand = 'api-mcp'\nenv_vars = ['TOKEN']\n\n[mcp_servers.api.env]\nURL = 'https://api.example'\n",
    );
    expect(statSync(join(s.home, ".codex/config.toml")).mode & 0o777).toBe(0o600);
  });

  it("without it, a server the agent would get a reference as text for is an error for an explicit target", async () => {
    s.writeHome(HOME.replace("      enabled_tools: [search]\n", "      targets: [codex]\n"));
    const r = await s.run(["--home", s.kh, "apply", "--yes"], { env: { TOKEN: "t" } });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'kanon.yaml:7:38: mcp server "api" targets codex but Codex CLI would pass ${API_URL} in env.URL to the server as written (it does not expand variables in config.toml); resolve_env: true lets kanon fill in env.URL at apply\n',
    );
    expect(s.exists(".codex")).toBe(false);
  });
});
