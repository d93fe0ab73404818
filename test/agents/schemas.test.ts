/**
 * Every hook file kanon renders is valid under the agent's own published schema (pinned in
 * test/fixtures/schemas, see its README), and the manifests' handler tables say what those schemas
 * say: for realistic homes (the golden renders), for random homes, and after a merge into a user's
 * own settings.json.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { claudeManifest } from "../../src/agents/claude/manifest.js";
import { codexManifest } from "../../src/agents/codex/manifest.js";
import { gemini } from "../../src/agents/gemini/index.js";
import { geminiManifest } from "../../src/agents/gemini/manifest.js";
import { AGENTS } from "../../src/agents/index.js";
import { kimiManifest } from "../../src/agents/kimi/manifest.js";
import { nativeHooks } from "../../src/core/hooks/support.js";
import { NEUTRAL_EVENTS, NEUTRAL_HANDLERS } from "../../src/core/hooks/vocabulary.js";
import { mergeCoOwned } from "../../src/destination/edit/index.js";
import type { HookEntry, KanonConfig } from "../../src/model/config.js";
import type { Agent } from "../../src/model/manifest.js";
import type { MergeSpec } from "../../src/model/types.js";
import { validateConfig } from "../../src/source/validate.js";
import { ROOT } from "../support/cli.js";

// biome-ignore lint/suspicious/noExplicitAny: schema documents are walked by their published shape
type Json = Record<string, any>;
const fixture = (...p: string[]) => join(ROOT, "test", ...p);
const readJson = (...p: string[]): Json => JSON.parse(readFileSync(fixture(...p), "utf8"));

/** Events Claude Code 2.1.332 runs that the pinned schema (2026-08-03) does not list yet. */
const CLAUDE_EVENTS_NEWER_THAN_SCHEMA = ["PreSkillShellCommand", "PreModelSwitch", "PostModelSwitch"];

const claudeSchema = readJson("fixtures/schemas/claude-code-settings.json");
const codexSchema = readJson("fixtures/schemas/codex-hooks.json");
const claudeEventsInSchema = Object.keys(claudeSchema.properties.hooks.properties);
for (const event of CLAUDE_EVENTS_NEWER_THAN_SCHEMA) {
  claudeSchema.properties.hooks.properties[event] = { type: "array", items: { $ref: "#/$defs/hookMatcher" } };
}

/**
 * Gemini CLI's settings schema (draft 2020-12) types a handler's keys but allows any others and any
 * type; its loader and docs take `type: "command"` only, with the keys the schema lists. The strict
 * copy adds just that, so a key or type Gemini would not run fails the test.
 */
const geminiSchema = readJson("fixtures/schemas/gemini-cli-settings.schema.json");
const geminiHandlerSchema: Json = geminiSchema.$defs.HookDefinitionArray.items.properties.hooks.items;
const geminiEventsInSchema = Object.keys(geminiSchema.properties.hooks.properties);
const geminiStrict: Json = structuredClone(geminiSchema);
delete geminiStrict.$id;
{
  const handler = geminiStrict.$defs.HookDefinitionArray.items.properties.hooks.items;
  handler.additionalProperties = false;
  handler.required = ["type", "command"];
  handler.properties.type = { ...handler.properties.type, const: "command" };
  geminiStrict.$defs.HookDefinitionArray.items.additionalProperties = false;
  geminiStrict.properties.hooks.additionalProperties = false;
}
/** Kimi Code publishes no schema: its [[hooks]] table transcribed from the 2.1.0 bundle (see the README). */
const kimiSchema = readJson("fixtures/schemas/kimi-code-hooks.json");
const kimiEvents: string[] = kimiSchema.properties.hooks.items.properties.event.enum;

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const ajv2020 = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const validators: Record<string, ValidateFunction> = {
  claude: ajv.compile(claudeSchema),
  codex: ajv.compile(codexSchema),
  gemini: ajv2020.compile(geminiStrict),
  kimi: ajv.compile(kimiSchema),
};
const geminiAsPublished = ajv2020.compile(geminiSchema);

function expectValid(agent: string, doc: unknown, what: string, validate = validators[agent]!) {
  const ok = validate(doc);
  expect(ok ? [] : ajv.errorsText(validate.errors).split(", "), `${agent} ${what}`).toEqual([]);
}

/** A rendered hook file as the document its schema describes (Kimi's config.toml is TOML). */
function hookDocument(agent: string, content: string): unknown {
  return agent === "kimi" ? parseToml(content) : JSON.parse(content);
}

const claudeHandlerSchemas: Json[] = claudeSchema.$defs.hookCommand.anyOf;
const nativeNames = (fields: Agent["manifest"]["hooks"]["handlers"][string]["fields"]) =>
  Object.entries(fields)
    .filter(([, f]) => f.support === "native")
    .map(([name, f]) => (f.support === "native" && f.name) || name);

describe("the manifests' handler tables are the agents' schemas", () => {
  it("Claude: each type's native fields are exactly the schema's properties, its required fields the schema's", () => {
    expect(Object.keys(claudeManifest.hooks.handlers).sort()).toEqual(
      claudeHandlerSchemas.map((h) => h.properties.type.const).sort(),
    );
    for (const [type, handler] of Object.entries(claudeManifest.hooks.handlers)) {
      const schema = claudeHandlerSchemas.find((h) => h.properties.type.const === type)!;
      expect(nativeNames(handler.fields).sort(), type).toEqual(
        Object.keys(schema.properties)
          .filter((k) => k !== "type")
          .sort(),
      );
      const neutral = NEUTRAL_HANDLERS.find((h) => h.type === type)!;
      const toNative = (f: string) => {
        const fs = handler.fields[f];
        return (fs?.support === "native" && fs.name) || f;
      };
      expect(neutral.required.map(toNative).sort(), type).toEqual(
        schema.required.filter((k: string) => k !== "type").sort(),
      );
    }
  });

  it("Claude: the manifest's events are the schema's plus the ones newer than it", () => {
    expect(Object.keys(claudeManifest.hooks.events).sort()).toEqual(
      [...claudeEventsInSchema, ...CLAUDE_EVENTS_NEWER_THAN_SCHEMA].sort(),
    );
    expect(claudeEventsInSchema).not.toContain("Interrupt");
  });

  it("Codex: only command handlers, with fields the schema's command handler defines", () => {
    expect(Object.keys(codexManifest.hooks.handlers)).toEqual(["command"]);
    const props = Object.keys(codexSchema.definitions.commandHandler.properties);
    for (const name of nativeNames(codexManifest.hooks.handlers.command!.fields))
      expect(props).toContain(name);
  });

  it("Gemini CLI: only command handlers, with fields its settings schema's handler defines, on its events", () => {
    expect(Object.keys(geminiManifest.hooks.handlers)).toEqual(["command"]);
    const props = Object.keys(geminiHandlerSchema.properties);
    for (const name of nativeNames(geminiManifest.hooks.handlers.command!.fields))
      expect(props).toContain(name);
    for (const e of Object.values(geminiManifest.hooks.events))
      expect(geminiEventsInSchema).toContain(e.native);
  });

  it("Kimi Code: only command handlers, with the fields and events of its [[hooks]] table", () => {
    expect(Object.keys(kimiManifest.hooks.handlers)).toEqual(["command"]);
    const props = Object.keys(kimiSchema.properties.hooks.items.properties);
    for (const name of nativeNames(kimiManifest.hooks.handlers.command!.fields))
      expect(props).toContain(name);
    expect(
      Object.values(kimiManifest.hooks.events)
        .map((e) => e.native)
        .sort(),
    ).toEqual([...kimiEvents].sort());
  });
});

describe("rendered hook files are valid under the agents' schemas", () => {
  it("the golden renders of the realistic home", () => {
    for (const scope of ["user", "project"]) {
      expectValid("claude", readJson("golden/render", scope, ".claude/settings.json"), `${scope} golden`);
      expectValid("codex", readJson("golden/render", scope, ".codex/hooks.json"), `${scope} golden`);
      const geminiSettings = readJson("golden/render", scope, ".gemini/settings.json");
      expectValid("gemini", geminiSettings, `${scope} golden`);
      expectValid("gemini", geminiSettings, `${scope} golden, published schema`, geminiAsPublished);
    }
    const kimiConfig = readFileSync(fixture("golden/render/user/.kimi-code/config.toml"), "utf8");
    expectValid("kimi", hookDocument("kimi", kimiConfig), "user golden");
  });

  it("the user's own valid Gemini settings.json stays valid with kanon's servers and hooks merged in", () => {
    const user = `{
  // Gemini CLI settings (comments are allowed)
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "hooksConfig": { "disabled": ["old-guard"] },
  "mcpServers": { "mine": { "command": "my-server", "timeout": 30000 } },
  "hooks": {
    "BeforeTool": [
      { "matcher": "write_file", "hooks": [{ "type": "command", "name": "my-guard", "command": "~/g.sh" }] }
    ]
  }
}
`;
    const rendered = readJson("golden/render/user/.gemini/settings.json");
    const hookFile = gemini.hookFile([
      {
        name: "guard",
        neutralEvent: "PreToolUse",
        event: "BeforeTool",
        matcher: { kind: "all" },
        type: "command",
        command: "./guard.sh",
        fields: {},
      },
    ])!;
    const spec: MergeSpec = {
      kind: "regions",
      format: "json",
      regions: [{ kind: "entries", format: "json", key: "mcpServers" }, hookFile.merge as never],
    };
    expectValid("gemini", parseJsonc(user), "user settings before the merge");
    const merged = parseJsonc(mergeCoOwned(user, spec, rendered, "settings.json"));
    expect(merged.security).toEqual({ auth: { selectedType: "gemini-api-key" } });
    expect(merged.mcpServers.mine).toEqual({ command: "my-server", timeout: 30000 });
    expectValid("gemini", merged, "merged settings");
  });

  it("the user's own valid settings.json stays valid with kanon's hooks merged in", () => {
    // The merge fixture with its made-up "Old" event (which the schema rightly rejects) taken out.
    const doc = readJson("fixtures/merge/claude-settings.json");
    delete doc.hooks.Old;
    const user = `${JSON.stringify(doc, null, 2)}\n`;
    const rendered = readJson("golden/render/user/.claude/settings.json");
    expectValid("claude", JSON.parse(user), "user settings before the merge");
    const merged = mergeCoOwned(
      user,
      { kind: "value", format: "json", key: "hooks" },
      rendered,
      "settings.json",
    );
    expect(JSON.parse(merged).permissions).toEqual(JSON.parse(user).permissions);
    expectValid("claude", JSON.parse(merged), "merged settings");
  });

  const knownEvents = [
    ...new Set([
      ...NEUTRAL_EVENTS.map((e) => e.name),
      ...AGENTS.flatMap((a) => Object.keys(a.manifest.hooks.events)),
    ]),
  ];

  /** Renders random homes for every agent and validates each hook file; counts the files per agent. */
  async function checkRandomHomes(
    hook: fc.Arbitrary<Omit<HookEntry, "name">>,
  ): Promise<Record<string, number>> {
    const checked: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(fc.array(hook, { maxLength: 8 }), async (hooks) => {
        const config: KanonConfig = {
          version: 1,
          instructions: { files: [] },
          skills: [],
          mcp: { servers: {} },
          hooks: hooks.map((h, i) => ({ ...h, name: `h${i}` })),
          metadata: {},
        };
        const paths = { home: "/nonexistent", config: "/nonexistent/kanon.yaml", userHome: "/nonexistent" };
        const v = await validateConfig(config, paths, AGENTS, "user", {});
        expect(v.errors).toEqual([]);
        for (const agent of AGENTS) {
          const validate = validators[agent.manifest.id];
          if (!validate) continue;
          const file = agent.hookFile(nativeHooks(v.decisions, agent.manifest.id));
          if (!file) continue;
          expectValid(agent.manifest.id, hookDocument(agent.manifest.id, file.content), file.content);
          checked[agent.manifest.id] = (checked[agent.manifest.id] ?? 0) + 1;
        }
      }),
      { numRuns: 300 },
    );
    return checked;
  }

  it("random homes: every hook file of every agent with a published schema", async () => {
    const checked = await checkRandomHomes(hookArb(knownEvents));
    // Most random homes give Claude a hook file to check, and some give Codex one: about 22 of 300
    // (7%, standard deviation ~4.5), so a floor of 10 failed about once in 200 runs; 3 shows the
    // schema was exercised and fails by chance about once in a million.
    expect(checked.claude).toBeGreaterThan(150);
    expect(checked.codex).toBeGreaterThan(2);
  });

  it("random homes of command hooks on the neutral events (what Gemini CLI and Kimi Code run)", async () => {
    const command = NEUTRAL_HANDLERS.find((h) => h.type === "command")!;
    const checked = await checkRandomHomes(
      hookArb(
        NEUTRAL_EVENTS.map((e) => e.name),
        [{ ...command, optional: ["args", "timeout", "status_message"] }],
      ),
    );
    expect(checked.gemini).toBeGreaterThan(150);
    expect(checked.kimi).toBeGreaterThan(150);
  });
});

const text = fc.oneof(
  fc.constantFrom("x", "./hook.sh", "echo 'a b'", "é", "$ARGUMENTS", " "),
  fc.string({ minLength: 1, maxLength: 6 }),
);
const maybeEmpty = fc.oneof(text, fc.constant(""));
const FIELD_VALUES: Record<string, fc.Arbitrary<unknown>> = {
  command: text,
  args: fc.array(maybeEmpty, { maxLength: 3 }),
  shell: fc.constantFrom("bash", "powershell"),
  timeout: fc.integer({ min: 0, max: 900 }),
  async: fc.boolean(),
  async_rewake: fc.boolean(),
  if: maybeEmpty,
  status_message: maybeEmpty,
  url: text,
  headers: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), maybeEmpty, { maxKeys: 2 }),
  allowed_env_vars: fc.array(text, { maxLength: 2 }),
  server: text,
  tool: text,
  input: fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), {
    maxKeys: 3,
  }),
  prompt: text,
  model: maybeEmpty,
  continue_on_block: fc.boolean(),
};

/** A valid kanon.yaml hook of a random type, with its required fields and a random set of its optional ones. */
function hookArb(
  events: string[],
  handlers: readonly (typeof NEUTRAL_HANDLERS)[number][] = NEUTRAL_HANDLERS,
): fc.Arbitrary<Omit<HookEntry, "name">> {
  return fc
    .record({
      // Command hooks and cross-agent events more often, so that every agent gets files to check.
      handler: fc.oneof(
        { arbitrary: fc.constant(handlers[0]!), weight: 4 },
        { arbitrary: fc.constantFrom(...handlers), weight: 3 },
      ),
      event: fc.oneof(fc.constantFrom(...NEUTRAL_EVENTS.map((e) => e.name)), fc.constantFrom(...events)),
      matcher: fc.option(fc.constantFrom("Bash", "Edit|Write", "mcp__.*", "startup", "*", ""), {
        nil: undefined,
      }),
      explicitType: fc.boolean(),
    })
    .chain(({ handler, event, matcher, explicitType }) => {
      const required = Object.fromEntries(handler.required.map((f) => [f, FIELD_VALUES[f]!]));
      const optional = Object.fromEntries(handler.optional.map((f) => [f, FIELD_VALUES[f]!]));
      return fc
        .record({ req: fc.record(required), opt: fc.record(optional, { requiredKeys: [] }) })
        .map(({ req, opt }) => ({
          event,
          ...(matcher !== undefined ? { matcher } : {}),
          ...(handler.type !== "command" || explicitType ? { type: handler.type } : {}),
          ...opt,
          ...req,
        }));
    });
}
