// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` env references are data in these tests
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import {
  encodeToml,
  encodeTomlKey,
  encodeTomlNumber,
  encodeTomlString,
  encodeTomlTable,
  encodeTomlValue,
} from "../../src/formats/toml.js";
import { KanonError } from "../../src/model/types.js";

describe("encodeToml (go-toml v2 default encoder)", () => {
  it("reproduces the Codex example of the reference spec (§4.4) byte for byte", () => {
    const doc = {
      mcp_servers: {
        "remote.api": {
          url: "https://mcp.example.com/mcp",
          bearer_token_env_var: "MCP_TOKEN",
          env_http_headers: { "X-Env": "X_ENV" },
        },
        context: {
          command: "context-server",
          args: ["--stdio"],
          env: { TOKEN: "${CONTEXT_TOKEN:-unset}", PLAIN: "it's" },
          startup_timeout_sec: 5,
        },
      },
    };
    expect(encodeToml(doc)).toBe(`[mcp_servers]
[mcp_servers.context]
args = ['--stdio']
command = 'context-server'
startup_timeout_sec = 5

[mcp_servers.context.env]
PLAIN = "it's"
TOKEN = '\${CONTEXT_TOKEN:-unset}'

[mcp_servers.'remote.api']
bearer_token_env_var = 'MCP_TOKEN'
url = 'https://mcp.example.com/mcp'

[mcp_servers.'remote.api'.env_http_headers]
X-Env = 'X_ENV'
`);
  });

  it("puts key/values before sub-tables, with go-toml's blank lines", () => {
    const doc = { z: 1, a: { y: true, sub: { k: "v" }, other: {} }, b: {}, m: "s" };
    expect(encodeToml(doc)).toBe(`m = 's'
z = 1

[a]
y = true

[a.other]

[a.sub]
k = 'v'

[b]
`);
    expect(encodeToml({})).toBe("");
  });

  it("writes arrays of tables as [[headers]] and mixed arrays inline", () => {
    const doc = {
      hooks: {
        SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: "/x.sh", timeout: 10 }] }],
      },
      mixed: [1, "a", { z: 1, y: [] }],
      empty: [],
    };
    expect(encodeToml(doc)).toBe(`empty = []
mixed = [1, 'a', {y = [], z = 1}]

[hooks]
[[hooks.SessionStart]]
matcher = 'startup'

[[hooks.SessionStart.hooks]]
command = '/x.sh'
timeout = 10
type = 'command'
`);
    expect(parse(encodeToml(doc))).toEqual(doc);
  });

  it("separates the items of an array of tables with blank lines", () => {
    expect(encodeToml({ t: [{ a: 1 }, {}, { b: { c: 2 } }] })).toBe(
      "[[t]]\na = 1\n\n[[t]]\n\n[[t]]\n[t.b]\nc = 2\n",
    );
  });

  it("quotes strings as go-toml does", () => {
    expect(encodeTomlString('plain ${X:-y} \\ "q"')).toBe("'plain ${X:-y} \\ \"q\"'");
    expect(encodeTomlString("tab\there")).toBe("'tab\there'");
    expect(encodeTomlString("it's")).toBe('"it\'s"');
    expect(encodeTomlString('a\nb\r\\"\t')).toBe('"a\\nb\\r\\\\\\"\\t"');
    expect(encodeTomlString("\u0000\u001b\u007f\b\f")).toBe('"\\u0000\\u001B\\u007F\\b\\f"');
    expect(encodeTomlString("é \u{1F600} \u2028")).toBe("'é \u{1F600} \u2028'");
  });

  it("writes keys bare, 'literal' or \"basic\"", () => {
    expect(encodeTomlKey("A-z_0")).toBe("A-z_0");
    expect(encodeTomlKey("remote.api")).toBe("'remote.api'");
    expect(encodeTomlKey("/home/me/repo")).toBe("'/home/me/repo'");
    expect(encodeTomlKey("it's")).toBe('"it\'s"');
    expect(encodeTomlKey("a\tb")).toBe("'a\tb'");
    expect(encodeTomlKey("a\nb")).toBe('"a\\nb"');
    expect(encodeTomlKey("")).toBe("''");
    expect(encodeTomlKey("é")).toBe("'é'");
  });

  it("writes integers in decimal and floats without exponents", () => {
    expect(encodeTomlNumber(5)).toBe("5");
    expect(encodeTomlNumber(-42)).toBe("-42");
    expect(encodeTomlNumber(0.1)).toBe("0.1");
    expect(encodeTomlNumber(1.5e-7)).toBe("0.00000015");
    expect(encodeTomlNumber(-2.5e-10)).toBe("-0.00000000025");
    // Integral values past 2^53 can only have been floats: go-toml writes them in full with ".0".
    expect(encodeTomlNumber(1e21)).toBe("1000000000000000000000.0");
    expect(encodeTomlNumber(Number.NaN)).toBe("nan");
    expect(encodeTomlNumber(Number.NEGATIVE_INFINITY)).toBe("-inf");
    expect(encodeTomlValue(10n)).toBe("10");
  });

  it("skips null members like go-toml skips nil, and refuses null inside arrays", () => {
    expect(encodeToml({ a: null, b: { c: undefined, d: 1 } })).toBe("[b]\nd = 1\n");
    expect(encodeTomlValue({ a: null, b: 1 })).toBe("{b = 1}");
    expect(() => encodeToml({ a: [1, null] })).toThrow(KanonError);
  });

  it("renders one table block at a path, as inside a larger document", () => {
    const server = { command: "x", env: { A: "1" }, tools: { search: { approval: "auto" } } };
    expect(encodeTomlTable(["mcp_servers", "my.server"], server)).toBe(`[mcp_servers.'my.server']
command = 'x'

[mcp_servers.'my.server'.env]
A = '1'

[mcp_servers.'my.server'.tools]
[mcp_servers.'my.server'.tools.search]
approval = 'auto'
`);
    const full = encodeToml({ mcp_servers: { "my.server": server } });
    expect(full).toBe(`[mcp_servers]\n${encodeTomlTable(["mcp_servers", "my.server"], server)}`);
  });
});
