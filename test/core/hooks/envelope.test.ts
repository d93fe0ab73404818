/**
 * Neutral hooks in the support check and validation: how each agent renders the runner's command
 * line, where the context lands (`kanon hooks`' columns), the PostCompact redirect, Codex's raised
 * limit, the carry hook, the validation errors, and that native hooks stay as they were.
 */
import { describe, expect, it } from "vitest";
import { claudeManifest } from "../../../src/agents/claude/manifest.js";
import { codexManifest } from "../../../src/agents/codex/manifest.js";
import { geminiManifest } from "../../../src/agents/gemini/manifest.js";
import { AGENTS } from "../../../src/agents/index.js";
import { kimiManifest } from "../../../src/agents/kimi/manifest.js";
import { opencodeManifest } from "../../../src/agents/opencode/manifest.js";
import { hookEnvelope } from "../../../src/core/hooks/envelope.js";
import { decideHook, type HookDecision } from "../../../src/core/hooks/support.js";
import type { HookEntry, KanonConfig } from "../../../src/model/config.js";
import type { AgentManifest } from "../../../src/model/manifest.js";
import { locator } from "../../../src/source/decode.js";
import { normalizeConfig } from "../../../src/source/load.js";
import { validateConfig } from "../../../src/source/validate.js";

const machine = { node: "/opt/node/bin/node", runner: "/home/u/.local/share/kanon/hook-runner.mjs" };
const decide = (hook: HookEntry, manifest: AgentManifest, envelope?: "neutral" | "native") =>
  decideHook(hook, 0, manifest, "user", undefined, { machine, ...(envelope ? { envelope } : {}) })!;
const neutral = (over: Partial<HookEntry> = {}): HookEntry => ({
  name: "anchor",
  event: "SessionStart",
  command: 'echo "$HOME"',
  envelope: "neutral",
  ...over,
});
const runner = (agent: string, event: string, name: string, ...rest: string[]) => [
  machine.runner,
  agent,
  event,
  name,
  ...rest,
];

describe("the runner's command line", () => {
  it("Claude: a shell command through Claude's shell form, one POSIX-quoted command line (no version)", () => {
    // In exec form Claude would replace ${CLAUDE_PROJECT_DIR} in the command as text.
    const d = decide(neutral({ command: 'cat "${CLAUDE_PROJECT_DIR}"/x' }), claudeManifest);
    expect(d).toMatchObject({ outcome: "as-written", envelope: "neutral", translations: [] });
    expect(d.native?.command).toBe(
      `'${machine.node}' '${machine.runner}' 'claude' 'SessionStart' 'anchor' '--max' '4800' '--timeout' '600' '--sh' 'cat "\${CLAUDE_PROJECT_DIR}"/x'`,
    );
    expect(d.native?.args).toBeUndefined();
    expect(d.native?.neutral).toBe(true);
  });

  it("Claude: exec form for a hook with args and for kanon's own hooks, node with the runner's arguments", () => {
    const d = decide(neutral({ command: "/bin/guard", args: ["${CLAUDE_PROJECT_DIR}"] }), claudeManifest);
    expect(d).toMatchObject({ outcome: "as-written", envelope: "neutral", translations: [] });
    expect(d.native).toMatchObject({
      command: machine.node,
      args: runner(
        "claude",
        "SessionStart",
        "anchor",
        "--max",
        "4800",
        "--timeout",
        "600",
        "--",
        "/bin/guard",
        "${CLAUDE_PROJECT_DIR}",
      ),
      neutral: true,
    });
    const builtin = decide(
      { name: "kanon/carry", event: "UserPromptSubmit", builtin: "carry" },
      claudeManifest,
    );
    expect(builtin.native).toMatchObject({
      command: machine.node,
      args: runner(
        "claude",
        "UserPromptSubmit",
        "kanon/carry",
        "--max",
        "4800",
        "--timeout",
        "600",
        "--builtin",
        "carry",
      ),
    });
  });

  it("Codex: one POSIX-quoted command line, a hook's args after --, the agent's timeout, --block", () => {
    const d = decide(
      neutral({
        event: "PreToolUse",
        matcher: "Bash",
        command: "/bin/guard",
        args: ["rm -rf"],
        timeout: 5,
        blocking: true,
      }),
      codexManifest,
    );
    expect(d.outcome).toBe("as-written");
    expect(d.native?.command).toBe(
      `'${machine.node}' '${machine.runner}' 'codex' 'PreToolUse' 'anchor' '--max' '4800' '--timeout' '5' '--block' '--' '/bin/guard' 'rm -rf'`,
    );
    expect(d.native?.args).toBeUndefined();
    expect(d.native?.timeout).toBe(5);
  });

  it("Codex: the runner's deadline is the event's cap (3 s on SessionEnd and Interrupt)", () => {
    const d = decide(neutral({ event: "Interrupt", timeout: 30 }), codexManifest);
    expect(d.native?.command).toContain("'--timeout' '3'");
  });

  it("Kimi: its default timeout, and async stays left out", () => {
    expect(decide(neutral(), kimiManifest).native?.command).toContain("'--timeout' '30'");
    expect(decide(neutral({ async: true }), kimiManifest).outcome).toBe("omitted");
  });

  it("Gemini: every $ protected from the settings loader, the rest as written", () => {
    const d = decide(neutral(), geminiManifest);
    expect(d.native?.command).toContain(`'--sh' 'echo "$''HOME"'`);
    expect(d.translations).toEqual(["$ in the command protected from the settings loader's $VAR expansion"]);
  });

  it("OpenCode: exec form in the plugin table, marked neutral", () => {
    const d = decide(neutral(), opencodeManifest);
    expect(d.native).toMatchObject({ command: machine.node, neutral: true });
    expect(d.native?.args?.slice(0, 3)).toEqual([machine.runner, "opencode", "SessionStart"]);
  });

  it("a native hook renders as it always did", () => {
    const native = { name: "n", event: "SessionStart", command: "echo hi" };
    for (const m of [claudeManifest, codexManifest, opencodeManifest]) {
      const d = decide(native, m);
      expect(d.envelope).toBe("native");
      expect(d.native?.command).toBe("echo hi");
      expect(d.native?.neutral).toBeUndefined();
    }
  });
});

describe("hooks_envelope and envelope", () => {
  it("hooks_envelope: neutral makes command hooks neutral; a hook's own envelope: native wins", () => {
    expect(hookEnvelope({ name: "a", command: "x" }, "neutral")).toBe("neutral");
    expect(hookEnvelope({ name: "a", command: "x", envelope: "native" }, "neutral")).toBe("native");
    expect(hookEnvelope({ name: "a", command: "x" }, undefined)).toBe("native");
    // Only command hooks run the runner.
    expect(hookEnvelope({ name: "a", type: "http", url: "u" }, "neutral")).toBe("native");
    const d = decide({ name: "a", event: "Stop", command: "x" }, claudeManifest, "neutral");
    expect(d.native?.neutral).toBe(true);
  });
});

describe("where the context lands", () => {
  const where = (d: HookDecision) => [d.delivery.context, d.delivery.block];

  it("SessionStart: at the event, except Kimi (next prompt); OpenCode's native plugin drops output", () => {
    expect(where(decide(neutral(), claudeManifest))).toEqual(["at event", false]);
    expect(where(decide(neutral(), geminiManifest))).toEqual(["at event", false]);
    expect(where(decide(neutral(), opencodeManifest))).toEqual(["at event", false]);
    expect(where(decide(neutral(), kimiManifest))).toEqual(["next prompt", false]);
    const native = { name: "n", event: "SessionStart", command: "x" };
    expect(where(decide(native, opencodeManifest))).toEqual(["not delivered", false]);
    expect(where(decide(native, kimiManifest))).toEqual(["not delivered", false]);
    expect(where(decide(native, claudeManifest))).toEqual(["at event", false]);
  });

  it("blocks only with blocking: true, where the event can", () => {
    const pre = neutral({ event: "PreToolUse", matcher: "Bash" });
    expect(where(decide(pre, claudeManifest))).toEqual(["at event", false]);
    expect(where(decide({ ...pre, blocking: true }, claudeManifest))).toEqual(["at event", true]);
    expect(where(decide({ ...pre, blocking: true }, kimiManifest))).toEqual(["next prompt", true]);
    expect(where(decide(neutral({ blocking: true }), claudeManifest))).toEqual(["at event", false]);
  });

  it("SessionEnd's context is not delivered; an async hook's is carried", () => {
    expect(where(decide(neutral({ event: "SessionEnd" }), claudeManifest))).toEqual(["not delivered", false]);
    expect(decide(neutral({ async: true }), claudeManifest).delivery.context).toBe("next prompt");
  });

  it("channels and limits for kanon hooks --json", () => {
    expect(decide(neutral(), codexManifest).delivery).toMatchObject({
      channel: "hookSpecificOutput.additionalContext of SessionStart",
      limit: { max: 2500, unit: "bytes/4" },
    });
    expect(decide(neutral(), kimiManifest).delivery.channel).toBe(
      "kept by kanon's runner; the kanon/carry hook delivers it with the next prompt",
    );
  });
});

describe("PostCompact", () => {
  it("Claude and Codex: rendered on SessionStart with the matcher compact, translated", () => {
    for (const m of [claudeManifest, codexManifest]) {
      const d = decide(neutral({ event: "PostCompact" }), m);
      expect(d.outcome).toBe("translated");
      expect(d.native).toMatchObject({
        event: "SessionStart",
        neutralEvent: "PostCompact",
        matcherText: "compact",
      });
      expect(d.delivery.context).toBe("at event");
      expect(d.translations[0]).toMatch(/^rendered on SessionStart with the matcher "compact"/);
    }
  });

  it("a trigger matcher cannot be kept there: left out", () => {
    const d = decide(neutral({ event: "PostCompact", matcher: "auto" }), claudeManifest);
    expect(d.outcome).toBe("omitted");
    expect(d.missing?.detail).toBe(
      "it is rendered on SessionStart (compact), which does not say the trigger",
    );
  });

  it("Gemini has no event after compaction; Kimi and OpenCode fire PostCompact itself", () => {
    expect(decide(neutral({ event: "PostCompact" }), geminiManifest).outcome).toBe("omitted");
    expect(decide(neutral({ event: "PostCompact" }), kimiManifest).native?.event).toBe("PostCompact");
    expect(decide(neutral({ event: "PostCompact" }), opencodeManifest).delivery.context).toBe("at event");
  });

  it("a native PostCompact hook stays on PostCompact", () => {
    expect(decide({ name: "p", event: "PostCompact", command: "x" }, claudeManifest).native?.event).toBe(
      "PostCompact",
    );
  });
});

describe("Codex's additionalContextLimit", () => {
  it("is raised to max_output_chars where that is above 2,500, on events that take context", () => {
    expect(decide(neutral(), codexManifest).native?.fields).toEqual({ additionalContextLimit: 4800 });
    expect(decide(neutral({ max_output_chars: 2000 }), codexManifest).native?.fields).toEqual({});
    expect(decide(neutral({ event: "Stop" }), codexManifest).native?.fields).toEqual({});
    expect(decide(neutral(), claudeManifest).native?.fields).toEqual({});
  });
});

async function validate(yaml: string) {
  const { parse } = await import("yaml");
  const config = normalizeConfig(parse(yaml) as Partial<KanonConfig>);
  const paths = { home: "/nonexistent", config: "/nonexistent/kanon.yaml", userHome: "/nonexistent" };
  return validateConfig(config, paths, AGENTS, "user", {}, locator(yaml, "kanon.yaml"), undefined, machine);
}

describe("validation", () => {
  it("refuses envelope: neutral on other types, blocking and max_output_chars on native hooks, kanon/ names", async () => {
    const v = await validate(`version: 1
hooks:
  - name: web
    event: Stop
    type: http
    url: https://x.example
    envelope: neutral
  - name: plain
    event: Stop
    command: x
    blocking: true
    max_output_chars: 10
  - name: kanon/mine
    event: Stop
    command: x
`);
    expect(v.errors).toEqual([
      'kanon.yaml:7:15: hook "web": envelope neutral is for command hooks (kanon\'s runner is a command), not http',
      'kanon.yaml:11:15: hook "plain": blocking is a field of hooks with envelope: neutral',
      'kanon.yaml:12:23: hook "plain": max_output_chars is a field of hooks with envelope: neutral',
      'kanon.yaml:13:11: hook "kanon/mine": names starting with kanon/ are kept for kanon\'s own hooks',
    ]);
  });

  it("adds kanon/carry where an agent keeps context for the next prompt, once per agent", async () => {
    const v = await validate(`version: 1
agents: [claude, codex, opencode, gemini, kimi]
hooks_envelope: neutral
hooks:
  - name: anchor
    event: SessionStart
    command: x
  - name: done
    event: Stop
    command: y
    max_output_chars: 100
`);
    expect(v.errors).toEqual([]);
    const carry = v.decisions.filter((d) => d.hook.builtin === "carry");
    // OpenCode's plugin keeps it itself.
    expect(carry.map((d) => d.agent)).toEqual(["codex", "claude", "gemini", "kimi"]);
    const kimi = carry.find((d) => d.agent === "kimi")!;
    expect(kimi.native).toMatchObject({ event: "UserPromptSubmit", name: "kanon/carry" });
    // 4,800 + 100, and the blank line between the two contexts.
    expect(kimi.native?.command).toContain("'--max' '4902' '--timeout' '30' '--builtin' 'carry'");
    expect(carry.find((d) => d.agent === "claude")!.native?.args).toContain("100");
  });

  it("adds no kanon/carry when everything lands at its event", async () => {
    const v = await validate(
      "version: 1\nhooks:\n  - name: a\n    event: SessionStart\n    envelope: neutral\n    command: x\n    targets: [claude, codex, opencode, gemini]\n",
    );
    expect(v.decisions.some((d) => d.hook.builtin)).toBe(false);
  });
});
