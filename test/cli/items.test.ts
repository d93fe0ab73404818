/**
 * Commands (`commands/<name>.md`) and subagents (`agents/<name>.md`) through kanon's command line:
 * rendered into each agent's folder in both scopes, adjusted by kanon.yaml's entries, every mistake
 * one line naming the file (or kanon.yaml) with its line and nothing written, reported by `kanon
 * commands` and `kanon agents`, and owned like every rendered file: taken off the disk once they leave
 * the home, the user's own files beside them kept, undone by `kanon undo`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandboxPerTest } from "../support/cli.js";

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

  it("a subagent without a description, or with an empty tool name", async () => {
    home("", { "agents/reader.md": "---\ntools: [Read, '']\n---\nx\n" });
    await rejects(
      'agents/reader.md:1: subagent "reader": description is required (agents choose a subagent by it)\n' +
        'agents/reader.md:2:15: subagent "reader": a tool name cannot be empty\n',
    );
  });

  it("a file that is not UTF-8, or holds a merge conflict", async () => {
    home("", { "commands/review.md": "ok\nx\xff\n" });
    writeFileSync(join(s.kh, "commands/review.md"), Buffer.from([0x6f, 0x6b, 0x0a, 0x78, 0xff, 0x0a]));
    await rejects("commands/review.md:2: byte 0xFF is not valid UTF-8; save review.md as UTF-8\n");
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

  it("an entry twice, or for a file that is not there", async () => {
    home("commands:\n  - name: review\n  - name: review\n  - name: gone\n");
    await rejects(
      'kanon.yaml:5:11: command "review": duplicate name (first at kanon.yaml:4:5)\n' +
        `kanon.yaml:6:5: command "gone": open ${join(s.kh, "commands/gone.md")}: no such file or directory\n`,
    );
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
