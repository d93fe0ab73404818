/** MCP server entries for Gemini CLI (settings.json mcpServers) and Kimi Code (mcp.json mcpServers). */
import { describe, expect, it } from "vitest";
import { gemini } from "../../src/agents/gemini/index.js";
import { kimi } from "../../src/agents/kimi/index.js";

describe("Gemini CLI MCP servers", () => {
  it("writes stdio servers with Gemini's millisecond timeout and tool filters", () => {
    expect(
      gemini.mcpServer({
        command: "srv",
        args: ["--stdio"],
        env: { T: "${T}" },
        tool_timeout_sec: 30,
        enabled_tools: ["a"],
      }),
    ).toEqual({ command: "srv", args: ["--stdio"], env: { T: "${T}" }, timeout: 30000, includeTools: ["a"] });
  });

  it("writes remote servers as url + type, with env headers and the bearer token as ${VAR} (Gemini expands them)", () => {
    expect(
      gemini.mcpServer({
        url: "https://x/mcp",
        env_headers: { "X-K": "K" },
        bearer_token_env_var: "TOK",
        type: "sse",
      }),
    ).toEqual({
      url: "https://x/mcp",
      type: "sse",
      headers: { "X-K": "${K}", Authorization: "Bearer ${TOK}" },
    });
  });
});

describe("Kimi Code MCP servers", () => {
  it("writes stdio servers with millisecond timeouts; NAME: ${NAME} is inherited rather than passed literally", () => {
    expect(
      kimi.mcpServer({
        command: "srv",
        env: { TOKEN: "${TOKEN}", PLAIN: "p" },
        startup_timeout_sec: 5,
        tool_timeout_sec: 30,
        disabled_tools: ["rm"],
      }),
    ).toEqual({
      command: "srv",
      env: { PLAIN: "p" },
      startupTimeoutMs: 5000,
      toolTimeoutMs: 30000,
      disabledTools: ["rm"],
    });
  });

  it("writes remote servers with bearerTokenEnvVar and an explicit transport for SSE", () => {
    expect(kimi.mcpServer({ url: "https://x/sse", type: "sse", bearer_token_env_var: "TOK" })).toEqual({
      transport: "sse",
      url: "https://x/sse",
      bearerTokenEnvVar: "TOK",
    });
  });
});
