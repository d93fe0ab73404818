/** The support check for Gemini CLI and Kimi Code: events, tools, matchers, timeouts, scope, $VAR. */
import fc from "fast-check";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { geminiManifest } from "../../../src/agents/gemini/manifest.js";
import { kimi } from "../../../src/agents/kimi/index.js";
import { kimiManifest } from "../../../src/agents/kimi/manifest.js";
import { decideHook, omissionError, omissionWarning } from "../../../src/core/hooks/support.js";
import type { HookEntry } from "../../../src/model/config.js";

const decide = (hook: HookEntry, manifest = geminiManifest, scope: "user" | "project" = "user") =>
  decideHook(hook, 0, manifest, scope)!;

const guard: HookEntry = {
  name: "guard",
  event: "PreToolUse",
  matcher: "Bash",
  command: "/bin/guard",
  timeout: 10,
};

describe("Gemini CLI", () => {
  it("maps events and tools, anchors the tool regex and writes the timeout in milliseconds", () => {
    const d = decide(guard);
    expect(d.outcome).toBe("translated");
    expect(d.native).toMatchObject({
      event: "BeforeTool",
      matcherText: "^(?:run_shell_command)$",
      timeout: 10000,
    });
    expect(d.translations).toContain("timeout 10 s → 10000 ms");
    expect(decide({ name: "s", event: "Stop", command: "x" }).native?.event).toBe("AfterAgent");
    expect(decide({ name: "p", event: "UserPromptSubmit", command: "x" }).native?.event).toBe("BeforeAgent");
  });

  it("turns a neutral list into an anchored regex of Gemini's tool names", () => {
    expect(decide({ ...guard, matcher: "Bash, Edit" }).native?.matcherText).toBe(
      "^(?:run_shell_command|replace)$",
    );
    expect(decide({ ...guard, matcher: "Bash, Edit" }, kimiManifest).native?.matcherText).toBe(
      "^(?:Bash|Edit)$",
    );
  });

  it("leaves out events whose behaviour Gemini has not (PostCompact, Interrupt)", () => {
    for (const event of ["PostCompact", "Interrupt"]) {
      const d = decide({ name: "h", event, command: "x" });
      expect(omissionWarning(d)).toBe(
        `hook "h" is not rendered for gemini: event "${event}" is not supported`,
      );
    }
  });

  it("writes one exact SessionStart source, and refuses a list or a regex Gemini compares exactly", () => {
    expect(
      decide({ name: "s", event: "SessionStart", matcher: "startup", command: "x" }).native?.matcherText,
    ).toBe("startup");
    const list = decide({
      name: "s",
      event: "SessionStart",
      matcher: "startup|resume",
      command: "x",
      targets: ["gemini"],
    });
    expect(omissionError(list)).toBe(
      'hook "s" targets gemini but matcher "startup|resume" is not supported for gemini (Gemini CLI compares SessionStart matchers with one source exactly)',
    );
  });

  it("protects $VAR in the command from the settings loader", () => {
    const d = decide({ name: "p", event: "Stop", command: 'echo "$HOME"' });
    expect(d.native?.command).toBe('echo "$\\\nHOME"');
    expect(d.translations).toContain("$ in the command protected from the settings loader's $VAR expansion");
  });

  it("fails an explicit target whose command it cannot protect, naming hook, agent and reason", () => {
    const d = decide({ name: "sub", event: "Stop", command: "echo $(echo $HOME)", targets: ["gemini"] });
    expect(omissionError(d)).toBe(
      `hook "sub" targets gemini but command is not supported for gemini (Gemini CLI expands $VAR in its settings before the shell runs the hook, and it uses $VAR together with "$(", whose quoting kanon does not follow)`,
    );
  });

  it("reports folder trust as a gate in both scopes", () => {
    expect(decide(guard, geminiManifest, "project").gates.map((g) => g.id)).toEqual(["gemini-folder-trust"]);
  });
});

describe("Kimi Code", () => {
  it("keeps the native event and tool names, anchors the matcher, keeps seconds", () => {
    const d = decide(guard, kimiManifest);
    expect(d.native).toMatchObject({ event: "PreToolUse", matcherText: "^(?:Bash)$", timeout: 10 });
    expect(d.gates).toEqual([]);
  });

  it("drops a match-all matcher (`*` is an invalid regex for Kimi, which would never run the hook)", () => {
    expect(decide({ ...guard, matcher: "*" }, kimiManifest).native?.matcherText).toBeUndefined();
  });

  it("refuses a timeout outside 1–600 s, which would make Kimi drop every hook", () => {
    const d = decide({ ...guard, timeout: 900, targets: ["kimi"] }, kimiManifest);
    expect(omissionError(d)).toBe(
      'hook "guard" targets kimi but timeout 900 s is not supported for kimi (Kimi Code takes 1–600 s)',
    );
  });

  it("has no project hooks: explicit is an error, implicit a warning", () => {
    expect(omissionError(decide({ ...guard, targets: ["kimi"] }, kimiManifest, "project"))).toBe(
      'hook "guard" targets kimi but hooks in project scope is not supported for kimi',
    );
    expect(omissionWarning(decide(guard, kimiManifest, "project"))).toBe(
      'hook "guard" is not rendered for kimi: hooks in project scope is not supported',
    );
  });

  it("leaves out an event Kimi does not have", () => {
    expect(
      omissionWarning(decide({ name: "d", event: "PermissionDenied", command: "x" }, kimiManifest)),
    ).toBe('hook "d" is not rendered for kimi: event "PermissionDenied" is not supported');
  });

  it("leaves out async hooks (Kimi has no such field)", () => {
    expect(decide({ ...guard, async: true }, kimiManifest).outcome).toBe("omitted");
  });
});

describe("Gemini CLI matchers and the settings loader", () => {
  it("refuses a matcher with $NAME, which Gemini would expand", () => {
    const d = decide({ ...guard, matcher: "^a$b", targets: ["gemini"] });
    expect(omissionError(d)).toBe(
      'hook "guard" targets gemini but matcher "^a$b" is not supported for gemini (Gemini CLI would expand its $ when it loads its settings)',
    );
  });
});

describe("Kimi Code never gets an entry it would reject", () => {
  const KIMI_EVENTS = Object.keys(kimiManifest.hooks.events);
  const hookEntry = fc.record(
    {
      name: fc.stringMatching(/^[a-z]{1,8}$/),
      event: fc.constantFrom(...KIMI_EVENTS, "PermissionDenied", "Setup", "Bogus"),
      matcher: fc.oneof(
        fc.constantFrom(
          "*",
          "",
          "Bash",
          "Bash, Edit",
          "startup",
          "mcp__x__y",
          "Edit|Write",
          "(",
          "^Bash$",
          "a(?=b)",
        ),
        fc.string({ maxLength: 6 }),
      ),
      type: fc.constantFrom("command", "http", "prompt", undefined),
      command: fc.string({ maxLength: 10 }),
      args: fc.option(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), { nil: undefined }),
      timeout: fc.option(fc.integer({ min: 0, max: 2000 }), { nil: undefined }),
      async: fc.option(fc.boolean(), { nil: undefined }),
    },
    { requiredKeys: ["name", "event"] },
  );

  it("writes only event, matcher, command and timeout, with a known event, a valid regex and 1–600 s", () => {
    fc.assert(
      fc.property(fc.array(hookEntry, { maxLength: 5 }), (hooks) => {
        const natives = hooks
          .map((h, i) => decideHook(h as HookEntry, i, kimiManifest, "user"))
          .filter((d) => d?.native)
          .map((d) => d!.native!);
        const file = kimi.hookFile(natives);
        if (!file) return;
        const tables = (parseToml(file.content) as { hooks: Record<string, unknown>[] }).hooks;
        expect(tables).toHaveLength(natives.length);
        for (const t of tables) {
          expect(Object.keys(t).every((k) => ["event", "matcher", "command", "timeout"].includes(k))).toBe(
            true,
          );
          expect(KIMI_EVENTS).toContain(t.event);
          expect(typeof t.command === "string" && t.command !== "").toBe(true);
          if (t.matcher !== undefined) expect(() => new RegExp(t.matcher as string)).not.toThrow();
          if (t.timeout !== undefined) {
            expect(Number.isInteger(t.timeout)).toBe(true);
            expect(t.timeout as number).toBeGreaterThanOrEqual(1);
            expect(t.timeout as number).toBeLessThanOrEqual(600);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
