/**
 * Codex hook ids, hashes and trust states, pinned by the output of the real Codex 0.171.0 binary
 * (see test/fixtures/codex-trust/README.md for how each fixture was produced).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CodexHookTrustEntry,
  type CodexHookTrustReport,
  codexHookId,
  codexHookTrust,
  readCodexHookStates,
} from "../../../src/agents/codex/trust.js";
import {
  canonicalJson,
  parseJsonText,
  SerdeNumber,
  serdeNumberLiteral,
} from "../../../src/agents/codex/trust-json.js";

const FIXTURES = join(import.meta.dirname, "../../fixtures/codex-trust");
// Made-up paths, not this machine's. The hashes do not depend on them; the ids do.
const CODEX_HOME = "/home/dev/.codex";
const PROJECT = "/home/dev/src/app";
const USER_HOOKS = `${CODEX_HOME}/hooks.json`;
const PROJECT_HOOKS = `${PROJECT}/.codex/hooks.json`;

function fixture(path: string): string {
  return readFileSync(join(FIXTURES, path), "utf8")
    .replaceAll("<CODEX_HOME>", CODEX_HOME)
    .replaceAll("<PROJECT>", PROJECT);
}

interface CodexListedHook {
  key: string;
  enabled: boolean;
  currentHash: string;
  trustStatus: "trusted" | "modified" | "untrusted";
}

interface CodexList {
  warnings: string[];
  hooks: CodexListedHook[];
}

/** What Codex's `hooks/list` would say for our entries. */
function asCodexList(entries: CodexHookTrustEntry[]) {
  const status = { trusted: "trusted", changed: "modified", new: "untrusted" } as const;
  return entries.map((e) => ({
    key: e.id,
    enabled: e.enabled,
    currentHash: e.hash,
    trustStatus: status[e.trust],
  }));
}

function codexSaid(list: CodexList) {
  return list.hooks.map(({ key, enabled, currentHash, trustStatus }) => ({
    key,
    enabled,
    currentHash,
    trustStatus,
  }));
}

function byId(report: CodexHookTrustReport): Map<string, CodexHookTrustEntry> {
  return new Map(report.entries.map((e) => [e.id, e]));
}

describe("user scope, trusted with the real Codex TUI", () => {
  const config = fixture("user/config.toml");
  const lists = JSON.parse(fixture("user/codex-hooks-list.json")) as Record<string, CodexList>;

  it("computes Codex's ids, hashes and states for the reviewed file", () => {
    const report = codexHookTrust({
      hooks: fixture("user/hooks.json"),
      hooksPath: USER_HOOKS,
      configToml: config,
    });
    expect(report.hooksError).toBeUndefined();
    expect(report.configError).toBeUndefined();
    expect(asCodexList(report.entries)).toEqual(codexSaid(lists.original!));
    const states = Object.fromEntries(
      report.entries.map((e) => [e.id.slice(USER_HOOKS.length + 1), e.state]),
    );
    expect(states).toEqual({
      "pre_tool_use:0:0": "trusted",
      "pre_tool_use:0:1": "disabled",
      "pre_tool_use:1:0": "trusted",
      "permission_request:0:0": "trusted",
      "post_tool_use:0:0": "trusted",
      "post_tool_use:1:0": "trusted",
      "pre_compact:0:0": "trusted",
      "session_start:0:0": "trusted",
      "session_end:0:0": "trusted",
      "user_prompt_submit:0:0": "trusted",
      "stop:0:0": "trusted",
    });
  });

  it("accepts the parsed object as well as the text", () => {
    const text = fixture("user/hooks.json");
    const fromText = codexHookTrust({ hooks: text, hooksPath: USER_HOOKS, configToml: config });
    const fromObject = codexHookTrust({ hooks: JSON.parse(text), hooksPath: USER_HOOKS, configToml: config });
    expect(fromObject).toEqual(fromText);
  });

  it("reports edited, added and disabled hooks as Codex does", () => {
    const report = codexHookTrust({
      hooks: fixture("user/hooks.modified.json"),
      hooksPath: USER_HOOKS,
      configToml: config,
    });
    expect(asCodexList(report.entries)).toEqual(codexSaid(lists.modified!));
    const entries = byId(report);
    // The timeout went from 600 to 601: the same id, a new hash.
    expect(entries.get(`${USER_HOOKS}:stop:0:0`)).toMatchObject({ state: "changed", trust: "changed" });
    expect(entries.get(`${USER_HOOKS}:stop:0:0`)?.trustedHash).toBe(
      "sha256:236335e9e512004a0f5f42af65a07ea9059bd9a23dbb68286ed57fecf2b69ddf",
    );
    expect(entries.get(`${USER_HOOKS}:session_start:0:1`)).toMatchObject({
      state: "new",
      trustedHash: undefined,
    });
    expect(entries.get(`${USER_HOOKS}:pre_tool_use:0:1`)).toMatchObject({
      state: "disabled",
      trust: "changed",
      enabled: false,
    });
  });

  it("without a config every hook is new", () => {
    for (const configToml of [undefined, null]) {
      const report = codexHookTrust({ hooks: fixture("user/hooks.json"), hooksPath: USER_HOOKS, configToml });
      expect(report.entries).toHaveLength(11);
      expect(new Set(report.entries.map((e) => e.state))).toEqual(new Set(["new"]));
      expect(report.configError).toBeUndefined();
    }
  });

  it("hashes do not depend on the path; ids do", () => {
    const here = codexHookTrust({ hooks: fixture("user/hooks.json"), hooksPath: USER_HOOKS });
    const there = codexHookTrust({ hooks: fixture("user/hooks.json"), hooksPath: "/elsewhere/hooks.json" });
    expect(there.entries.map((e) => e.hash)).toEqual(here.entries.map((e) => e.hash));
    expect(there.entries[0]?.id).toBe("/elsewhere/hooks.json:pre_tool_use:0:0");
  });
});

describe("project scope", () => {
  const config = fixture("project/config.toml");
  const list = JSON.parse(fixture("project/codex-hooks-list.json")) as CodexList;

  it("computes Codex's ids and hashes; trust comes from the user config", () => {
    const user = codexHookTrust({
      hooks: fixture("project/user-hooks.json"),
      hooksPath: USER_HOOKS,
      configToml: config,
    });
    const project = codexHookTrust({
      hooks: fixture("project/hooks.json"),
      hooksPath: PROJECT_HOOKS,
      configToml: config,
    });
    const ours = asCodexList([...user.entries, ...project.entries]);
    // Known limitation: Codex drops a group whose matcher is not a valid Rust regex ("[" here); this
    // module does not validate regexes, so it still reports that group's handler.
    const invalidMatcherGroup = `${PROJECT_HOOKS}:pre_tool_use:1:0`;
    expect(ours.map((e) => e.key)).toContain(invalidMatcherGroup);
    const sorted = (xs: { key: string }[]) => [...xs].sort((a, b) => a.key.localeCompare(b.key));
    expect(sorted(ours.filter((e) => e.key !== invalidMatcherGroup))).toEqual(sorted(codexSaid(list)));
    expect(project.skipped).toEqual([
      { event: "PreToolUse", groupIndex: 2, handlerIndex: 0, reason: "empty command" },
      {
        event: "PreToolUse",
        groupIndex: 2,
        handlerIndex: 1,
        reason: "prompt hooks are not supported by Codex",
      },
    ]);
  });

  it("a project's own config.toml holds no trust that Codex reads", () => {
    // project-config.toml says stop:0:0 is disabled with another hash, and Codex ignored it: it
    // listed the hook as enabled and trusted (from the user config).
    const listed = list.hooks.find((h) => h.key === `${PROJECT_HOOKS}:stop:0:0`);
    expect(listed).toMatchObject({ enabled: true, trustStatus: "trusted" });
    expect(fixture("project/project-config.toml")).toContain(`${PROJECT_HOOKS}:stop:0:0`);
  });
});

describe("MCP handlers, additionalContextLimit, SessionEnd and Interrupt", () => {
  it("computes Codex's hashes, including serde's number literals in MCP input", () => {
    const list = JSON.parse(fixture("mcp/codex-hooks-list.json")) as CodexList;
    const report = codexHookTrust({ hooks: fixture("mcp/hooks.json"), hooksPath: USER_HOOKS });
    expect(asCodexList(report.entries)).toEqual(codexSaid(list));
    expect(report.skipped).toEqual([
      { event: "PreToolUse", groupIndex: 0, handlerIndex: 5, reason: "empty MCP server or tool" },
      {
        event: "SessionEnd",
        groupIndex: 0,
        handlerIndex: 1,
        reason: "SessionEnd MCP hooks are not supported by Codex",
      },
    ]);
    expect(report.entries.map((e) => e.handlerType)).toContain("mcp_tool");
  });
});

describe("reading trust state", () => {
  it("trims keys, ignores unknown fields, and reads enabled without a hash (as Codex listed them)", () => {
    const list = JSON.parse(fixture("edge/codex-hooks-list.json")) as CodexList;
    const report = codexHookTrust({
      hooks: fixture("user/hooks.json"),
      hooksPath: USER_HOOKS,
      configToml: fixture("edge/config.toml"),
    });
    expect(report.configError).toBeUndefined();
    expect(asCodexList(report.entries)).toEqual(codexSaid(list));
    expect(byId(report).get(`${USER_HOOKS}:pre_tool_use:1:0`)).toMatchObject({
      state: "disabled",
      trust: "new",
    });
  });

  it("never crashes on a bad config: it returns a warning and treats every hook as unreviewed", () => {
    for (const configToml of [
      "[hooks.state\ntrusted_hash = ",
      // Codex 0.171.0 rejects the whole config for this: `invalid type: string "no", expected a boolean`.
      `[hooks.state."${USER_HOOKS}:stop:0:0"]\nenabled = "no"\n`,
      `[hooks.state."${USER_HOOKS}:stop:0:0"]\ntrusted_hash = 5\n`,
      "hooks = 5\n",
    ]) {
      const report = codexHookTrust({ hooks: fixture("user/hooks.json"), hooksPath: USER_HOOKS, configToml });
      expect(report.configError).toMatch(/^cannot read Codex hook trust from config\.toml: /);
      expect(report.entries).toHaveLength(11);
      expect(report.entries.every((e) => e.state === "new")).toBe(true);
    }
  });

  it("later duplicate keys win field by field", () => {
    const states = readCodexHookStates(
      ['[hooks.state."a"]', "enabled = false", '[hooks.state." a "]', 'trusted_hash = "sha256:x"'].join("\n"),
    );
    expect(states).toEqual(new Map([["a", { enabled: false, trustedHash: "sha256:x" }]]));
  });

  it("reads nothing from a config without hooks", () => {
    expect(readCodexHookStates('model = "x"\n[hooks]\n')).toEqual(new Map());
  });
});

describe("hooks files Codex would reject", () => {
  const cases: [string, unknown][] = [
    ["not JSON", "{"],
    ["JSON with a comment", '{"hooks": {} // c\n}'],
    ["an unknown top-level field", { hooks: {}, other: true }],
    ["an event that is not an array", { hooks: { Stop: { hooks: [] } } }],
    ["an unknown handler type", { hooks: { Stop: [{ hooks: [{ type: "http", url: "x" }] }] } }],
    ["a float timeout", '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x","timeout":5.0}]}]}}'],
    [
      "a negative timeout",
      { hooks: { Stop: [{ hooks: [{ type: "command", command: "x", timeout: -1 }] }] } },
    ],
    [
      "a null in MCP input",
      { hooks: { Stop: [{ hooks: [{ type: "mcp_tool", server: "s", tool: "t", input: { a: null } }] }] } },
    ],
    ["a missing command", { hooks: { Stop: [{ hooks: [{ type: "command" }] }] } }],
    ["a non-string matcher", { hooks: { PreToolUse: [{ matcher: 1, hooks: [] }] } }],
  ];
  for (const [name, hooks] of cases) {
    it(`reports ${name} instead of throwing`, () => {
      const report = codexHookTrust({ hooks, hooksPath: USER_HOOKS });
      expect(report.hooksError).toMatch(/^Codex would not load \/home\/dev\/\.codex\/hooks\.json: /);
      expect(report.entries).toEqual([]);
    });
  }

  it("ignores unknown events and unknown group or handler fields, as Codex does", () => {
    const report = codexHookTrust({
      hooks: {
        description: "d",
        hooks: {
          Notification: [{ hooks: [{ type: "command", command: "echo n" }] }],
          Stop: [{ extra: 1, hooks: [{ type: "command", command: "echo s", foo: "bar", timeout: 5 }] }],
        },
      },
      hooksPath: USER_HOOKS,
    });
    // The hash Codex 0.171.0 listed for this exact file.
    expect(report.entries.map((e) => [e.id, e.hash])).toEqual([
      [`${USER_HOOKS}:stop:0:0`, "sha256:83422b6e02c2f492c9db39b3e863996a1ba898d6fe765a2cb2f4550b90823170"],
    ]);
  });
});

describe("building blocks", () => {
  it("formats ids as <path>:<event label>:<group>:<handler>", () => {
    expect(codexHookId("/p/.codex/hooks.json", "PreToolUse", 2, 3)).toBe(
      "/p/.codex/hooks.json:pre_tool_use:2:3",
    );
    expect(codexHookId("/h/hooks.json", "PostModelRequest", 0, 0)).toBe(
      "/h/hooks.json:post_model_request:0:0",
    );
  });

  it("normalises number literals as serde_json's arbitrary_precision does", () => {
    const seen: [string, string][] = [
      ["1.50", "1.50"],
      ["1E2", "1e+2"],
      ["1e07", "1e+07"],
      ["1.0E-05", "1.0e-05"],
      ["-0", "0"],
      ["-0.0", "-0.0"],
      ["-0e0", "-0e+0"],
      ["0.000", "0.000"],
      ["-7", "-7"],
      ["1e+21", "1e+21"],
      ["18446744073709551616", "18446744073709551616"],
      ["-9223372036854775809", "-9223372036854775809"],
    ];
    for (const [literal, serde] of seen) expect(serdeNumberLiteral(literal)).toBe(serde);
  });

  it("sorts keys by UTF-8 bytes, not UTF-16 units", () => {
    const value = new Map<string, string>([
      ["\u{1F600}", "emoji"],
      ["\uE000", "private use"],
      ["b", "b"],
      ["a", "a"],
    ]);
    expect(canonicalJson(value)).toBe('{"a":"a","b":"b","\uE000":"private use","\u{1F600}":"emoji"}');
    expect(canonicalJson(new SerdeNumber("1.5"))).toBe('{"$serde_json::private::Number":"1.5"}');
    expect(canonicalJson([1n, true, "x\n\u0007"])).toBe('[1,true,"x\\n\\u0007"]');
  });

  it("keeps number literals when parsing text", () => {
    const parsed = parseJsonText('{"a": 1.50, "b": [1E2]}');
    expect(parsed).toEqual(
      new Map<string, unknown>([
        ["a", { literal: "1.50" }],
        ["b", [{ literal: "1E2" }]],
      ]),
    );
  });

  it("text and object input agree for any command, matcher and status message", () => {
    fc.assert(
      fc.property(fc.string(), fc.option(fc.string()), fc.option(fc.string()), (command, matcher, status) => {
        const hooks = {
          hooks: {
            PreToolUse: [
              {
                ...(matcher === null ? {} : { matcher }),
                hooks: [{ type: "command", command, ...(status === null ? {} : { statusMessage: status }) }],
              },
            ],
          },
        };
        const fromObject = codexHookTrust({ hooks, hooksPath: USER_HOOKS });
        const fromText = codexHookTrust({ hooks: JSON.stringify(hooks), hooksPath: USER_HOOKS });
        expect(fromText).toEqual(fromObject);
      }),
    );
  });
});
