/** Choosing agents (`agents:` and `--agent`), and Gemini CLI / Kimi Code end to end through the CLI. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest((s) => {
  mkdirSync(join(s.kh, "instructions"), { recursive: true });
  writeFileSync(join(s.kh, "instructions/shared.md"), "# Shared\n");
});
const { k } = s;

const HOOKS = `hooks:
  - name: guard
    event: PreToolUse
    matcher: Bash
    command: /usr/local/bin/guard "$HOME"
    timeout: 10
`;
const home = (extra = "") =>
  s.writeHome(`version: 1\n${extra}instructions:\n  files: [instructions/shared.md]\n${HOOKS}`);
const agentsOf = (stdout: string) =>
  [...new Set([...stdout.matchAll(/^==> \[(\w+)\]/gm)].map((m) => m[1]))].sort();

describe("choosing agents", () => {
  it("renders the three agents of the Go original when kanon.yaml has no agents: list", async () => {
    home();
    expect(agentsOf((await k("render")).stdout)).toEqual(["claude", "codex", "opencode"]);
  });

  it("renders the agents: list", async () => {
    home("agents: [kimi, claude, gemini]\n");
    expect(agentsOf((await k("render")).stdout)).toEqual(["claude", "gemini", "kimi"]);
  });

  it("renders an agent outside the list when --agent names it", async () => {
    home("agents: [claude]\n");
    expect(agentsOf((await k("--agent", "gemini", "render")).stdout)).toEqual(["gemini"]);
  });

  it("rejects an unknown name in agents:, listing the known ones", async () => {
    home("agents: [claude, gemni]\n");
    expect(await k("render")).toMatchObject({
      status: 1,
      stderr:
        'kanon.yaml:2:18: agents lists unsupported agent "gemni" (known agents: codex, claude, opencode, gemini, kimi)\n',
    });
  });

  it("accepts every agent in targets", async () => {
    writeFileSync(
      join(s.kh, "kanon.yaml"),
      "version: 1\nhooks:\n  - name: g\n    event: Stop\n    command: x\n    targets: [gemini, kimi]\n",
    );
    expect(await k("--agent", "kimi", "render")).toMatchObject({ status: 0 });
  });
});

describe("Gemini CLI and Kimi Code through the CLI", () => {
  it("applies into a settings.json the user edits, keeping their hooks, servers and comments", async () => {
    home("agents: [gemini]\n");
    mkdirSync(join(s.home, ".gemini"));
    const mine =
      '{\n  // mine\n  "mcpServers": { "mine": { "command": "m" } },\n  "hooks": { "BeforeTool": [{ "hooks": [{ "type": "command", "name": "mine", "command": "x" }] }] }\n}\n';
    writeFileSync(join(s.home, ".gemini/settings.json"), mine);
    expect(await k("apply", "--yes")).toMatchObject({ status: 0 });
    const after = readFileSync(join(s.home, ".gemini/settings.json"), "utf8");
    expect(after).toContain("// mine");
    expect(after).toContain('"name": "mine"');
    expect(after).toContain('"name": "kanon:guard"');
    expect(after).toContain('"timeout": 10000');
    expect(after).toContain(String.raw`"command": "/usr/local/bin/guard \"$\\\nHOME\""`);
    expect((await k("diff")).stdout).toBe("No changes.\n");
  });

  it("fails without writing when Gemini's settings.json does not parse, naming the file", async () => {
    home("agents: [gemini]\n");
    mkdirSync(join(s.home, ".gemini"));
    writeFileSync(join(s.home, ".gemini/settings.json"), "{ nope");
    const r = await k("apply", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`cannot parse ${join(s.home, ".gemini/settings.json")} for merge`);
    expect(readFileSync(join(s.home, ".gemini/settings.json"), "utf8")).toBe("{ nope");
  });

  it("warns once per hook in project scope for Kimi, and an explicit target is an error", async () => {
    home("agents: [kimi]\n");
    const project = join(s.work, "p");
    mkdirSync(project);
    expect((await k("--project", project, "render")).stderr).toBe(
      'warning: hook "guard" is not rendered for kimi: hooks in project scope is not supported\n',
    );
    writeFileSync(
      join(s.kh, "kanon.yaml"),
      "version: 1\nhooks:\n  - name: g\n    event: Stop\n    command: x\n    targets: [kimi]\n",
    );
    expect(await k("--project", project, "render")).toMatchObject({
      status: 1,
      stderr: 'kanon.yaml:3:5: hook "g" targets kimi but hooks in project scope is not supported for kimi\n',
    });
  });

  it("reports Gemini project hooks held back by folder trust in status, until the folder is trusted", async () => {
    home("agents: [gemini]\n");
    const project = join(s.work, "p");
    mkdirSync(project);
    expect((await k("--project", project, "apply", "--yes")).status).toBe(0);
    expect((await k("--project", project, "status")).stdout).toContain(
      "Gemini CLI will skip 1 hook(s) for now:\n  guard (BeforeTool): folder not trusted yet\n",
    );
    mkdirSync(join(s.home, ".gemini"), { recursive: true });
    writeFileSync(join(s.home, ".gemini/trustedFolders.json"), JSON.stringify({ [project]: "TRUST_FOLDER" }));
    expect((await k("--project", project, "status")).stdout).not.toContain("will skip");
  });
});

describe("Codex MCP tool approvals", () => {
  it("writes the keys Codex reads, from the Go original's fields", async () => {
    writeFileSync(
      join(s.kh, "kanon.yaml"),
      "version: 1\nmcp:\n  servers:\n    ctx:\n      command: c\n      default_approval: prompt\n      tools:\n        search: { approval: auto, approval_prompt: ignored, description: ignored }\n",
    );
    expect((await k("--agent", "codex", "apply", "--yes")).status).toBe(0);
    expect(readFileSync(join(s.home, ".codex/config.toml"), "utf8")).toBe(
      "[mcp_servers]\n[mcp_servers.ctx]\ncommand = 'c'\ndefault_tools_approval_mode = 'prompt'\n\n[mcp_servers.ctx.tools]\n[mcp_servers.ctx.tools.search]\napproval_mode = 'auto'\n",
    );
  });

  it("refuses a value Codex would reject, naming the server and the allowed values, and writes nothing", async () => {
    writeFileSync(
      join(s.kh, "kanon.yaml"),
      "version: 1\nmcp:\n  servers:\n    ctx:\n      command: c\n      tools:\n        search: { approval: always }\n",
    );
    expect(await k("apply", "--yes")).toMatchObject({
      status: 1,
      stderr:
        'kanon.yaml:7:29: mcp server "ctx": tools.search.approval "always" is not one Codex CLI accepts (auto, prompt, writes, approve)\n',
    });
    expect(existsSync(join(s.home, ".codex"))).toBe(false);
  });
});
