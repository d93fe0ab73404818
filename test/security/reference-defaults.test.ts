// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` env references are data in these tests
/**
 * A reference's default is a value like any other (`${API_KEY:-sk-live-…}`): masked in diff, render
 * and the UI when it looks like a secret, moved into the secret store by import (the reference keeps
 * its variable), refused by push; the reference itself is shown and kept.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lineSecret, maskSecrets } from "../../src/core/secrets.js";
import { sandboxEnv, sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();
const LIVE = "sk-live-0123456789abcdefDEFAULTSECRET";
const GHP = "ghp_0123456789abcdefghijklmnopqrstuvwxyz";
/** A default that is a secret by its key only. */
const WORD = "hunter2hunter2";
const PLAIN = "https://plain-default.example";
const none = (text: string) => {
  for (const secret of [LIVE, GHP, WORD]) expect(text).not.toContain(secret);
};
const MASK = "<secret [0-9a-f]{4}>";

describe("masking", () => {
  it("masks a default that looks secret, by its shape or its key, and shows the reference", () => {
    const cases: [string, RegExp | string][] = [
      [`"API_KEY": "\${API_KEY:-${LIVE}}",`, new RegExp(`^"API_KEY": "\\$\\{API_KEY:-${MASK}\\}",$`)],
      [`GITHUB_TOKEN = "\${GH:-${WORD}}"`, new RegExp(`^GITHUB_TOKEN = "\\$\\{GH:-${MASK}\\}"$`)],
      [
        `"Authorization": "Bearer \${T:-${WORD}}"`,
        new RegExp(`^"Authorization": "Bearer \\$\\{T:-${MASK}\\}"$`),
      ],
      [`args = ["--x", "\${T:-${GHP}}"]`, new RegExp(`^args = \\["--x", "\\$\\{T:-${MASK}\\}"\\]$`)],
      [`"url": "https://h.example/?token=\${T:-${WORD}}"`, new RegExp(`token=\\$\\{T:-${MASK}\\}"$`)],
      // Two references: each default judged alone.
      [`"API_KEY": "\${A:-${LIVE}}/\${B}"`, new RegExp(`^"API_KEY": "\\$\\{A:-${MASK}\\}/\\$\\{B\\}"$`)],
      // Shown as they are: a default of a key that says nothing, a secret reference, no default.
      [`"URL": "\${API_URL:-${PLAIN}}"`, `"URL": "\${API_URL:-${PLAIN}}"`],
      ['"API_KEY": "${API_KEY:-${secret:API_KEY}}"', '"API_KEY": "${API_KEY:-${secret:API_KEY}}"'],
      ['"API_KEY": "${API_KEY}"', '"API_KEY": "${API_KEY}"'],
      ['"API_KEY": "${API_KEY:-}"', '"API_KEY": "${API_KEY:-}"'],
    ];
    for (const [line, shown] of cases) {
      const masked = maskSecrets(line);
      if (typeof shown === "string") expect(masked, line).toBe(shown);
      else expect(masked, line).toMatch(shown);
    }
    // The same default always shows the same digits, whatever its variable.
    expect(maskSecrets(`"API_KEY": "\${A:-${LIVE}}"`).slice(-15)).toBe(
      maskSecrets(`"API_KEY": "\${B:-${LIVE}}"`).slice(-15),
    );
  });

  it("diff, render and their --json show the reference, never its secret default; apply writes it", async () => {
    s.writeHome(
      `version: 1\nagents: [claude]\nmcp:\n  servers:\n    live:\n      command: srv\n      args: ["--key=\${KEY:-${GHP}}"]\n      env: {API_KEY: "\${API_KEY:-${LIVE}}", GH_TOKEN: "\${GH:-${WORD}}", URL: "\${API_URL:-${PLAIN}}"}\n`,
    );
    for (const command of [["diff"], ["diff", "--json"], ["render"], ["render", "--json"]]) {
      const r = await s.k(...command);
      expect(r.status, command.join(" ")).toBe(0);
      none(r.stdout + r.stderr);
      expect(r.stdout, command.join(" ")).toContain("${API_KEY:-<secret ");
      expect(r.stdout, command.join(" ")).toContain(PLAIN);
    }
    expect((await s.k("apply", "--yes")).status).toBe(0);
    expect(s.read(".claude.json")).toContain(`"API_KEY": "\${API_KEY:-${LIVE}}"`);
  });
});

describe("import", () => {
  /** A Claude server whose values are references with secret defaults, and one with a plain default. */
  const claude = () =>
    s.write(
      ".claude.json",
      JSON.stringify({
        mcpServers: {
          live: {
            command: "srv",
            args: [`--token=\${T:-${WORD}}`, `\${GH:-${GHP}}`],
            env: { API_KEY: `\${API_KEY:-${LIVE}}`, URL: `\${API_URL:-${PLAIN}}` },
          },
          api: {
            type: "http",
            url: "https://api.example/mcp",
            headers: { Authorization: `Bearer \${AUTH:-${WORD}}` },
          },
        },
      }),
    );

  it("store: the default goes into the store, the reference keeps its variable; diff then says No changes.", async () => {
    claude();
    const r = await s.k("--agent", "claude", "import", "--write", "--no-git");
    expect(r.status).toBe(0);
    none(r.stdout + r.stderr);
    expect(r.stderr).toContain(
      'warning: plaintext secret in the default of ${API_KEY} at mcp server "live" env.API_KEY: kanon.yaml says ${API_KEY:-${secret:API_KEY}}, and the value goes into this machine\'s secret store, never into the Kanon home\n',
    );
    const yaml = s.readHome("kanon.yaml");
    none(yaml);
    for (const ref of [
      "API_KEY: ${API_KEY:-${secret:API_KEY}}",
      `URL: \${API_URL:-${PLAIN}}`,
      // The same value keeps the name it got first (servers in order of name).
      "--token=${T:-${secret:API_TOKEN}}",
      "${GH:-${secret:LIVE_TOKEN}}",
      "Authorization: Bearer ${AUTH:-${secret:API_TOKEN}}",
    ])
      expect(yaml).toContain(ref);
    const store = JSON.parse(readFileSync(join(s.home, ".local/state/kanon/secrets.json"), "utf8"));
    expect(store.secrets).toEqual({ API_KEY: LIVE, API_TOKEN: WORD, LIVE_TOKEN: GHP });
    // apply would write exactly what the agent has, and push finds no secret in the home.
    expect(await s.k("--agent", "claude", "diff")).toMatchObject({ status: 0, stdout: "No changes.\n" });
    for (const line of yaml.split("\n")) expect(lineSecret(line, "kanon.yaml"), line).toBeNull();
    // With the variable set, the agent's expansion picks it; kanon's own (resolve_env) does the same.
    const resolved = yaml
      .replace(/^ {4}(api|live):\n/gm, "    $1:\n      resolve_env: true\n")
      .replaceAll("targets: [claude]", "targets: [codex]");
    s.writeHome(resolved);
    const codex = await s.run(["--home", s.kh, "apply", "--yes"], { env: { API_KEY: "from-env" } });
    expect(codex.stderr).toBe("");
    expect(codex.status).toBe(0);
    const config = s.read(".codex/config.toml");
    expect(config).toContain("API_KEY = 'from-env'\n");
    expect(config).toContain(`'--token=${WORD}'`);
    expect(config).toContain(`'Bearer ${WORD}'`);
  });

  it("env: the default goes and the variable is the one to set; keep: it stays, with a warning", async () => {
    claude();
    const env = await s.k("--agent", "claude", "import", "--secret-policy", "env");
    none(env.stdout + env.stderr);
    expect(env.stdout).toContain("API_KEY: ${API_KEY}\n");
    expect(env.stdout).toContain(`URL: \${API_URL:-${PLAIN}}`);
    expect(env.stdout).toContain("Authorization: Bearer ${AUTH}");
    expect(env.stderr).toContain(
      'warning: removed the plaintext default of ${API_KEY} at mcp server "live" env.API_KEY: set API_KEY where your agents run (kanon diff shows the change)\n',
    );
    const keep = await s.k("--agent", "claude", "import", "--secret-policy", "keep");
    expect(keep.stdout).toContain(`API_KEY: \${API_KEY:-${LIVE}}`);
    expect(keep.stderr).toContain(
      "warning: kept possible plaintext secret at claude.claude_json.mcpServers.live.env.API_KEY because secret policy is keep\n",
    );
    expect(keep.stderr).not.toContain("mcpServers.live.env.URL");
  });
});

describe("push", () => {
  it("refuses a home whose reference has a secret default, naming the line only", async () => {
    s.writeHome(
      `version: 1\nmcp:\n  servers:\n    live:\n      command: srv\n      env:\n        API_KEY: \${API_KEY:-${WORD}}\n`,
    );
    const git = (...args: string[]) =>
      spawnSync("git", args, { cwd: s.kh, env: sandboxEnv(s.home), encoding: "utf8" });
    const remote = join(s.work, "remote.git");
    spawnSync("git", ["init", "--quiet", "--bare", remote], { env: sandboxEnv(s.home) });
    git("init", "--quiet");
    git("add", "-A");
    git("commit", "--quiet", "-m", "home");
    git("remote", "add", "origin", remote);
    const r = await s.k("push");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('  kanon.yaml:7: a value for "API_KEY" (commit ');
    none(r.stdout + r.stderr);
  });
});
