/**
 * A hook with args runs without a shell in every agent (Claude Code's exec form, the one POSIX-quoted
 * command line kanon writes for Codex, Gemini CLI and Kimi Code, OpenCode's plugin, kanon's runner
 * for a neutral hook), so a `~` that starts its command is expanded nowhere, and kanon says so when
 * it reads kanon.yaml; the same command without args is run by a shell, which expands it everywhere.
 * The hooks run as each agent runs the rendered files (test/support/agent-hooks.ts).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type CommandAgent, hookSandbox, openCode1, runEvent } from "../support/agent-hooks.js";

const h = hookSandbox();
const { s, project } = h;
const log = join(s.home, "probe.log");

const HOME = `version: 1
agents: [claude, codex, opencode, gemini, kimi]
hooks:
  - name: exec-native
    event: SessionStart
    command: ~/bin/probe
    args: [exec-native]
  - name: exec-neutral
    event: SessionStart
    envelope: neutral
    command: ~/bin/probe
    args: [exec-neutral]
  - name: shell-native
    event: SessionStart
    command: ~/bin/probe shell-native
  - name: shell-neutral
    event: SessionStart
    envelope: neutral
    command: ~/bin/probe shell-neutral
`;

let apply: { status: number; stderr: string };
beforeAll(async () => {
  mkdirSync(join(s.home, "bin"));
  // Which agent ran it, and as which hook.
  writeFileSync(join(s.home, "bin/probe"), `#!/bin/sh\necho "$PROBE_AGENT $1" >> '${log}'\n`);
  chmodSync(join(s.home, "bin/probe"), 0o755);
  apply = await h.apply(HOME);
});

/** The lines the probe wrote, sorted. */
const probed = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").sort() : []);

describe("~ in a hook's command", () => {
  it("with args: a warning naming each hook when kanon.yaml is read", () => {
    const warning = (line: number, name: string) =>
      `warning: kanon.yaml:${line}:14: hook "${name}": command "~/bin/probe" with args is run without a shell, so "~" is not expanded; write the full path, or drop args and put them in command\n`;
    expect(apply).toMatchObject({
      status: 0,
      stderr: warning(6, "exec-native") + warning(11, "exec-neutral"),
    });
  });

  it("is expanded by no agent with args, and by every agent without", async () => {
    const agents: CommandAgent[] = ["claude", "codex", "gemini", "kimi"];
    for (const agent of agents) {
      const hooks = h.hooks(agent);
      const event = hooks.find((hook) => hook.name === "shell-neutral")!.event;
      const call = h.call(agent, "SessionStart", {}, { PROBE_AGENT: agent });
      const runs = await runEvent(agent, hooks, event, "startup", call);
      // The native exec-form hook's program is not found; the neutral one's runner fails open.
      expect(runs.length, agent).toBe(4);
      expect(runs.filter((r) => r.code !== 0).length, agent).toBe(1);
    }
    // OpenCode's plugin runs its hooks in OpenCode's own environment: this process's, for the test.
    const saved = { HOME: process.env.HOME, PROBE_AGENT: process.env.PROBE_AGENT };
    Object.assign(process.env, { HOME: s.home, PROBE_AGENT: "opencode" });
    try {
      const oc = await openCode1(h.hookFile("opencode"), project);
      oc.event("session.created", { info: { id: "ses_exec_form" } });
      await oc.prompt("ses_exec_form", "Run the kanon envelope shell command.");
      await oc.dispose();
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
    const shell = [...agents, "opencode"].flatMap((a) => [`${a} shell-native`, `${a} shell-neutral`]);
    expect(probed()).toEqual(shell.sort());
  });
});
