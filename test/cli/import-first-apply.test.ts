// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` env references are data in these tests
/**
 * The first apply after `kanon import` on a machine whose agent files were written by hand: import
 * names every key whose meaning the render changes, `diff` shows exactly those, and apply changes
 * only their bytes; a later change in kanon.yaml changes only the bytes of the value that changes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();
const { k } = s;

const CLAUDE = `{
  "mcpServers": {
    "github": {"command": "github-mcp", "args": ["--stdio"], "env": {"GITHUB_TOKEN": "\${GITHUB_TOKEN}"}}
  }
}
`;
/** Comments, a multi-line array, an inline table, dotted keys, odd spacing and both quote styles. */
const CODEX = readFileSync(new URL("../fixtures/merge/codex-hand.toml", import.meta.url), "utf8");

const replaced = (text: string, ...pairs: [string, string][]) =>
  pairs.reduce((t, [from, to]) => {
    expect(t.split(from)).toHaveLength(2);
    return t.replace(from, to);
  }, text);

describe("import, then the first apply on a hand-written machine", () => {
  it("says what will change, diffs only that, and apply writes only that", async () => {
    s.writeFiles({ ".claude.json": CLAUDE, ".codex/config.toml": CODEX });
    const r = await k("import", "--write", "--no-git");
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      [
        'warning: skipped unsupported codex config field "model"',
        'warning: skipped unsupported codex profiles field "fast"',
        'warning: mcp server "github" for codex: env.GITHUB_TOKEN will be written as env_vars (Codex CLI does not expand ${GITHUB_TOKEN} in config.toml)',
        'warning: mcp server "notes" for codex: env.NOTES_TOKEN will be written as env_vars (Codex CLI does not expand ${NOTES_TOKEN} in config.toml)',
        "",
      ].join("\n"),
    );

    const config = join(s.home, ".codex/config.toml");
    expect((await k("diff")).stdout).toBe(
      [
        `${config} (codex): not written by kanon`,
        `--- ${config}`,
        `+++ ${config}`,
        "@@ -4,10 +4,8 @@",
        " [mcp_servers.github]",
        ' command = "github-mcp"',
        ' args = ["--stdio"]',
        '+env_vars = ["GITHUB_TOKEN"]',
        " ",
        "-[mcp_servers.github.env]",
        '-GITHUB_TOKEN = "${GITHUB_TOKEN}"',
        "-",
        " [mcp_servers.search]   # the search server",
        " # how it starts",
        ' command = "npx"',
        "@@ -22,7 +20,7 @@",
        " [mcp_servers.notes]",
        " command = 'notes-mcp'",
        " env.NOTES_DIR = '/home/dev/notes'",
        "-env.NOTES_TOKEN = '${NOTES_TOKEN}'",
        "+env_vars = ['NOTES_TOKEN']",
        " ",
        " [profiles.fast]",
        ' model = "o4-mini"',
        "",
      ].join("\n"),
    );

    expect((await k("apply", "--yes")).status).toBe(0);
    const applied = replaced(
      CODEX,
      [
        'args = ["--stdio"]\n\n[mcp_servers.github.env]\nGITHUB_TOKEN = "${GITHUB_TOKEN}"\n',
        'args = ["--stdio"]\nenv_vars = ["GITHUB_TOKEN"]\n',
      ],
      ["env.NOTES_TOKEN = '${NOTES_TOKEN}'\n", "env_vars = ['NOTES_TOKEN']\n"],
    );
    expect(s.read(".codex/config.toml")).toBe(applied);
    // Claude Code assumes `type: "stdio"`, which kanon writes in an entry it creates: no change.
    expect(s.read(".claude.json")).toBe(CLAUDE);
    expect((await k("diff")).stdout).toBe("No changes.\n");

    // One value changed in kanon.yaml: only its bytes change, in each agent's file.
    s.writeHome(
      replaced(
        s.readHome("kanon.yaml"),
        ["args: [--stdio]", "args: [--stdio, --verbose]"],
        ['args: [-y, "@acme/search-mcp"]', 'args: [-y, "@acme/search-mcp", --verbose]'],
      ),
    );
    expect((await k("apply", "--yes")).stdout).toBe("Applied 2 file change(s).\n");
    expect(s.read(".codex/config.toml")).toBe(
      replaced(
        applied,
        ['args = ["--stdio"]', 'args = ["--stdio", "--verbose"]'],
        [
          '[\n    "-y",          # install on demand\n    "@acme/search-mcp",\n]',
          '["-y", "@acme/search-mcp", "--verbose"]',
        ],
      ),
    );
    expect(s.read(".claude.json")).toBe(replaced(CLAUDE, ['["--stdio"]', '["--stdio", "--verbose"]']));
    expect((await k("diff")).stdout).toBe("No changes.\n");
  });

  it("names each key that moves, from the agent's own spelling to the one kanon writes", async () => {
    s.writeFiles({
      ".codex/config.toml":
        '[mcp_servers.api]\nurl = "https://api.example/mcp"\n\n[mcp_servers.api.http_headers]\nX-Key = "${API_KEY}"\n',
      ".claude.json": '{"mcpServers": {"slow": {"command": "slow-mcp", "startup_timeout_sec": 20}}}\n',
    });
    const r = await k("import");
    expect(r.stderr.split("\n").filter((line) => line.includes("will be"))).toEqual([
      'warning: mcp server "api" for codex: http_headers.X-Key will be written as env_http_headers.X-Key (Codex CLI does not expand ${API_KEY} in config.toml)',
      'warning: mcp server "slow" for claude: startup_timeout_sec will be written as timeout',
    ]);
  });

  it("a server kanon creates in .claude.json gets its type; one without it keeps its bytes", async () => {
    s.writeFiles({ ".claude.json": CLAUDE });
    expect((await k("import", "--write", "--no-git")).stderr).toBe("");
    s.writeHome(
      `${s.readHome("kanon.yaml").replace("mcp:\n  servers:\n", "mcp:\n  servers:\n    docs:\n      url: https://docs.example/mcp\n    local:\n      command: local-mcp\n")}`,
    );
    expect((await k("apply", "--yes")).status).toBe(0);
    const written = JSON.parse(s.read(".claude.json")).mcpServers;
    expect(written.docs).toEqual({ type: "http", url: "https://docs.example/mcp" });
    expect(written.local).toEqual({ type: "stdio", command: "local-mcp" });
    expect(s.read(".claude.json")).toContain(
      '"github": {"command": "github-mcp", "args": ["--stdio"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}',
    );
  });
});
