// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` env references are data in these tests
import { describe, expect, it } from "vitest";
import { mergeCoOwned } from "../../../src/destination/edit/index.js";
import { encodeJson } from "../../../src/formats/json.js";
import { KanonError, type MergeSpec } from "../../../src/model/types.js";
import { fixture, mergeChecked, replaceOnce } from "./support.js";

const claudeMcp: MergeSpec = { kind: "entries", format: "json", key: "mcpServers" };
const claudeSettings: MergeSpec = { kind: "value", format: "json", key: "hooks" };
const opencode: MergeSpec = { kind: "entries", format: "jsonc", key: "mcp" };

describe("~/.claude.json (large, strict JSON, mcpServers by name)", () => {
  const existing = fixture("claude.json");

  it("changes a compact one-line server in place and touches nothing else", () => {
    const github = {
      type: "stdio",
      command: "github-mcp",
      args: ["stdio"],
      env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" },
    };
    const result = mergeChecked(existing, claudeMcp, { mcpServers: { github } });
    expect(result).toBe(
      replaceOnce(
        existing,
        '"command": "old-github-mcp", "args": ["stdio"]',
        '"command": "github-mcp", "args": ["stdio"]',
      ),
    );
  });

  it("changes members of a multi-line server: replaced, removed and added members", () => {
    const filesystem = {
      type: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem", "/home/dev/src", "/tmp"],
      timeout: 30,
    };
    const result = mergeChecked(existing, claudeMcp, { mcpServers: { filesystem } });
    expect(result).toBe(
      replaceOnce(
        existing,
        `        "/home/dev/src"
      ],
      "env": {}
    },`,
        `        "/home/dev/src",
        "/tmp"
      ],
      "timeout": 30
    },`,
      ),
    );
  });

  it("adds a new server after the last one, formatted like its siblings", () => {
    const context = {
      type: "stdio",
      command: "context-server",
      args: ["--stdio"],
      env: { TOKEN: "${TOKEN:-x}" },
    };
    const result = mergeChecked(existing, claudeMcp, { mcpServers: { context } });
    expect(result).toBe(
      replaceOnce(
        existing,
        `      "url": "https://mcp.sentry.dev/mcp"
    }
  },`,
        `      "url": "https://mcp.sentry.dev/mcp"
    },
    "context": {
      "args": [
        "--stdio"
      ],
      "command": "context-server",
      "env": {
        "TOKEN": "\${TOKEN:-x}"
      },
      "type": "stdio"
    }
  },`,
      ),
    );
  });

  it("returns the very same string when the managed servers already match", () => {
    const sentry = { url: "https://mcp.sentry.dev/mcp", type: "http" };
    expect(mergeCoOwned(existing, claudeMcp, { mcpServers: { sentry } }, "~/.claude.json")).toBe(existing);
    expect(mergeCoOwned(existing, claudeMcp, { mcpServers: {} }, "~/.claude.json")).toBe(existing);
  });

  it("adds mcpServers when the file has none, after the last top-level member", () => {
    const text = '{\n    "numUserStartups": 1,\n    "theme": "dark"\n}';
    const result = mergeChecked(text, claudeMcp, { mcpServers: { s: { command: "x" } } });
    expect(result).toBe(
      '{\n    "numUserStartups": 1,\n    "theme": "dark",\n    "mcpServers": {\n        "s": {\n            "command": "x"\n        }\n    }\n}',
    );
  });

  it("merges into a megabyte .claude.json, keeping every byte before the managed entry", () => {
    const projects: Record<string, unknown> = {};
    for (let i = 0; i < 2500; i++) {
      projects[`/home/dev/src/project-${i}`] = {
        allowedTools: [],
        history: [{ display: `fix the failing test number ${i}`, pastedContents: {} }],
        mcpServers: {},
        hasTrustDialogAccepted: i % 2 === 0,
        lastCost: 0.1234 * i,
        lastModelUsage: { "claude-sonnet-4-5": { inputTokens: i, outputTokens: 2 * i } },
      };
    }
    const big = `${JSON.stringify({ numUserStartups: 3, projects, mcpServers: { private: { command: "p" } } }, null, 2)}\n`;
    expect(big.length).toBeGreaterThan(1_000_000);
    const managed = { mcpServers: { github: { type: "stdio", command: "github-mcp" } } };
    // Its speed is measured by npm run bench (a 1 MB ~/.claude.json), not here.
    const result = mergeCoOwned(big, claudeMcp, managed, "~/.claude.json");
    expect(result.startsWith(big.slice(0, big.lastIndexOf('"private"')))).toBe(true);
    expect(JSON.parse(result).mcpServers.github.command).toBe("github-mcp");
  });
});

describe("project .mcp.json", () => {
  it("adds a server next to a private one", () => {
    const existing = fixture("mcp.json");
    const result = mergeChecked(existing, claudeMcp, {
      mcpServers: { github: { command: "gh", type: "stdio" } },
    });
    expect(result).toBe(
      replaceOnce(
        existing,
        '      "type": "stdio"\n    }\n',
        '      "type": "stdio"\n    },\n    "github": {\n      "command": "gh",\n      "type": "stdio"\n    }\n',
      ),
    );
  });
});

describe("Claude settings.json (hooks replaced as a whole)", () => {
  const existing = fixture("claude-settings.json");

  it("replaces hooks: old events go, changed members change in place, the rest stays", () => {
    const hooks = {
      PostToolUse: [
        { matcher: "Bash", hooks: [{ type: "command", command: "tee -a 2>>/tmp/claude-log", timeout: 10 }] },
      ],
    };
    const result = mergeChecked(existing, claudeSettings, { hooks });
    const expected = replaceOnce(
      existing,
      `  "hooks": {
    "Old": [
      {
        "hooks": [
          {
            "command": "echo old",
            "type": "command"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "hooks": [
          {
            "command": "npx prettier --write \\"$CLAUDE_FILE_PATHS\\"",
            "type": "command"
          }
        ],
        "matcher": "Edit|Write"
      }
    ]
  },`,
      `  "hooks": {
    "PostToolUse": [
      {
        "hooks": [
          {
            "command": "tee -a 2>>/tmp/claude-log",
            "type": "command",
            "timeout": 10
          }
        ],
        "matcher": "Bash"
      }
    ]
  },`,
    );
    expect(result).toBe(expected);
  });

  it("adds hooks to a settings file without them, keeping everything else", () => {
    const text = '{\n  "theme": "dark", // mine\n  "permissions": {"allow": []}\n}\n';
    const hooks = { Stop: [{ hooks: [{ command: "say done", type: "command" }] }] };
    expect(mergeChecked(text, claudeSettings, { hooks })).toBe(
      '{\n  "theme": "dark", // mine\n  "permissions": {"allow": []},\n  "hooks": {\n    "Stop": [\n      {\n        "hooks": [\n          {\n            "command": "say done",\n            "type": "command"\n          }\n        ]\n      }\n    ]\n  }\n}\n',
    );
  });

  it("replaces a hooks value of another type", () => {
    const text = '{\n  "hooks": "none",\n  "theme": "dark"\n}\n';
    expect(mergeChecked(text, claudeSettings, { hooks: {} })).toBe(
      '{\n  "hooks": {},\n  "theme": "dark"\n}\n',
    );
  });

  it("is a no-op when hooks already match, whatever their layout", () => {
    const text = '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}';
    const hooks = { Stop: [{ hooks: [{ command: "x", type: "command" }] }] };
    expect(mergeCoOwned(text, claudeSettings, { hooks }, "settings.json")).toBe(text);
  });
});

describe("opencode.jsonc (comments and trailing commas)", () => {
  const existing = fixture("opencode.jsonc");

  it("changes a server, keeping one-line arrays on one line and every comment", () => {
    const github = {
      type: "local",
      command: ["github-mcp", "stdio"],
      environment: { GITHUB_TOKEN: "{env:GITHUB_TOKEN}" },
    };
    const result = mergeChecked(existing, opencode, { mcp: { github } });
    expect(result).toBe(
      replaceOnce(
        existing,
        '"command": ["npx", "-y", "@modelcontextprotocol/server-github"],',
        '"command": ["github-mcp", "stdio"],',
      ),
    );
  });

  it("adds a server after the last one, following the trailing-comma habit", () => {
    const docs = { type: "remote", url: "https://docs.example.com/mcp", enabled: false };
    const result = mergeChecked(existing, opencode, { mcp: { docs } });
    expect(result).toBe(
      replaceOnce(
        existing,
        `      "headers": { "CONTEXT7_API_KEY": "{env:CONTEXT7_API_KEY}" },
    },
`,
        `      "headers": { "CONTEXT7_API_KEY": "{env:CONTEXT7_API_KEY}" },
    },
    "docs": {
      "enabled": false,
      "type": "remote",
      "url": "https://docs.example.com/mcp"
    },
`,
      ),
    );
  });

  it("removes members of a changed server together with their lines", () => {
    const github = { type: "local", command: ["npx", "-y", "@modelcontextprotocol/server-github"] };
    const result = mergeChecked(existing, opencode, { mcp: { github } });
    expect(result).toBe(
      replaceOnce(
        existing,
        `      "command": ["npx", "-y", "@modelcontextprotocol/server-github"],
      "environment": {
        "GITHUB_TOKEN": "{env:GITHUB_TOKEN}",
      },
`,
        `      "command": ["npx", "-y", "@modelcontextprotocol/server-github"],
`,
      ),
    );
  });

  it("accepts opencode.json without comments too", () => {
    const text = '{\n  "model": "x",\n  "mcp": {}\n}\n';
    expect(mergeChecked(text, opencode, { mcp: { a: { type: "local", command: ["a"] } } })).toBe(
      '{\n  "model": "x",\n  "mcp": {\n    "a": {\n      "command": [\n        "a"\n      ],\n      "type": "local"\n    }\n  }\n}\n',
    );
  });
});

describe("layout details", () => {
  it("keeps CRLF line endings and a missing final newline", () => {
    const text = '{\r\n  "a": 1,\r\n  "mcpServers": {\r\n    "p": {}\r\n  }\r\n}';
    const result = mergeChecked(text, claudeMcp, { mcpServers: { s: { args: ["1"] } } });
    expect(result).toBe(
      '{\r\n  "a": 1,\r\n  "mcpServers": {\r\n    "p": {},\r\n    "s": {\r\n      "args": [\r\n        "1"\r\n      ]\r\n    }\r\n  }\r\n}',
    );
  });

  it("uses the document's tab indentation", () => {
    const text = '{\n\t"mcpServers": {\n\t\t"p": {\n\t\t\t"command": "p"\n\t\t}\n\t}\n}\n';
    expect(mergeChecked(text, claudeMcp, { mcpServers: { s: { env: { A: "1" } } } })).toBe(
      '{\n\t"mcpServers": {\n\t\t"p": {\n\t\t\t"command": "p"\n\t\t},\n\t\t"s": {\n\t\t\t"env": {\n\t\t\t\t"A": "1"\n\t\t\t}\n\t\t}\n\t}\n}\n',
    );
  });

  it("edits compact one-line objects in their own style", () => {
    const text = '{"mcpServers": {"g": {"a": 1, "b": 2, "c": 3}, "h": {"x":1}}}';
    expect(mergeChecked(text, claudeMcp, { mcpServers: { g: { a: 1, d: [4] } } })).toBe(
      '{"mcpServers": {"g": {"a": 1, "d": [4]}, "h": {"x":1}}}',
    );
    expect(mergeChecked(text, claudeMcp, { mcpServers: { i: { y: 2 } } })).toBe(
      '{"mcpServers": {"g": {"a": 1, "b": 2, "c": 3}, "h": {"x":1}, "i": {"y": 2}}}',
    );
  });

  it("keeps a comment that trails the member a new one is added after", () => {
    const text = '{\n  "mcpServers": {\n    "p": {} // private\n  }\n}\n';
    expect(mergeChecked(text, claudeMcp, { mcpServers: { s: {} } })).toBe(
      '{\n  "mcpServers": {\n    "p": {}, // private\n    "s": {}\n  }\n}\n',
    );
  });

  it("keeps a byte-order mark", () => {
    const text = '\uFEFF{\n  "a": 1\n}\n';
    expect(mergeCoOwned(text, claudeMcp, { mcpServers: {} }, "x.json")).toBe(
      '\uFEFF{\n  "a": 1,\n  "mcpServers": {}\n}\n',
    );
  });

  it("keeps an earlier duplicate of a key and edits the one that counts (the last)", () => {
    const text = '{"mcpServers": {"a": 1}, "mcpServers": {"b": {"x": 1}}}';
    expect(mergeChecked(text, claudeMcp, { mcpServers: { b: { x: 2 } } })).toBe(
      '{"mcpServers": {"a": 1}, "mcpServers": {"b": {"x": 2}}}',
    );
  });

  it("writes a new server compactly when all its siblings are compact one-liners", () => {
    const text = '{\n  "mcpServers": {\n    "a": {"command": "a"},\n    "b": {"command": "b"}\n  }\n}\n';
    expect(mergeChecked(text, claudeMcp, { mcpServers: { c: { command: "c", args: ["x"] } } })).toBe(
      '{\n  "mcpServers": {\n    "a": {"command": "a"},\n    "b": {"command": "b"},\n    "c": {"args": ["x"], "command": "c"}\n  }\n}\n',
    );
  });

  it("keeps the comments of an empty object it adds to", () => {
    const text = '{\n  "mcp": {\n    // servers go here\n  },\n}\n';
    expect(mergeChecked(text, opencode, { mcp: { a: { type: "local" } } })).toBe(
      '{\n  "mcp": {\n    // servers go here\n    "a": {\n      "type": "local"\n    }\n  },\n}\n',
    );
  });

  it("handles a server named __proto__ as an ordinary key", () => {
    const text = '{\n  "mcpServers": {\n    "__proto__": {"command": "old"}\n  }\n}\n';
    const managed = JSON.parse('{"mcpServers": {"__proto__": {"command": "new"}}}');
    const result = mergeCoOwned(text, claudeMcp, managed, "x.json");
    expect(result).toBe(text.replace('"old"', '"new"'));
    expect(Object.keys(JSON.parse(result).mcpServers)).toEqual(["__proto__"]);
  });

  it("keeps the comments of a comment-only JSONC file and adds the document after them", () => {
    const managed = { mcp: { a: { type: "local" } } };
    expect(mergeChecked("// nothing yet\n", opencode, managed)).toBe(
      `// nothing yet\n${encodeJson(managed)}`,
    );
  });
});

describe("empty files and errors", () => {
  it("treats an empty or whitespace-only file as an empty document", () => {
    const managed = { mcpServers: { b: { command: "b" }, a: { command: "a" } } };
    expect(mergeCoOwned("", claudeMcp, managed, "x")).toBe(encodeJson(managed));
    expect(mergeCoOwned(" \n\t\n", claudeMcp, managed, "x")).toBe(encodeJson(managed));
    expect(mergeCoOwned("\n", claudeSettings, { hooks: {} }, "x")).toBe('{\n  "hooks": {}\n}\n');
  });

  const failures: [string, string, MergeSpec, string][] = [
    [
      "unparsable",
      '{\n  "a": 1,,\n}',
      claudeMcp,
      "cannot parse ~/.claude.json for merge: property name expected at 2:10",
    ],
    [
      "unterminated",
      '{"a": "x',
      claudeMcp,
      "cannot parse ~/.claude.json for merge: unexpected end of string at 1:7",
    ],
    [
      "entries not an object",
      '{"mcpServers": []}',
      claudeMcp,
      "cannot merge ~/.claude.json: mcpServers is not an object",
    ],
    [
      "entries a string",
      '{"mcpServers": "x"}',
      claudeMcp,
      "cannot merge ~/.claude.json: mcpServers is not an object",
    ],
    ["top level array", "[1, 2]", claudeMcp, "cannot merge ~/.claude.json: top level is not an object"],
    ["top level string", '"x"', claudeSettings, "cannot merge ~/.claude.json: top level is not an object"],
  ];
  it("refuses managed entries that are not an object", () => {
    expect(() => mergeCoOwned("{}", claudeMcp, { mcpServers: [] }, "x.json")).toThrow(
      "cannot merge x.json: kanon's mcpServers is not an object",
    );
  });

  it.each(failures)("%s", (_name, text, spec, message) => {
    const managed = { [spec.key]: {} };
    expect(() => mergeCoOwned(text, spec, managed, "~/.claude.json")).toThrow(KanonError);
    expect(() => mergeCoOwned(text, spec, managed, "~/.claude.json")).toThrow(message);
  });
});
