/** Which MCP servers an agent would hand `${VAR}` as text (Kimi Code's mcp.json), from manifest data. */
import { describe, expect, it } from "vitest";
import { AGENTS } from "../../src/agents/index.js";
import { literalVariables } from "../../src/core/mcp-variables.js";
import type { McpServer } from "../../src/model/config.js";

const agent = (id: string) => AGENTS.find((a) => a.manifest.id === id)!;
const kimi = agent("kimi");

describe("literalVariables", () => {
  it("is empty for the agents that expand or convert references", () => {
    const server: McpServer = { command: "srv", args: ["${A}"], env: { B: "${C:-x}" } };
    for (const a of AGENTS.filter((a) => a.manifest.mcp.variables !== "as-written"))
      expect(literalVariables(a, server), a.manifest.id).toEqual([]);
  });

  it("lets through what Kimi says natively: a forwarded variable, a bearer header", () => {
    expect(literalVariables(kimi, { command: "srv", env: { TOKEN: "${TOKEN}", PLAIN: "x" } })).toEqual([]);
    expect(
      literalVariables(kimi, { url: "https://x.example", headers: { AUTHORIZATION: "Bearer ${T}" } }),
    ).toEqual([]);
    expect(kimi.mcpServer({ url: "https://x.example", headers: { AUTHORIZATION: "Bearer ${T}" } })).toEqual({
      url: "https://x.example",
      bearerTokenEnvVar: "T",
    });
  });

  it("names every reference Kimi would pass as text, and where", () => {
    expect(
      literalVariables(kimi, {
        command: "${BIN}",
        args: ["--t=${T}"],
        env: { A: "${B}", C: "${C:-d}" },
      }),
    ).toEqual(["${BIN} in command", "${T} in args[0]", "${B} in env.A", "${C} in env.C"]);
    expect(
      literalVariables(kimi, {
        url: "https://x.example/${P}",
        headers: { Authorization: "Token ${T}" },
        env_headers: { "X-K": "K" },
      }),
    ).toEqual(["${P} in url", "${T} in headers.Authorization", "${K} in headers.X-K"]);
  });
});
