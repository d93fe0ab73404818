/** Kimi Code's mcp.json passes `${VAR}` as written: what kanon renders, warns about and refuses. */
import { describe, expect, it } from "vitest";
import { sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();
const { k } = s;

const servers = (body: string) => s.writeHome(`version: 1\nagents: [kimi]\nmcp:\n  servers:\n${body}`);

describe("Kimi Code MCP servers and ${VAR}", () => {
  it("writes a forwarded variable and a bearer header natively", async () => {
    servers(
      [
        "    github:",
        "      command: github-mcp",
        "      env: { GITHUB_TOKEN: '${GITHUB_TOKEN}', LEVEL: debug }",
        "    tracker:",
        "      url: https://mcp.tracker.example/mcp",
        "      headers: { Authorization: 'Bearer ${TRACKER_TOKEN}' }",
        "",
      ].join("\n"),
    );
    const r = await k("apply", "--yes");
    expect(r.status).toBe(0);
    expect(JSON.parse(s.read(".kimi-code/mcp.json"))).toEqual({
      mcpServers: {
        github: { command: "github-mcp", env: { LEVEL: "debug" } },
        tracker: { url: "https://mcp.tracker.example/mcp", bearerTokenEnvVar: "TRACKER_TOKEN" },
      },
    });
  });

  it("leaves out, with a warning, a server that would get a reference as text", async () => {
    servers(
      [
        "    renamed:",
        "      command: srv",
        "      env: { API_KEY: '${OTHER_TOKEN}' }",
        "    plain:",
        "      command: plain",
        "",
      ].join("\n"),
    );
    const r = await k("apply", "--yes");
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      'warning: mcp server "renamed" is not rendered for kimi: Kimi Code would pass ${OTHER_TOKEN} in env.API_KEY to the server as written (it does not expand variables in mcp.json); resolve_env: true lets kanon fill in env.API_KEY at apply\n',
    );
    expect(JSON.parse(s.read(".kimi-code/mcp.json"))).toEqual({
      mcpServers: { plain: { command: "plain" } },
    });
  });

  it("does not warn when Kimi is not rendered", async () => {
    s.writeHome(
      "version: 1\nmcp:\n  servers:\n    renamed:\n      command: srv\n      env: { API_KEY: '${OTHER_TOKEN}' }\n",
    );
    expect((await k("render")).stderr).not.toContain("not rendered for kimi");
  });

  it("refuses it when its targets name kimi, saying where, and writes nothing", async () => {
    servers(
      [
        "    pinned:",
        "      url: https://mcp.pinned.example/mcp",
        "      headers: { X-Key: '${KEY:-anon}' }",
        "      targets: [kimi]",
        "",
      ].join("\n"),
    );
    expect(await k("apply", "--yes")).toMatchObject({
      status: 1,
      stderr:
        'kanon.yaml:7:25: mcp server "pinned" targets kimi but Kimi Code would pass ${KEY} in headers.X-Key to the server as written (it does not expand variables in mcp.json); resolve_env: true lets kanon fill in headers.X-Key at apply\n',
    });
    expect(s.exists(".kimi-code")).toBe(false);
  });
});
