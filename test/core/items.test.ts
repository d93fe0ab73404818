/**
 * The support check of commands and subagents (core/items.ts) on manifests made for the test: each
 * placeholder spelt the agent's way or the command left out (naming the body's line), fields written
 * under the agent's names, dropped or missing, tools mapped, narrowed or missing, model names the
 * agent does not take, sections an agent lacks, and the warning and error texts.
 */
import { describe, expect, it } from "vitest";
import { claudeManifest } from "../../src/agents/claude/manifest.js";
import { codexManifest } from "../../src/agents/codex/manifest.js";
import { geminiManifest } from "../../src/agents/gemini/manifest.js";
import { kimiManifest } from "../../src/agents/kimi/manifest.js";
import { opencodeManifest } from "../../src/agents/opencode/manifest.js";
import { decideItem, type ItemDecision, itemError, itemWarning } from "../../src/core/items.js";
import type { AgentManifest, CommandCapabilities, SubagentCapabilities } from "../../src/model/manifest.js";
import type { CommandItem, SubagentItem } from "../../src/model/source.js";

const VERIFIED = { version: "1.0", date: "2026-12-06", how: "test" };

const commands: CommandCapabilities = {
  verified: VERIFIED,
  root: { user: ".t/commands", project: null },
  extension: ".toml",
  format: { kind: "toml", prompt: "prompt" },
  fields: {
    description: { support: "native", name: "description" },
    "argument-hint": { support: "dropped", why: "T shows no hint" },
  },
  arguments: { all: "{{args}}", positional: null, unplaced: "appended" },
  invoke: "/name",
};

const subagents: SubagentCapabilities = {
  verified: VERIFIED,
  root: { user: ".t/agents", project: ".t/agents" },
  extension: ".md",
  format: { kind: "markdown" },
  fixed: { mode: "subagent" },
  fields: {
    description: { support: "native", name: "description" },
    tools: { support: "native", name: "tools" },
    model: { support: "native", name: "model" },
  },
  toolList: "list",
  tools: { Read: ["read"], Grep: ["grep"], Bash: ["bash", "shell"] },
  inherit: null,
  models: { pattern: "^[a-z]+/[a-z0-9.-]+$", say: "provider/model names" },
  invoke: "the task tool",
};

const agent: AgentManifest = {
  ...claudeManifest,
  id: "t",
  displayName: "T",
  commands,
  subagents,
};

const command = (body: string, extra: Partial<CommandItem> = {}): CommandItem => ({
  kind: "command",
  name: "review",
  file: "commands/review.md",
  targets: undefined,
  at: { file: "commands/review.md:1: " },
  body,
  bodyLine: 5,
  ...extra,
});

const subagent = (extra: Partial<SubagentItem> = {}): SubagentItem => ({
  kind: "subagent",
  name: "reader",
  file: "agents/reader.md",
  targets: undefined,
  at: { file: "agents/reader.md:1: ", tools: "agents/reader.md:3:8: ", model: "agents/reader.md:4:8: " },
  description: "Reads",
  body: "You read.\n",
  bodyLine: 6,
  ...extra,
});

const decide = (item: CommandItem | SubagentItem, m = agent, scope: "user" | "project" = "user") =>
  decideItem(item, m, scope) as ItemDecision;

describe("a command's placeholders", () => {
  it("are spelt the agent's way: Claude Code counts its positional arguments from $0", () => {
    const d = decide(command("Focus on $ARGUMENTS; first $1, third $3, then $3x.\n"), claudeManifest);
    expect(d.outcome).toBe("translated");
    // Claude Code takes `$2x` as text (run): right before a letter it is `$ARGUMENTS[2]`.
    expect(d.translations).toEqual(["$1 → $0", "$3 → $2", "$3 → $ARGUMENTS[2]"]);
    expect(d.native).toEqual({
      file: "review.md",
      text: "Focus on $ARGUMENTS; first $0, third $2, then $ARGUMENTS[2]x.\n",
    });
  });

  it("that the agent would read together with the text after them leave the command out (Claude Code's $ARGUMENTS[n])", () => {
    const d = decide(
      command("All of them: $ARGUMENTS [1], $ARGUMENTSx,\nthen $ARGUMENTS[1].\n"),
      claudeManifest,
    );
    expect(itemWarning(d)).toBe(
      'commands/review.md:6: command "review" is not rendered for claude: placeholder $ARGUMENTS before [1] is not supported (Claude Code reads $ARGUMENTS[n] as one argument)',
    );
    // Claude Code's escape right before a placeholder or a text it would escape makes it plain text.
    for (const body of ["Match \\$1 literally.\n", "Not \\$ARGUMENTS.\n", "Costs \\$10.\n"])
      expect(decide(command(body), claudeManifest).missing?.detail, body).toBe(
        "Claude Code reads \\ before it as an escape",
      );
    // OpenCode reads `$ARGUMENTS[1]` as the arguments and `[1]`: as written.
    expect(decide(command("$ARGUMENTS[1] and $1x.\n"), opencodeManifest).native?.text).toBe(
      "$ARGUMENTS[1] and $1x.\n",
    );
  });

  it("leave text the agent would replace as written: escaped where the agent has an escape, else reported", () => {
    const claude = decide(command("It costs $10, or $0 at night; bring $1.\n"), claudeManifest);
    expect(claude.native?.text).toBe("It costs \\$10, or \\$0 at night; bring $0.\n");
    expect(claude.translations).toEqual([
      "$10 → \\$10: Claude Code replaces it with an argument",
      "$0 → \\$0: Claude Code replaces it with an argument",
      "$1 → $0",
    ]);
    const gemini = decide(command("Quote {{args}} literally.\n"), geminiManifest);
    expect(itemWarning(gemini)).toBe(
      'commands/review.md:5: command "review" is not rendered for gemini: the text {{args}} is not supported (Gemini CLI replaces it with the arguments)',
    );
  });

  it("without a spelling for one, leave the command out, naming the line of the body that uses it", () => {
    const d = decide(command("Focus on $ARGUMENTS.\n\nThen $2.\n"));
    expect(d.outcome).toBe("omitted");
    expect(d.native).toBeUndefined();
    expect(d.missing).toEqual({
      capability: "placeholder $2",
      detail: "T has no positional arguments",
      at: "commands/review.md:7: ",
    });
    expect(itemWarning(d)).toBe(
      'commands/review.md:7: command "review" is not rendered for t: placeholder $2 is not supported (T has no positional arguments)',
    );
    const explicit = decide(command("Then $2.\n", { targets: ["t"] }));
    expect(explicit.explicit).toBe(true);
    expect(itemError(explicit)).toBe(
      'commands/review.md:5: command "review" targets t but placeholder $2 is not supported for t (T has no positional arguments)',
    );
  });

  it("are written in a TOML file whose prompt reads as written; a dropped field is a translation", () => {
    const d = decide(
      command("Review $ARGUMENTS.\nCarefully.\n", { description: "Review", argumentHint: "[x]" }),
    );
    expect(d.outcome).toBe("translated");
    expect(d.translations).toEqual(["argument-hint dropped: T shows no hint", "$ARGUMENTS → {{args}}"]);
    expect(d.notes).toEqual([]);
    expect(d.native).toEqual({
      file: "review.toml",
      text: "description = 'Review'\nprompt = '''\nReview {{args}}.\nCarefully.\n'''\n",
    });
  });
});

describe("a subagent's fields", () => {
  it("are written under the agent's names, tools mapped, with the agent's fixed fields", () => {
    const d = decide(subagent({ tools: ["Read", "Bash", "mcp__gh__issue"], model: "anthropic/claude-x" }));
    expect(d.outcome).toBe("translated");
    expect(d.translations).toEqual([
      'tools "Read", "Bash", "mcp__gh__issue" → "read", "bash", "shell", "mcp__gh__issue"',
    ]);
    expect(d.native?.text).toBe(
      "---\ndescription: Reads\ntools: [read, bash, shell, mcp__gh__issue]\nmodel: anthropic/claude-x\nmode: subagent\n---\nYou read.\n",
    );
  });

  it("narrow the tools to those the agent has, and leave the subagent out when none is left", () => {
    const narrowed = decide(subagent({ tools: ["Read", "WebSearch"] }));
    expect(narrowed.translations).toEqual([
      'tools "Read" → "read"',
      '"WebSearch" dropped from the tools: T has no such tool',
    ]);
    const none = decide(subagent({ tools: ["WebSearch", "TodoWrite"] }));
    expect(none.outcome).toBe("omitted");
    expect(itemWarning(none)).toBe(
      'agents/reader.md:3:8: subagent "reader" is not rendered for t: tools "WebSearch", "TodoWrite" is not supported (T has none of them)',
    );
  });

  it("leave the subagent out for a model name the agent does not take", () => {
    const d = decide(subagent({ model: "sonnet" }));
    expect(d.missing).toEqual({
      capability: 'model "sonnet"',
      detail: "T takes provider/model names",
      at: "agents/reader.md:4:8: ",
    });
  });

  it("that the agent cannot say leave it out; Claude Code gets its name in the front matter", () => {
    const noTools: AgentManifest = {
      ...agent,
      subagents: {
        ...subagents,
        fields: { ...subagents.fields, tools: { support: "none", why: "T gives every tool" } },
      },
    };
    expect(decide(subagent({ tools: ["Read"] }), noTools).missing?.capability).toBe('field "tools"');
    expect(decide(subagent(), noTools).outcome).toBe("as-written");
    expect(decide(subagent({ tools: ["Read", "Grep"], model: "sonnet" }), claudeManifest).native?.text).toBe(
      "---\nname: reader\ndescription: Reads\ntools: Read, Grep\nmodel: sonnet\n---\nYou read.\n",
    );
  });
});

describe("an agent without the section", () => {
  it("gets nothing: a warning for an implicit target, an error for an explicit one", () => {
    const lacking: AgentManifest = {
      ...agent,
      commands: { verified: VERIFIED, lacks: "has no slash commands" },
    };
    const d = decide(
      command("x\n", { at: { file: "commands/review.md:1: ", targets: "kanon.yaml:4:14: " } }),
      lacking,
    );
    expect(itemWarning(d)).toBe(
      'kanon.yaml:4:14: command "review" is not rendered for t: slash commands are not supported (T has no slash commands)',
    );
  });

  it("in one scope gets nothing in that scope", () => {
    const d = decide(command("x\n"), agent, "project");
    expect(d.missing).toEqual({
      capability: "slash commands in project scope",
      plural: true,
      at: "commands/review.md:1: ",
    });
  });

  it("is not asked about an item that targets other agents", () => {
    expect(decideItem(command("x\n", { targets: ["claude"] }), agent, "user")).toBeNull();
  });
});

describe("each agent's own rules, from its manifest", () => {
  it("OpenCode: a tool list is a map that switches every tool off and the listed ones on; the last placeholder takes the rest", () => {
    const d = decide(subagent({ tools: ["Read", "Grep", "WebSearch"] }), opencodeManifest);
    expect(d.native?.text).toBe(
      '---\ndescription: Reads\ntools: {"*": false, read: true, grep: true}\nmode: subagent\n---\nYou read.\n',
    );
    expect(d.translations).toEqual([
      'tools "Read", "Grep" → "read", "grep"',
      '"WebSearch" dropped from the tools: OpenCode has no such tool',
      'tools as a map: "*" off, each listed one on',
    ]);
    const c = decide(command("Fix $1 in $2.\n"), opencodeManifest);
    expect(c.outcome).toBe("as-written");
    expect(c.notes).toEqual(["OpenCode gives $2, the last placeholder, the arguments after it too"]);
  });

  it("a model per agent, inherit in each agent's words, and a name one agent does not take", () => {
    const models = { claude: "sonnet", opencode: "anthropic/claude-sonnet-4-5" };
    expect(decide(subagent({ model: models }), claudeManifest).native?.text).toContain("model: sonnet\n");
    expect(decide(subagent({ model: models }), opencodeManifest).native?.text).toContain(
      "model: anthropic/claude-sonnet-4-5\n",
    );
    expect(decide(subagent({ model: models }), geminiManifest).native?.text).not.toContain("model");
    expect(decide(subagent({ model: "inherit" }), geminiManifest).native?.text).toContain("model: inherit\n");
    const codex = decide(subagent({ model: "inherit" }), codexManifest);
    expect(codex.translations).toEqual([
      'model "inherit" → no model: Codex CLI runs it on the default model',
    ]);
    expect(codex.native?.text).not.toContain("model");
    expect(decide(subagent({ model: "sonnet" }), codexManifest).missing?.capability).toBe('model "sonnet"');
    expect(decide(subagent({ model: "gpt-5.5" }), kimiManifest).missing?.capability).toBe('field "model"');
    expect(decide(subagent({ name: "Reader" }), geminiManifest).missing).toEqual({
      capability: 'the name "Reader"',
      detail: "Gemini CLI takes lower-case names of a-z, 0-9, - and _",
      at: "agents/reader.md:1: ",
    });
  });

  it("gates of the scope, and what the agent does with text in the body", () => {
    const project = decide(command("Diff: !{git diff}\n"), geminiManifest, "project");
    expect(project.gates.map((g) => g.id)).toEqual(["gemini-trusted-folder"]);
    expect(project.notes).toEqual([
      "Gemini CLI runs !{…} in the prompt as a shell command and puts in its output",
    ]);
    expect(decide(command("x\n"), geminiManifest, "user").gates).toEqual([]);
    for (const body of ["Diff: !`git diff`\n", "Diff:\n```!\ngit diff\n```\n"])
      expect(decide(command(body), claudeManifest).notes).toEqual([
        "Claude Code runs !`…` (and a ```! block) in the prompt as a shell command and puts in its output",
      ]);
    expect(decide(command("Plain ``` fence\n"), claudeManifest).notes).toEqual([]);
  });

  it("Codex CLI: a TOML agent role with its instructions; no tool list, so a subagent with one is left out", () => {
    expect(decide(subagent({ model: "gpt-5.5" }), codexManifest).native).toEqual({
      file: "reader.toml",
      text: "name = 'reader'\ndescription = 'Reads'\nmodel = 'gpt-5.5'\ndeveloper_instructions = '''\nYou read.\n'''\n",
    });
    expect(decide(subagent({ tools: ["Read"] }), codexManifest).missing?.capability).toBe('field "tools"');
    expect(decide(command("x\n"), codexManifest).missing?.capability).toBe("slash commands");
  });
});
