/**
 * A machine the Go original applied keeps working: its files (re-serialised whole by the Go tool, in
 * go-toml's and encoding/json's formats, with the user's other settings) show no drift.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();

const KANON_YAML = `version: 1
mcp:
  servers:
    context:
      command: context-server
      args: ["--stdio"]
      env:
        PLAIN: "it's"
        TOKEN: \${CONTEXT_TOKEN:-unset}
      startup_timeout_sec: 5
    remote.api:
      url: https://mcp.example.com/mcp
      env_headers:
        X-Env: X_ENV
      bearer_token_env_var: MCP_TOKEN
hooks:
  - name: log
    event: PostToolUse
    matcher: Bash
    command: echo done 2>>/tmp/claude-log
    timeout: 5
`;

/** config.toml as the Go tool writes it after merging: the whole document through go-toml v2. */
const GO_CONFIG_TOML = `approval_policy = 'never'
model = 'gpt-5.5'

[mcp_servers]
[mcp_servers.context]
args = ['--stdio']
command = 'context-server'
startup_timeout_sec = 5

[mcp_servers.context.env]
PLAIN = "it's"
TOKEN = '\${CONTEXT_TOKEN:-unset}'

[mcp_servers.private]
command = 'mine'

[mcp_servers.'remote.api']
bearer_token_env_var = 'MCP_TOKEN'
url = 'https://mcp.example.com/mcp'

[mcp_servers.'remote.api'.env_http_headers]
X-Env = 'X_ENV'

[profiles]
[profiles.fast]
model = 'gpt-5.5-mini'
`;

const GO_SETTINGS_JSON = `{
  "hooks": {
    "PostToolUse": [
      {
        "hooks": [
          {
            "command": "echo done 2>>/tmp/claude-log",
            "timeout": 5,
            "type": "command"
          }
        ],
        "matcher": "Bash"
      }
    ]
  },
  "permissions": {
    "allow": [
      "Bash(git status)"
    ]
  },
  "theme": "dark"
}
`;

it("shows no changes on a destination the Go tool applied", async () => {
  const kh = join(s.work, "kanon-home");
  mkdirSync(kh);
  writeFileSync(join(kh, "kanon.yaml"), KANON_YAML);
  mkdirSync(join(s.home, ".codex"));
  mkdirSync(join(s.home, ".claude"));
  writeFileSync(join(s.home, ".codex/config.toml"), GO_CONFIG_TOML);
  writeFileSync(join(s.home, ".claude/settings.json"), GO_SETTINGS_JSON);
  const k = (...args: string[]) => s.run(["--home", kh, "--agent", ...args]);
  expect((await k("codex", "diff")).stdout).toContain(`+++ ${join(s.home, ".codex/hooks.json")}`);
  expect((await k("codex", "diff")).stdout).not.toContain("config.toml");
  expect((await k("claude", "diff")).stdout).not.toContain("settings.json");
  expect((await k("codex", "apply", "--yes")).status).toBe(0);
  expect(readFileSync(join(s.home, ".codex/config.toml"), "utf8")).toBe(GO_CONFIG_TOML);
  expect((await k("codex", "diff")).stdout).toBe("No changes.\n");
});
