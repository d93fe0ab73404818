/**
 * Commands (`commands/<name>.md`) and subagents (`agents/<name>.md`) through kanon's command line:
 * rendered into each agent's folder in both scopes, adjusted by kanon.yaml's entries, every mistake
 * one line naming the file (or kanon.yaml) with its line and nothing written, reported by `kanon
 * commands` and `kanon agents`, and owned like every rendered file: taken off the disk once they leave
 * the home, the user's own files beside them kept, undone by `kanon undo`.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listFiles, sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();
const { k } = s;

const REVIEW = `---
description: Review the staged changes
argument-hint: "[focus]"
---
Review with a focus on $ARGUMENTS; start with $1.
`;
const READER = `---
description: Reads code, never edits
tools: [Read, Grep]
model: {claude: sonnet}
---
You read code.
`;

/** A home for Claude Code with the two files (and kanon.yaml's extra lines). */
function home(extra = "", files: Record<string, string> = {}) {
  s.writeHome(`version: 1\nagents: [claude]\n${extra}`, {
    "commands/review.md": REVIEW,
    "agents/reader.md": READER,
    ...files,
  });
}

const claudeFile = (rel: string) => join(s.home, ".claude", rel);
const read = (path: string) => readFileSync(path, "utf8");

describe("commands and subagents render into each agent's folder", () => {
  it("in user scope, Claude Code's $1 counted from $0 and the subagent named in its front matter", async () => {
    home();
    expect(await k("apply", "--yes")).toMatchObject({ status: 0, stderr: "" });
    expect(read(claudeFile("commands/review.md"))).toBe(
      '---\ndescription: Review the staged changes\nargument-hint: "[focus]"\n---\nReview with a focus on $ARGUMENTS; start with $0.\n',
    );
    expect(read(claudeFile("agents/reader.md"))).toBe(
      "---\nname: reader\ndescription: Reads code, never edits\ntools: Read, Grep\nmodel: sonnet\n---\nYou read code.\n",
    );
    expect((await k("diff")).stdout).toBe("No changes.\n");
  });

  it("in project scope, under the project", async () => {
    home();
    const project = join(s.work, "project");
    mkdirSync(project);
    expect((await k("--project", project, "apply", "--yes")).status).toBe(0);
    expect(existsSync(join(project, ".claude/commands/review.md"))).toBe(true);
    expect(existsSync(join(project, ".claude/agents/reader.md"))).toBe(true);
    expect(existsSync(claudeFile("commands/review.md"))).toBe(false);
  });

  it("targeted, disabled and renamed by kanon.yaml's entries", async () => {
    home(
      "commands:\n  - name: review\n    enabled: false\n  - name: look\n    path: commands/todo.md\n" +
        "subagents:\n  - name: reader\n    targets: [kimi]\n",
      { "commands/todo.md": "List the TODOs.\n" },
    );
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(read(claudeFile("commands/look.md"))).toBe("List the TODOs.\n");
    for (const gone of ["commands/review.md", "commands/todo.md", "agents/reader.md"])
      expect(existsSync(claudeFile(gone)), gone).toBe(false);
    const report = await k("commands");
    expect(report.stdout).toBe("COMMAND  CLAUDE\nlook     as written\nreview   disabled\n");
  });

  it("a file's own targets, replaced by its entry's", async () => {
    home("", { "commands/review.md": `---\ntargets: [opencode]\n---\nx\n` });
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(existsSync(claudeFile("commands/review.md"))).toBe(false);
    home("commands:\n  - name: review\n    targets: [claude]\n", {
      "commands/review.md": `---\ntargets: [codex]\n---\nx\n`,
    });
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(read(claudeFile("commands/review.md"))).toBe("x\n");
  });
});

describe("the home's files", () => {
  it("every <name>.md of commands/ and agents/ is an item, in byte order; hidden files, other files and folders are not", async () => {
    s.writeHome("version: 1\nagents: [claude]\n", {
      "commands/b.md": "b\n",
      "commands/a.md": "a\n",
      "commands/Z.md": "Z\n",
      "commands/.hidden.md": "hidden\n",
      "commands/notes.txt": "notes\n",
      "commands/sub/inner.md": "inner\n",
      "commands/folder.md/x.md": "in a folder named like an item\n",
      "agents/reader.md": READER,
      "agents/.draft.md": READER,
      "agents/reader.md.bak": READER,
    });
    const names = async (report: string, kind: string) =>
      (JSON.parse((await k(report, "--json")).stdout)[kind] as Record<string, string>[]).map(
        (d) => d[report === "commands" ? "command" : "subagent"],
      );
    expect(await names("commands", "commands")).toEqual(["Z", "a", "b"]);
    expect(await names("agents", "subagents")).toEqual(["reader"]);
    expect(await k("apply", "--yes")).toMatchObject({ status: 0, stderr: "" });
    expect(listFiles(join(s.home, ".claude"))).toEqual([
      "agents/reader.md",
      "commands/Z.md",
      "commands/a.md",
      "commands/b.md",
    ]);
  });

  it("targets omitted, empty or all: every agent, implicitly (an agent without the feature is a warning)", async () => {
    s.writeHome("version: 1\nagents: [claude, codex]\n", {
      "commands/none.md": "x\n",
      "commands/empty.md": "---\ntargets: []\n---\nx\n",
      "commands/all.md": "---\ntargets: [all]\n---\nx\n",
    });
    const r = await k("apply", "--yes");
    expect(r.status, r.stderr).toBe(0);
    // Each warning names where the targets are, or the file.
    const warning = (at: string, name: string) =>
      `warning: ${at}: command "${name}" is not rendered for codex: slash commands are not supported (Codex CLI has no slash commands of its own since 0.117.0; it has skills instead)\n`;
    expect(r.stderr).toBe(
      warning("commands/all.md:2:10", "all") +
        warning("commands/empty.md:2:10", "empty") +
        warning("commands/none.md:1", "none"),
    );
    for (const name of ["all", "empty", "none"])
      expect(existsSync(claudeFile(`commands/${name}.md`)), name).toBe(true);
  });
});

describe("kanon commands and kanon agents", () => {
  it("say how each item renders for each agent, and --strict fails when one is not as written", async () => {
    home();
    expect((await k("commands")).stdout).toBe(
      "COMMAND  CLAUDE\nreview   translated\n\nreview → claude: translated: $1 → $0\n",
    );
    expect((await k("agents")).stdout).toBe("SUBAGENT  CLAUDE\nreader    as written\n");
    expect(await k("commands", "--strict")).toMatchObject({
      status: 1,
      stderr: "1 command rendering(s) differ from the home as written\n",
    });
    expect((await k("agents", "--strict")).status).toBe(0);
    const json = JSON.parse((await k("agents", "--json")).stdout);
    expect(json).toEqual({
      scope: "user",
      subagents: [
        {
          subagent: "reader",
          file: "agents/reader.md",
          agent: "claude",
          outcome: "as-written",
          explicit: false,
          translations: [],
          notes: [],
          gates: [],
          native: claudeFile("agents/reader.md"),
        },
      ],
    });
  });

  it("say so when the home has none", async () => {
    s.writeHome("version: 1\nagents: [claude]\n");
    expect((await k("commands")).stdout).toBe("No commands.\n");
    expect((await k("agents")).stdout).toBe("No subagents.\n");
  });
});

describe("an agent that cannot take an item", () => {
  const GEMINI = "version: 1\nagents: [claude, gemini]\n";
  it("is warned about for an implicit target, naming the line that needs what it lacks; the others get it", async () => {
    s.writeHome(GEMINI, { "commands/review.md": REVIEW });
    const r = await k("apply", "--yes");
    expect(r).toMatchObject({
      status: 0,
      stderr:
        'warning: commands/review.md:5: command "review" is not rendered for gemini: placeholder $1 is not supported (Gemini CLI has no positional arguments)\n',
    });
    expect(existsSync(claudeFile("commands/review.md"))).toBe(true);
    expect(existsSync(join(s.home, ".gemini/commands"))).toBe(false);
  });

  it("is an error for an explicit target, and nothing is written", async () => {
    s.writeHome(`${GEMINI}commands:\n  - name: review\n    targets: [claude, gemini]\n`, {
      "commands/review.md": REVIEW,
    });
    for (const cmd of [["validate"], ["apply", "--yes"]])
      expect(await k(...cmd)).toMatchObject({
        status: 1,
        stderr:
          'commands/review.md:5: command "review" targets gemini but placeholder $1 is not supported for gemini (Gemini CLI has no positional arguments)\n',
      });
    expect(existsSync(join(s.home, ".claude"))).toBe(false);
  });

  it("without the section at all: Codex CLI has no commands, Kimi Code no model for a subagent", async () => {
    s.writeHome("version: 1\nagents: [codex, kimi]\n", {
      "commands/review.md": REVIEW,
      "agents/reader.md": "---\ndescription: Reads\nmodel: sonnet\n---\nRead.\n",
    });
    const r = await k("diff");
    expect(r.stderr).toBe(
      'warning: commands/review.md:1: command "review" is not rendered for codex: slash commands are not supported (Codex CLI has no slash commands of its own since 0.117.0; it has skills instead)\n' +
        'warning: commands/review.md:1: command "review" is not rendered for kimi: slash commands are not supported (Kimi Code has no user or project commands, only those of an installed plugin, run from its terminal UI)\n' +
        'warning: agents/reader.md:3:8: subagent "reader" is not rendered for codex: model "sonnet" is not supported (Codex CLI takes its providers\' model names (gpt-5.5, …), not Claude Code\'s aliases)\n' +
        'warning: agents/reader.md:3:8: subagent "reader" is not rendered for kimi: field "model" is not supported (Kimi Code runs every subagent on the session\'s model)\n',
    );
  });

  it("in project scope, is reported with the gate a file waits behind", async () => {
    s.writeHome(GEMINI, { "agents/reader.md": "---\ndescription: Reads\n---\nRead.\n" });
    const project = join(s.work, "project");
    mkdirSync(project);
    expect((await k("--project", project, "agents")).stdout).toBe(
      "SUBAGENT  CLAUDE      GEMINI\nreader    as written  as written (gated)\n\n" +
        "reader → gemini: gated: Gemini CLI uses a project's subagent only in a trusted folder and once the user acknowledges it (again after each change)\n",
    );
  });
});

describe("the front matter's decode", () => {
  it("warns at file:LINE:COL on every run, keeps no cache, and follows an edit", async () => {
    const cache = join(s.work, "cache");
    const env = { XDG_CACHE_HOME: cache };
    home("", { "commands/review.md": "---\ndescription: One\ncolour: red\n---\nx\n" });
    const warning = 'warning: commands/review.md:3:1: unknown key "colour" is ignored\n';
    for (let run = 0; run < 2; run++)
      expect(await s.run(["--home", s.kh, "commands", "--json"], { env })).toMatchObject({ stderr: warning });
    expect(existsSync(cache)).toBe(false);
    writeFileSync(join(s.kh, "commands/review.md"), "---\ndescription: Two\n---\nx\n");
    const r = await s.run(["--home", s.kh, "apply", "--yes"], { env });
    expect(r.stderr).toBe("");
    expect(read(claudeFile("commands/review.md"))).toBe("---\ndescription: Two\n---\nx\n");
  });
});

describe("kanon schema --command and --subagent", () => {
  it("print the JSON Schema of each front matter, from the definition their files are decoded by", async () => {
    const schema = async (flag: string) =>
      JSON.parse((await k("schema", flag)).stdout) as { properties: Record<string, unknown> };
    expect(Object.keys((await schema("--command")).properties)).toEqual([
      "description",
      "argument-hint",
      "targets",
    ]);
    expect(Object.keys((await schema("--subagent")).properties)).toEqual([
      "description",
      "tools",
      "model",
      "targets",
    ]);
    expect(await k("schema", "--command", "--subagent")).toMatchObject({
      status: 1,
      stderr: "use only one of --command or --subagent\n",
    });
  });
});

describe("mistakes are one line naming the file and line, and nothing is written", () => {
  const rejects = async (stderr: string) => {
    for (const cmd of [["validate"], ["diff"], ["apply", "--yes"], ["commands"], ["agents"]])
      expect(await k(...cmd), cmd.join(" ")).toMatchObject({ status: 1, stderr });
    expect(existsSync(join(s.home, ".claude"))).toBe(false);
  };

  it("a front-matter value of the wrong type", async () => {
    home("", { "commands/review.md": "---\ndescription: [a, b]\n---\nx\n" });
    await rejects("commands/review.md:2:14: description: expected a string, got a list\n");
  });

  it("a misspelt front-matter key (one edit from a known one); another unknown key is a warning", async () => {
    home("", { "agents/reader.md": "---\ndescripton: a\n---\nx\n" });
    await rejects('agents/reader.md:2:1: unknown key "descripton"; did you mean "description"?\n');
    home("", { "commands/review.md": "---\nallowed-tools: Bash\n---\nx\n" });
    expect((await k("validate")).stderr).toBe(
      'warning: commands/review.md:2:1: unknown key "allowed-tools" is ignored\n',
    );
  });

  it("front matter without its closing line", async () => {
    home("", { "commands/review.md": "---\ndescription: a\nx\n" });
    await rejects('commands/review.md:1: command "review": the front matter has no closing --- line\n');
  });

  it("an unknown target, in the front matter or in kanon.yaml", async () => {
    home("", { "commands/review.md": "---\ntargets: [claude, nope]\n---\nx\n" });
    await rejects('commands/review.md:2:19: command "review" has unsupported target "nope"\n');
    home("subagents:\n  - name: reader\n    targets: [nope]\n");
    await rejects('kanon.yaml:5:15: subagent "reader" has unsupported target "nope"\n');
  });

  it("a subagent without a description, or with an empty tool name, or names in one string", async () => {
    home("", { "agents/reader.md": "---\ntools: [Read, '', 'Grep, Glob']\n---\nx\n" });
    await rejects(
      'agents/reader.md:1: subagent "reader": description is required (agents choose a subagent by it)\n' +
        'agents/reader.md:2:15: subagent "reader": a tool name cannot be empty\n' +
        'agents/reader.md:2:19: subagent "reader": a tool name cannot hold a comma (one name per item)\n',
    );
  });

  it("a file that is not UTF-8, holds a NUL or a merge conflict", async () => {
    home("", { "commands/review.md": "ok\nx\xff\n" });
    writeFileSync(join(s.kh, "commands/review.md"), Buffer.from([0x6f, 0x6b, 0x0a, 0x78, 0xff, 0x0a]));
    await rejects("commands/review.md:2: byte 0xFF is not valid UTF-8; save review.md as UTF-8\n");
    home("", { "commands/review.md": "ok\na\u0000b\n" });
    await rejects(
      'commands/review.md:2: command "review": contains a NUL character, which no agent can take\n',
    );
    home("", { "commands/review.md": "<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n" });
    expect((await k("validate")).stderr).toMatch(/^commands\/review\.md:1: unresolved merge conflict/);
  });

  it("names that are not one safe file name, in the folder or in kanon.yaml", async () => {
    home("", { "agents/a b.md": "x\n" });
    await rejects(
      'agents/a b.md: subagent "a b": the file name is not one name of letters, digits and . _ - @ + ~ , = (not starting with . or -)\n',
    );
    rmSync(join(s.kh, "agents/a b.md"));
    home('commands:\n  - name: "ns:review"\n  - name: ../../x\n');
    await rejects(
      'kanon.yaml:4:11: command "ns:review": the name contains ":", which agents read as a namespace\n' +
        'kanon.yaml:5:11: command "../../x": the name is not one name of letters, digits and . _ - @ + ~ , = (not starting with . or -)\n',
    );
  });

  it("a name longer than 250 bytes (an agent's file is the name and its extension)", async () => {
    const name = "x".repeat(251);
    s.writeHome("version: 1\nagents: [claude]\n", {
      [`commands/${name}.md`]: "x\n",
      [`commands/${name.slice(1)}.md`]: "x\n",
    });
    await rejects(`commands/${name}.md: command "${name}": the file name is longer than 250 bytes\n`);
  });

  it("an entry that renames a file to the name of another file of the folder", async () => {
    home("commands:\n  - name: review\n    path: commands/todo.md\n", {
      "commands/todo.md": "List the TODOs.\n",
    });
    await rejects(
      'kanon.yaml:5:11: command "review": commands/review.md has this name too; rename one of them\n',
    );
  });

  it("a file that is a symlink out of the Kanon home", async () => {
    home();
    writeFileSync(join(s.work, "secret.md"), "not the home's\n");
    rmSync(join(s.kh, "commands/review.md"));
    symlinkSync(join(s.work, "secret.md"), join(s.kh, "commands/review.md"));
    await rejects(
      `command "review": ${join(s.kh, "commands/review.md")}: is a symlink to ${join(s.work, "secret.md")}, outside the Kanon home\n`,
    );
  });

  it("an entry twice, or for a file that is not there", async () => {
    home("commands:\n  - name: review\n  - name: review\n  - name: gone\n");
    await rejects(
      'kanon.yaml:5:11: command "review": duplicate name (first at kanon.yaml:4:5)\n' +
        `kanon.yaml:6:5: command "gone": open ${join(s.kh, "commands/gone.md")}: no such file or directory\n`,
    );
  });

  it("an entry named like a file another entry renames, or a renaming entry named like a file of the folder", async () => {
    // The file renders under the renaming entry's name only: an entry of its own name is a mistake.
    home(
      "subagents:\n  - name: critic\n    path: agents/reader.md\n  - name: reader\n    targets: [claude]\n",
    );
    await rejects(
      'kanon.yaml:6:11: subagent "reader": agents/reader.md renders as "critic" (kanon.yaml:5:11); remove this entry or that path\n',
    );
    home("commands:\n  - name: review\n    path: commands/other.md\n", { "commands/other.md": "x\n" });
    await rejects(
      'kanon.yaml:5:11: command "review": commands/review.md has this name too; rename one of them\n',
    );
  });
});

describe("a command named like a skill", () => {
  const SKILL = "---\nname: review\ndescription: Reviews\n---\nThe skill.\n";
  it("is an error where the agent's skill wins (Claude Code), and nothing is written", async () => {
    home("", { "skills/review/SKILL.md": SKILL });
    for (const cmd of [["diff"], ["apply", "--yes"]])
      expect(await k(...cmd), cmd.join(" ")).toMatchObject({
        status: 1,
        stderr:
          'commands/review.md:1: command "review" duplicates skill "review" for claude: Claude Code runs the skill of a command\'s name, never the command; rename one of them, or target them at different agents\n',
      });
    expect(existsSync(join(s.home, ".claude"))).toBe(false);
  });

  it("renders where they go to different agents, or where the agent keeps the two apart", async () => {
    s.writeHome(
      "version: 1\nagents: [claude, opencode]\ncommands:\n  - name: review\n    targets: [opencode]\n",
      {
        "commands/review.md": REVIEW,
        "skills/review/SKILL.md": SKILL,
      },
    );
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(existsSync(claudeFile("skills/review/SKILL.md"))).toBe(true);
    expect(existsSync(join(s.home, ".config/opencode/commands/review.md"))).toBe(true);
    expect(existsSync(join(s.home, ".config/opencode/skills/review/SKILL.md"))).toBe(true);
  });
});

describe("the folders", () => {
  it("hold the items: hidden files, other extensions and subfolders are not items", async () => {
    home("", {
      "commands/.draft.md": "a draft\n",
      "commands/notes.txt": "notes\n",
      "commands/sub/deep.md": "deep\n",
      "commands/folder.md/inner.md": "inner\n",
    });
    expect((await k("commands")).stdout).toBe(
      "COMMAND  CLAUDE\nreview   translated\n\nreview → claude: translated: $1 → $0\n",
    );
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(readdirSync(claudeFile("commands"))).toEqual(["review.md"]);
  });
});

describe("ownership", () => {
  it("removing an item from the home removes its file; the user's own files beside it stay; undo brings it back", async () => {
    home();
    mkdirSync(claudeFile("commands"), { recursive: true });
    writeFileSync(claudeFile("commands/mine.md"), "my own command\n");
    expect((await k("apply", "--yes")).status).toBe(0);
    rmSync(join(s.kh, "commands/review.md"));
    rmSync(join(s.kh, "agents/reader.md"));
    const applied = await k("apply", "--yes");
    expect(applied.status).toBe(0);
    expect(existsSync(claudeFile("commands/review.md"))).toBe(false);
    expect(existsSync(claudeFile("agents/reader.md"))).toBe(false);
    // kanon made .claude/agents/ and nothing else is in it: it goes; commands/ holds the user's file.
    expect(existsSync(claudeFile("agents"))).toBe(false);
    expect(read(claudeFile("commands/mine.md"))).toBe("my own command\n");
    expect((await k("undo", "--yes")).status).toBe(0);
    expect(read(claudeFile("agents/reader.md"))).toContain("name: reader\n");
    expect(read(claudeFile("commands/review.md"))).toContain("$0");
  });

  it("a renamed item moves: the old file goes, the new one comes", async () => {
    home();
    expect((await k("apply", "--yes")).status).toBe(0);
    renameSync(join(s.kh, "commands/review.md"), join(s.kh, "commands/check.md"));
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(existsSync(claudeFile("commands/review.md"))).toBe(false);
    expect(read(claudeFile("commands/check.md"))).toContain("$0");
  });

  it("a file of the user's where kanon would write is backed up first", async () => {
    home();
    mkdirSync(claudeFile("commands"), { recursive: true });
    writeFileSync(claudeFile("commands/review.md"), "the user's review\n");
    const diff = await k("diff");
    expect(diff.stdout).toContain("review.md");
    expect((await k("apply", "--yes")).status).toBe(0);
    expect((await k("undo", "--yes")).status).toBe(0);
    expect(read(claudeFile("commands/review.md"))).toBe("the user's review\n");
  });
});
