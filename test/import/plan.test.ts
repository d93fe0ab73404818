/**
 * The import plan of `kanon ui`'s import mode (reference §5.8.7): units, the change each one alone
 * makes to the Kanon home, and the writes of a selection.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AGENT_IDS } from "../../src/agents/index.js";
import { applyChanges } from "../../src/destination/apply.js";
import { type HomeWrite, homeChange, type ImportUnit, importPlan } from "../../src/import/plan.js";
import type { Imported } from "../../src/import/read.js";
import type { KanonConfig, SkillEntry } from "../../src/model/config.js";
import { loadConfig, normalizeConfig } from "../../src/source/load.js";

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "kanon-plan-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const config = () => join(home, "kanon.yaml");
const put = (rel: string, text: string) => {
  mkdirSync(dirname(join(home, rel)), { recursive: true });
  writeFileSync(join(home, rel), text);
};
const file = (rel: string, text: string) => ({ rel, content: Buffer.from(text), mode: 0o644 });

/** What `kanon import` found: an instruction file, a skill for every agent, a server and a hook. */
function found(overrides: Partial<KanonConfig> = {}, files = FILES): Imported {
  return {
    config: {
      ...normalizeConfig({}),
      instructions: { files: ["instructions/imported.md"] },
      mcp: { servers: { github: { command: "github-mcp", targets: ["claude"] } } },
      hooks: [{ name: "guard", event: "PreToolUse", command: "/bin/guard" }],
      ...overrides,
    },
    files,
    secrets: {},
    warnings: [],
  };
}
const FILES = [file("instructions/imported.md", "Rules\n"), file("skills/review/SKILL.md", "review\n")];

async function plan(imported = found()) {
  const existing = existsSync(config())
    ? await loadConfig({ home, config: config(), userHome: home }, AGENT_IDS)
    : null;
  return importPlan({ home, config: config(), existing }, imported);
}
const rows = (units: ImportUnit[]) =>
  units.map(
    (u) => `${u.action} ${u.agent} ${u.path.slice(home.length + 1)}${u.replaces ? ` (${u.replaces})` : ""}`,
  );
const text = (w: HomeWrite) => (w.after === null ? null : Buffer.from(w.after).toString("utf8"));
const summary = (writes: HomeWrite[]) => writes.map((w) => `${w.action} ${w.path.slice(home.length + 1)}`);

describe("the import plan", () => {
  it("lists one unit per instruction file, skill, server and hook, sorted by path", async () => {
    const p = await plan();
    expect(rows(p.units)).toEqual([
      "create all instructions/imported.md",
      "create all kanon.yaml#hooks.guard",
      "create claude kanon.yaml#mcp.servers.github",
      "create all skills/review/SKILL.md",
    ]);
  });

  it("shows each unit's own change: kanon.yaml as that unit alone leaves it, and its files", async () => {
    const p = await plan();
    const [instructions, hook, server, skill] = p.units;
    expect(summary(instructions!.writes())).toEqual(["create kanon.yaml", "create instructions/imported.md"]);
    expect(text(instructions!.writes()[0]!)).toBe(
      "version: 1\ninstructions:\n  files:\n    - instructions/imported.md\n",
    );
    expect(text(hook!.writes()[0]!)).toBe(
      "version: 1\nhooks:\n  - name: guard\n    event: PreToolUse\n    command: /bin/guard\n",
    );
    expect(text(server!.writes()[0]!)).toBe(
      "version: 1\nmcp:\n  servers:\n    github:\n      command: github-mcp\n      targets: [claude]\n",
    );
    // A skill for every agent needs no entry: only its files are written.
    expect(summary(skill!.writes())).toEqual(["create skills/review/SKILL.md"]);
  });

  it("writes only the selected units, kanon.yaml edited once in the import's order", async () => {
    const p = await plan();
    const [, hook, server, skill] = p.units;
    const writes = p.writes([skill!, hook!, server!]);
    expect(summary(writes)).toEqual(["create kanon.yaml", "create skills/review/SKILL.md"]);
    expect(text(writes[0]!)).toBe(
      "version: 1\nmcp:\n  servers:\n    github:\n      command: github-mcp\n      targets: [claude]\nhooks:\n  - name: guard\n    event: PreToolUse\n    command: /bin/guard\n",
    );
    expect(p.writes([])).toEqual([]);
  });

  it("edits an existing kanon.yaml in place, comments and layout kept; what the home has is no unit", async () => {
    put(
      "kanon.yaml",
      "# my home\nversion: 1\ninstructions:\n  files: [instructions/mine.md]\nhooks:\n- name: my-guard # same hook\n  event: PreToolUse\n  command: /bin/guard\n",
    );
    put("instructions/mine.md", "Rules\n");
    const p = await plan();
    expect(rows(p.units)).toEqual([
      "create claude kanon.yaml#mcp.servers.github",
      "create all skills/review/SKILL.md",
    ]);
    const w = p.units[0]!.writes();
    expect(summary(w)).toEqual(["update kanon.yaml"]);
    expect(text(w[0]!)).toBe(
      "# my home\nversion: 1\ninstructions:\n  files: [instructions/mine.md]\nhooks:\n- name: my-guard # same hook\n  event: PreToolUse\n  command: /bin/guard\nmcp:\n  servers:\n    github:\n      command: github-mcp\n      targets: [claude]\n",
    );
  });

  it("a git provider of the home found for more agents is a unit that widens its targets", async () => {
    const git = "version: 1\nskills:\n  - git:\n      url: https://example.com/team.git\n      ref: main\n";
    put("kanon.yaml", `${git}    targets: [claude] # for now\n`);
    const provider = { git: { url: "https://example.com/team.git", ref: "main" } };
    const only = (skill: SkillEntry) => found({ instructions: { files: [] }, skills: [skill] }, []);
    const p = await plan(only({ ...provider, targets: ["claude", "opencode"] }));
    expect(rows(p.units)).toEqual([
      "create all kanon.yaml#hooks.guard",
      "create claude kanon.yaml#mcp.servers.github",
      "update all kanon.yaml#skills.git.team",
    ]);
    expect(text(p.units[2]!.writes()[0]!)).toBe(`${git}    targets: [claude, opencode] # for now\n`);
    const all = await plan(only(provider));
    expect(text(all.units[2]!.writes()[0]!)).toBe(git);
  });

  it("marks a unit that replaces a different entry or skill of the home's", async () => {
    put(
      "kanon.yaml",
      "version: 1\nmcp:\n  servers:\n    github:\n      command: old-github\nhooks:\n  - name: guard\n    event: Stop\n    command: /bin/guard\n",
    );
    put("skills/review/SKILL.md", "old review\n");
    put("skills/review/notes.md", "only in the home\n");
    const p = await plan(found({ instructions: { files: [] } }, FILES.slice(1)));
    expect(rows(p.units)).toEqual([
      'update all kanon.yaml#hooks.guard (replaces the different hook "guard" in kanon.yaml)',
      'update claude kanon.yaml#mcp.servers.github (replaces the different mcp server "github" in kanon.yaml)',
      "update all skills/review/SKILL.md (replaces the different files in skills/review/)",
    ]);
    expect(text(p.units[1]!.writes()[0]!)).toBe(
      "version: 1\nmcp:\n  servers:\n    github:\n      command: github-mcp\n      targets: [claude]\nhooks:\n  - name: guard\n    event: Stop\n    command: /bin/guard\n",
    );
    // The imported skill replaces the home's whole: its files, and the home's extra file goes.
    expect(summary(p.units[2]!.writes())).toEqual([
      "update skills/review/SKILL.md",
      "delete skills/review/notes.md",
    ]);
  });

  it("an existing skill with the same files: no unit when it renders for every agent; wider targets otherwise", async () => {
    put("skills/review/SKILL.md", "review\n");
    put("kanon.yaml", "version: 1\n");
    const none = await plan(
      found({ instructions: { files: [] }, mcp: { servers: {} }, hooks: [] }, FILES.slice(1)),
    );
    expect(none.units).toEqual([]);

    put("kanon.yaml", "version: 1\nskills:\n  - name: review\n    targets: [codex]\n");
    const wider = await plan(
      found(
        {
          instructions: { files: [] },
          mcp: { servers: {} },
          hooks: [],
          skills: [{ name: "review", targets: ["claude"] }],
        },
        FILES.slice(1),
      ),
    );
    expect(rows(wider.units)).toEqual(["update claude skills/review/SKILL.md"]);
    expect(summary(wider.units[0]!.writes())).toEqual(["update kanon.yaml"]);
    expect(text(wider.units[0]!.writes()[0]!)).toBe(
      "version: 1\nskills:\n  - name: review\n    targets: [codex, claude]\n",
    );
    // A restrictive entry gives way to the implicit one when the import has it for every agent.
    const all = await plan(
      found({ instructions: { files: [] }, mcp: { servers: {} }, hooks: [] }, FILES.slice(1)),
    );
    expect(text(all.units[0]!.writes()[0]!)).toBe("version: 1\nskills:\n  - name: review\n");
  });

  it("a unit's basis changes when what it is made from changes: the native side or the home", async () => {
    const before = (await plan()).units;
    const changedServer = await plan(
      found({ mcp: { servers: { github: { command: "gh2", targets: ["claude"] } } } }),
    );
    expect(changedServer.units[2]!.basis).not.toEqual(before[2]!.basis);
    expect(changedServer.units[1]!.basis).toEqual(before[1]!.basis);
    put("kanon.yaml", "version: 1\n");
    const homeChanged = (await plan()).units;
    for (const [i, u] of homeChanged.entries())
      if (u.kind !== "skill") expect(u.basis).not.toEqual(before[i]!.basis);
    const skill = await plan(found({}, [FILES[0]!, file("skills/review/SKILL.md", "review v2\n")]));
    expect(skill.units[3]!.basis).not.toEqual(before[3]!.basis);
  });

  it("never writes a kanon.yaml kanon would not read back: a value of megabytes is refused, naming it", async () => {
    const big = { command: "srv", args: ["x".repeat(3_000_000)], targets: ["claude"] };
    const p = await plan(found({ mcp: { servers: { big } } }));
    const server = p.units.find((u) => u.name === "big")!;
    expect(() => p.writes([server])).toThrow(
      new RegExp(
        `^cannot write ${config()}: kanon would not read it back \\(kanon\\.yaml:\\d+:\\d+: kanon.yaml is longer than 2097152 characters`,
      ),
    );
    // The other units are written as they were.
    expect(summary(p.writes(p.units.filter((u) => u !== server)))[0]).toBe("create kanon.yaml");
  });

  it("writes through a symlinked kanon.yaml (it stays a link) and deletes a symlink, not its target", async () => {
    const dotfiles = join(home, "dotfiles");
    mkdirSync(dotfiles);
    writeFileSync(join(dotfiles, "kanon.yaml"), "version: 1\n");
    symlinkSync(join(dotfiles, "kanon.yaml"), config());
    const p = await plan(found({ instructions: { files: [] }, hooks: [] }, []));
    applyChanges(p.writes(p.units).map(homeChange));
    expect(lstatSync(config()).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dotfiles, "kanon.yaml"), "utf8")).toContain("github:");

    writeFileSync(join(dotfiles, "notes.md"), "mine\n");
    const link = join(home, "skills/review/notes.md");
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(dotfiles, "notes.md"), link);
    const change = homeChange({
      path: link,
      action: "delete",
      before: null,
      after: null,
      mode: 0o644,
      beforeMode: 0o644,
    });
    expect(change.path).toBe(link);
  });

  it("importing any selection leaves exactly the other units to import (property)", async () => {
    const imported = found(
      {
        mcp: {
          servers: Object.fromEntries(
            ["a", "b", "c"].map((n) => [
              n,
              { command: `${n}-mcp`, targets: n === "c" ? ["codex"] : undefined },
            ]),
          ),
        },
        hooks: ["x", "y", "z"].map((n) => ({ name: n, event: "Stop", command: `/bin/${n}` })),
        skills: [{ name: "lint", targets: ["claude"] }],
      },
      [...FILES, file("skills/lint/SKILL.md", "lint\n")],
    );
    const start =
      "# mine\nversion: 1\n\nhooks:\n- name: keep # my own\n  event: Stop\n  command: /bin/keep\n";
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }), async (picks) => {
        rmSync(home, { recursive: true, force: true });
        mkdirSync(home);
        put("kanon.yaml", start);
        const p = await plan(imported);
        expect(p.units).toHaveLength(9);
        const chosen = p.units.filter((_, i) => picks[i]);
        applyChanges(p.writes(chosen).map(homeChange));
        const left = (await plan(imported)).units.map((u) => u.path);
        expect(left).toEqual(p.units.filter((_, i) => !picks[i]).map((u) => u.path));
        expect(readFileSync(config(), "utf8").startsWith("# mine\nversion: 1\n")).toBe(true);
        expect(readFileSync(config(), "utf8")).toContain("- name: keep # my own\n");
      }),
      { numRuns: 25 },
    );
  });
});

describe("commands and subagents in the import plan", () => {
  it("are units like skills: a new file with its entry, the same file widens the entry, a different one replaces it", async () => {
    put("kanon.yaml", "version: 1\ncommands:\n  - name: same\n    targets: [claude]\n");
    put("commands/same.md", "Same\n");
    put("agents/differs.md", "---\ndescription: Ours\n---\nOurs\n");
    const imported = found(
      {
        instructions: { files: [] },
        mcp: { servers: {} },
        hooks: [],
        commands: [
          { name: "new", targets: ["gemini"] },
          { name: "same", targets: ["opencode"] },
        ],
        subagents: [{ name: "differs" }],
      },
      [
        file("commands/new.md", "New\n"),
        file("commands/same.md", "Same\n"),
        file("agents/differs.md", "---\ndescription: Theirs\n---\nTheirs\n"),
      ],
    );
    const p = await plan(imported);
    expect(rows(p.units)).toEqual([
      "update all agents/differs.md (replaces the different agents/differs.md)",
      "create gemini commands/new.md",
      "update opencode commands/same.md",
    ]);
    const [differs, added, same] = p.units;
    expect(summary(added!.writes())).toEqual(["update kanon.yaml", "create commands/new.md"]);
    expect(text(added!.writes()[0]!)).toBe(
      "version: 1\ncommands:\n  - name: same\n    targets: [claude]\n  - name: new\n    targets: [gemini]\n",
    );
    expect(summary(same!.writes())).toEqual(["update kanon.yaml"]);
    expect(text(same!.writes()[0]!)).toContain("targets: [claude, opencode]");
    expect(summary(differs!.writes())).toEqual(["update agents/differs.md"]);
  });
});
