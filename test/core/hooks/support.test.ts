import { describe, expect, it } from "vitest";
import { claudeManifest } from "../../../src/agents/claude/manifest.js";
import { codexManifest } from "../../../src/agents/codex/manifest.js";
import { decideHook, omissionError, omissionWarning } from "../../../src/core/hooks/support.js";
import type { HookEntry } from "../../../src/model/config.js";

const decide = (hook: HookEntry, manifest = codexManifest, scope: "user" | "project" = "user") =>
  decideHook(hook, 0, manifest, scope)!;

describe("hook support: the seed's reproduction", () => {
  const notification: HookEntry = {
    name: "notification-1",
    event: "Notification",
    type: "command",
    command: `bash -c 'tmux set-window-option window-status-style "bg=yellow"'`,
  };
  const guard: HookEntry = {
    name: "guard-bash",
    event: "PreToolUse",
    matcher: "Bash",
    type: "command",
    command: "/usr/local/bin/guard",
    args: ["--deny", "rm -rf"],
  };

  it("leaves an implicit Notification hook out of Codex with a warning naming hook, agent and event", () => {
    const d = decide(notification);
    expect(d.outcome).toBe("omitted");
    expect(d.explicit).toBe(false);
    expect(omissionWarning(d)).toBe(
      'hook "notification-1" is not rendered for codex: event "Notification" is not supported',
    );
  });

  it("still gives Claude the Notification hook as written", () => {
    const d = decide(notification, claudeManifest);
    expect(d.outcome).toBe("as-written");
    expect(d.native?.event).toBe("Notification");
    expect(d.native?.command).toBe(notification.command);
  });

  it("fails an explicit Notification target with an error naming the capability", () => {
    const d = decide({ ...notification, name: "guard", targets: ["codex"] });
    expect(d.explicit).toBe(true);
    expect(omissionError(d)).toBe(
      'hook "guard" targets codex but event "Notification" is not supported for codex',
    );
  });

  it("turns args into one POSIX-quoted command line for Codex", () => {
    const d = decide(guard);
    expect(d.outcome).toBe("translated");
    expect(d.native?.command).toBe("'/usr/local/bin/guard' '--deny' 'rm -rf'");
    expect(d.native?.args).toBeUndefined();
    expect(d.translations).toContain("args → one POSIX-quoted command line");
  });

  it("keeps args as exec form for Claude", () => {
    const d = decide(guard, claudeManifest);
    expect(d.outcome).toBe("as-written");
    expect(d.native?.args).toEqual(["--deny", "rm -rf"]);
    expect(d.native?.command).toBe("/usr/local/bin/guard");
  });

  it("never lets type http reach Codex", () => {
    const http = { name: "audit", event: "PostToolUse", type: "http", url: "https://a.example/" };
    const implicit = decide(http);
    expect(implicit.outcome).toBe("omitted");
    expect(omissionWarning(implicit)).toBe(
      'hook "audit" is not rendered for codex: type "http" is not supported',
    );
    const explicit = decide({ ...http, targets: ["codex"] });
    expect(omissionError(explicit)).toBe(
      'hook "audit" targets codex but type "http" is not supported for codex',
    );
    expect(decide(http, claudeManifest).outcome).toBe("as-written");
  });

  it("does not decide for agents the hook does not target", () => {
    expect(
      decideHook({ name: "x", event: "Stop", command: "c", targets: ["claude"] }, 0, codexManifest, "user"),
    ).toBeNull();
  });

  it("treats targets [all] as implicit", () => {
    expect(decide({ ...notification, targets: ["all"] }).explicit).toBe(false);
  });
});

describe("hook support: matchers", () => {
  const pre = (matcher: string): HookEntry => ({ name: "m", event: "PreToolUse", matcher, command: "x" });

  it("keeps a native Codex list as written", () => {
    const d = decide(pre("Bash|Edit"));
    expect(d.outcome).toBe("as-written");
    expect(d.native?.matcherText).toBe("Bash|Edit");
  });

  it("rewrites Claude's comma list for Codex, which splits on | only", () => {
    const d = decide(pre("Bash, Edit"));
    expect(d.outcome).toBe("translated");
    expect(d.native?.matcherText).toBe("Bash|Edit");
  });

  it("keeps Claude's comma list for Claude", () => {
    expect(decide(pre("Bash, Edit"), claudeManifest).native?.matcherText).toBe("Bash, Edit");
  });

  it("drops tools Codex does not have, and leaves the hook out when none remain", () => {
    const some = decide(pre("Bash|Read"));
    expect(some.native?.matcherText).toBe("Bash");
    expect(some.outcome).toBe("translated");
    const none = decide(pre("Read|Grep"));
    expect(none.outcome).toBe("omitted");
    expect(omissionWarning(none)).toBe(
      'hook "m" is not rendered for codex: matcher "Read|Grep" is not supported (Codex CLI has no tool "Read", "Grep")',
    );
  });

  it("passes MCP tool names through", () => {
    expect(decide(pre("mcp__github__create_issue")).native?.matcherText).toBe("mcp__github__create_issue");
  });

  it("keeps a regex Codex's engine accepts and rejects lookaround", () => {
    expect(decide(pre("^mcp__.*")).native?.matcherText).toBe("^mcp__.*");
    const d = decide(pre("^(?!Read).*"));
    expect(d.outcome).toBe("omitted");
    expect(d.missing?.detail).toContain("lookaround");
  });

  it("filters session sources by what the agent emits", () => {
    const start = (matcher: string): HookEntry => ({
      name: "s",
      event: "SessionStart",
      matcher,
      command: "x",
    });
    expect(decide(start("startup|compact")).outcome).toBe("as-written");
  });
});

describe("hook support: notes and gates", () => {
  it("notes Codex's 3 s cap on SessionEnd timeouts without changing the file", () => {
    const d = decide({ name: "end", event: "SessionEnd", command: "x", timeout: 10 });
    expect(d.outcome).toBe("as-written");
    expect(d.native?.timeout).toBe(10);
    expect(d.notes.join()).toContain("3 s");
  });

  it("reports Codex's review gate, and project trust only in project scope", () => {
    const hook: HookEntry = { name: "s", event: "Stop", command: "x" };
    expect(decide(hook).gates.map((g) => g.id)).toEqual(["codex-hook-review"]);
    expect(decide(hook, codexManifest, "project").gates.map((g) => g.id)).toEqual([
      "codex-hook-review",
      "codex-project-trust",
    ]);
  });

  it("passes an event kanon does not know through to Claude, noting it", () => {
    const d = decide({ name: "i", event: "BrandNewEvent", command: "x" }, claudeManifest);
    expect(d.outcome).toBe("passed-through");
    expect(d.native?.event).toBe("BrandNewEvent");
    expect(d.notes.join()).toContain('kanon does not know event "BrandNewEvent"');
  });

  it("leaves a neutral event Claude lacks out of Claude (Interrupt never fires there)", () => {
    const d = decide({ name: "i", event: "Interrupt", command: "x" }, claudeManifest);
    expect(d.outcome).toBe("omitted");
    expect(omissionWarning(d)).toBe(
      'hook "i" is not rendered for claude: event "Interrupt" is not supported',
    );
  });

  it("uses the name as the event when event is empty", () => {
    expect(decide({ name: "Stop", command: "x" }).native?.event).toBe("Stop");
  });
});
