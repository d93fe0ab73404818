/**
 * Co-owned hook lists: Kimi Code's `[[hooks]]` tables in config.toml (kanon's carry a header comment)
 * and Gemini CLI's settings.json `hooks` groups (kanon's handlers are named `kanon:…`), next to the
 * user's own hooks, servers and comments. Also Gemini's two managed regions in one file.
 */
import fc from "fast-check";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { gemini } from "../../../src/agents/gemini/index.js";
import { kimi } from "../../../src/agents/kimi/index.js";
import { mergeCoOwned } from "../../../src/destination/edit/index.js";
import type { NativeHook } from "../../../src/model/manifest.js";
import { KanonError, type MergeSpec } from "../../../src/model/types.js";

const hook = (name: string, event: string, command: string, extra: Partial<NativeHook> = {}): NativeHook => ({
  name,
  neutralEvent: event,
  event,
  matcher: { kind: "all" },
  type: "command",
  command,
  fields: {},
  ...extra,
});

const KIMI_CONFIG = `# Kimi Code settings (edited by hand)
default_model = "kimi-k2"

[providers.moonshot]
type = "kimi"   # the default
api_key = "sk-..."

# my own audit hook
[[hooks]]
event = "PostToolUse"
matcher = "^Write$"
command = "~/bin/audit.sh"

[[hooks]]
event = "Stop"
command = "say done" # spoken
`;

function kimiFile(hooks: NativeHook[]) {
  const file = kimi.hookFile(hooks)!;
  return { spec: file.merge!, managed: file.managed!, content: file.content };
}

describe("Kimi Code [[hooks]] tables", () => {
  const first = kimiFile([
    hook("guard", "PreToolUse", "/usr/local/bin/guard", { matcherText: "^(?:Bash)$", timeout: 10 }),
    hook("prompt", "UserPromptSubmit", "log-prompt"),
  ]);

  it("writes a new file with marked tables only", () => {
    expect(first.content).toBe(
      "[[hooks]] # kanon: guard\ncommand = '/usr/local/bin/guard'\nevent = 'PreToolUse'\nmatcher = '^(?:Bash)$'\ntimeout = 10\n\n[[hooks]] # kanon: prompt\ncommand = 'log-prompt'\nevent = 'UserPromptSubmit'\n",
    );
    expect(mergeCoOwned("", first.spec, first.managed, "config.toml")).toBe(first.content);
  });

  it("appends its tables to the user's, keeping every byte of theirs, and is stable", () => {
    const merged = mergeCoOwned(KIMI_CONFIG, first.spec, first.managed, "config.toml");
    expect(merged.startsWith(KIMI_CONFIG)).toBe(true);
    expect(merged.slice(KIMI_CONFIG.length)).toBe(`\n${first.content}`);
    expect(mergeCoOwned(merged, first.spec, first.managed, "config.toml")).toBe(merged);
    const hooks = (parseToml(merged) as { hooks: { event: string }[] }).hooks;
    expect(hooks.map((h) => h.event)).toEqual(["PostToolUse", "Stop", "PreToolUse", "UserPromptSubmit"]);
  });

  it("replaces its own tables in place when they change, and drops one that is gone", () => {
    const merged = mergeCoOwned(KIMI_CONFIG, first.spec, first.managed, "config.toml");
    const userAfter = `${merged}\n# added later by the user\n[[hooks]]\nevent = "SessionEnd"\ncommand = "bye"\n`;
    const second = kimiFile([
      hook("guard", "PreToolUse", "/usr/local/bin/guard2", { matcherText: "^(?:Bash)$" }),
    ]);
    const result = mergeCoOwned(userAfter, second.spec, second.managed, "config.toml");
    expect(result).toBe(
      `${KIMI_CONFIG}\n[[hooks]] # kanon: guard\ncommand = '/usr/local/bin/guard2'\nevent = 'PreToolUse'\nmatcher = '^(?:Bash)$'\n\n# added later by the user\n[[hooks]]\nevent = "SessionEnd"\ncommand = "bye"\n`,
    );
  });

  it("keeps CRLF line endings", () => {
    const crlf = KIMI_CONFIG.replaceAll("\n", "\r\n");
    const merged = mergeCoOwned(crlf, first.spec, first.managed, "config.toml");
    expect(merged.replaceAll("\r\n", "")).not.toContain("\n");
  });

  it.each([
    ["an inline hooks array", 'hooks = [{ event = "Stop", command = "x" }]\n', "hooks is an inline array"],
    ["a hooks table", '[hooks]\nevent = "Stop"\n', "hooks is not an array of tables"],
    ["a file that does not parse", "[[hooks]\nevent = 1\n", "cannot parse config.toml for merge"],
  ])("refuses %s, naming the file", (_name, text, message) => {
    expect(() => mergeCoOwned(text, first.spec, first.managed, "config.toml")).toThrow(KanonError);
    expect(() => mergeCoOwned(text, first.spec, first.managed, "config.toml")).toThrow(message);
  });
});

const GEMINI_SETTINGS = `{
  // Gemini CLI settings (comments are allowed)
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "mcpServers": {
    "mine": { "command": "my-server" }
  },
  "hooks": {
    "BeforeTool": [
      { "matcher": "write_file", "hooks": [{ "type": "command", "name": "my-guard", "command": "~/g.sh" }] }
    ]
  }
}
`;

function geminiFile(hooks: NativeHook[], servers: Record<string, unknown>) {
  const file = gemini.hookFile(hooks)!;
  const spec: MergeSpec = {
    kind: "regions",
    format: "json",
    regions: [{ kind: "entries", format: "json", key: "mcpServers" }, file.merge as never],
  };
  return { spec, managed: { mcpServers: servers, ...file.managed } };
}

describe("Gemini CLI settings.json: MCP servers and hook groups in one file", () => {
  const rendered = geminiFile(
    [
      hook("guard", "BeforeTool", "/usr/local/bin/guard", {
        matcherText: "^(?:run_shell_command)$",
        timeout: 10000,
      }),
    ],
    { context: { command: "context-server" } },
  );

  it("adds kanon's server and group, keeps the user's server, group and comment, and is stable", () => {
    const merged = mergeCoOwned(GEMINI_SETTINGS, rendered.spec, rendered.managed, "settings.json");
    expect(merged).toContain("// Gemini CLI settings (comments are allowed)");
    const doc = parseJsonc(merged) as {
      mcpServers: Record<string, unknown>;
      hooks: { BeforeTool: { hooks: { name: string }[] }[] };
      security: unknown;
    };
    expect(Object.keys(doc.mcpServers)).toEqual(["mine", "context"]);
    expect(doc.hooks.BeforeTool.map((g) => g.hooks[0]!.name)).toEqual(["my-guard", "kanon:guard"]);
    expect(doc.security).toEqual({ auth: { selectedType: "gemini-api-key" } });
    expect(mergeCoOwned(merged, rendered.spec, rendered.managed, "settings.json")).toBe(merged);
  });

  it("replaces kanon's groups and removes an event that only kanon used", () => {
    const withStop = geminiFile(
      [hook("guard", "BeforeTool", "/usr/local/bin/guard"), hook("stop", "AfterAgent", "notify")],
      {},
    );
    const once = mergeCoOwned(GEMINI_SETTINGS, withStop.spec, withStop.managed, "settings.json");
    const later = geminiFile([hook("guard", "BeforeTool", "/usr/local/bin/guard --strict")], {});
    const twice = mergeCoOwned(once, later.spec, later.managed, "settings.json");
    const doc = parseJsonc(twice) as {
      hooks: Record<string, { hooks: { name: string; command: string }[] }[]>;
    };
    expect(Object.keys(doc.hooks)).toEqual(["BeforeTool"]);
    expect(doc.hooks.BeforeTool!.map((g) => g.hooks[0]!.command)).toEqual([
      "~/g.sh",
      "/usr/local/bin/guard --strict",
    ]);
  });

  it("refuses a settings.json that does not parse or whose hooks is not an object", () => {
    expect(() => mergeCoOwned('{"hooks": [', rendered.spec, rendered.managed, "settings.json")).toThrow(
      "cannot parse settings.json for merge",
    );
    expect(() => mergeCoOwned('{"hooks": []}', rendered.spec, rendered.managed, "settings.json")).toThrow(
      "cannot merge settings.json: hooks is not an object",
    );
  });
});

describe("Kimi Code [[hooks]] tables: properties", () => {
  const word = fc.stringMatching(/^[a-z][a-z0-9 ]{0,8}$/);
  const userTable = fc.record({ event: fc.constantFrom("Stop", "PreToolUse"), command: word });
  const kanonHook = fc.record({
    name: fc.stringMatching(/^[a-z]{1,6}$/),
    command: word,
    timeout: fc.integer({ min: 1, max: 600 }),
  });

  it("keeps the user's tables and text, puts kanon's where they were, and is stable", () => {
    fc.assert(
      fc.property(
        fc.array(userTable, { maxLength: 3 }),
        fc.array(kanonHook, { minLength: 1, maxLength: 3 }),
        fc.array(kanonHook, { maxLength: 3 }),
        fc.boolean(),
        (user, before, after, comments) => {
          const userText = user
            .map(
              (t, i) =>
                `${comments ? `# user hook ${i}\n` : ""}[[hooks]]\nevent = "${t.event}"\ncommand = "${t.command}"\n`,
            )
            .join("\n");
          const text = `model = "k2"\n\n${userText}`;
          const toHooks = (list: typeof before) =>
            list.map((h) => hook(h.name, "Stop", h.command, { timeout: h.timeout }));
          const first = kimiFile(toHooks(before));
          const once = mergeCoOwned(text, first.spec, first.managed, "config.toml");
          expect(once.startsWith(text)).toBe(true);
          const next = after.length > 0 ? kimiFile(toHooks(after)) : null;
          const twice = next ? mergeCoOwned(once, next.spec, next.managed, "config.toml") : once;
          const parsed = (parseToml(twice) as { hooks?: { command: string }[] }).hooks ?? [];
          const expected = [...user.map((t) => t.command), ...(next ? after : before).map((h) => h.command)];
          expect(parsed.map((h) => h.command)).toEqual(expected);
          for (const line of userText.split("\n")) expect(twice).toContain(line);
          if (next) expect(mergeCoOwned(twice, next.spec, next.managed, "config.toml")).toBe(twice);
        },
      ),
      { numRuns: 150 },
    );
  });
});
