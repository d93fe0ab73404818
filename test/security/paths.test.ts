/**
 * Every path kanon writes is inside the agent destination it belongs to: names from a hostile home,
 * a provider repository and the ownership record cannot reach outside, and no command writes
 * anything when one tries.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { AGENTS } from "../../src/agents/index.js";
import { agentDestinations, agentPath } from "../../src/core/homes.js";
import { isInside, segmentProblem } from "../../src/core/names.js";
import { renderAll } from "../../src/core/render.js";
import type { Source } from "../../src/model/source.js";
import type { Scope } from "../../src/model/types.js";
import { cleanupTemp, createRepo, skillMd } from "../providers/helpers.js";
import { listFiles, sandboxPerTest } from "../support/cli.js";

const s = sandboxPerTest();
afterAll(cleanupTemp);

const SKILL = "---\nname: x\ndescription: x\n---\nx\n";

/** No file under $HOME but what was there before (and no record: nothing was applied). */
const untouched = () => expect(listFiles(s.home)).toEqual([]);

describe("a skill name from kanon.yaml", () => {
  it("`../../.ssh` is a kanon.yaml:LINE:COL error for validate, render, diff and apply; nothing is written", async () => {
    s.writeHome("version: 1\nskills:\n  - name: ../../.ssh\n    path: payload\n", {
      "payload/SKILL.md": SKILL,
      "payload/authorized_keys": "ssh-ed25519 AAAA attacker\n",
    });
    const message =
      'kanon.yaml:3:11: skill "../../.ssh": the name is not one folder name of letters, digits and . _ - : @ + ~ , = (not starting with . or -)\n';
    for (const command of [["validate"], ["render"], ["diff"], ["apply", "--yes"]]) {
      const r = await s.k(...command);
      expect(r, command.join(" ")).toMatchObject({ status: 1, stdout: "", stderr: message });
    }
    untouched();
  });

  it.each([
    ["..", "is not one folder name"],
    ["a/b", "is not one folder name"],
    ["-rf", "is not one folder name"],
    [".hidden", "is not one folder name"],
    ["ok\u001b[2K\u001b[1Ahidden", "is not one folder name"],
    ["evil\u202etxt", "is not one folder name"],
    ["x".repeat(256), "is longer than 255 bytes"],
  ])("%j is refused before anything is read or written", async (name, why) => {
    s.writeHome(`version: 1\nskills:\n  - name: ${JSON.stringify(name)}\n    path: payload\n`, {
      "payload/SKILL.md": SKILL,
    });
    const r = await s.k("apply", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^kanon\.yaml:3:11: skill /);
    expect(r.stderr).toContain(why);
    // Shown, never acted on: the escape is spelled out.
    expect(r.stderr).not.toContain("\u001b");
    untouched();
  });

  it("names of letters of any script, digits and . _ - : @ + ~ , = are written where they say", async () => {
    s.writeHome(
      "version: 1\nagents: [claude]\nskills:\n  - name: 'revue-é_2.0@team+x~y,z=1'\n    path: p\n",
      {
        "p/SKILL.md": SKILL,
      },
    );
    expect((await s.k("apply", "--yes")).status).toBe(0);
    expect(s.exists(".claude/skills/revue-é_2.0@team+x~y,z=1/SKILL.md")).toBe(true);
  });
});

describe("a skill folder under skills/", () => {
  it("whose name is not one safe folder name is refused by validate and apply alike", async () => {
    s.writeHome("version: 1\n", { "skills/-rf/SKILL.md": SKILL, "skills/ok/SKILL.md": SKILL });
    for (const command of [["validate"], ["apply", "--yes"]]) {
      const r = await s.k(...command);
      expect(r.status, command[0]).toBe(1);
      expect(r.stderr).toBe(
        'skill "-rf" (skills/-rf/): the folder name is not one folder name of letters, digits and . _ - : @ + ~ , = (not starting with . or -)\n',
      );
    }
    untouched();
  });
});

describe("a git skill provider", () => {
  it("whose skill folder name holds a right-to-left override is refused, naming the provider; nothing is written", async () => {
    const repo = createRepo({ "ok/SKILL.md": skillMd("ok"), "evil\u202egnp.sh/SKILL.md": skillMd("evil") });
    s.writeHome(
      `version: 1\nskills:\n  - git: { url: ${JSON.stringify(repo.url)}, ref: main }\n    name: pack\n`,
    );
    const r = await s.k("apply", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'git skill provider "pack" skill "evil<U+202E>gnp.sh": the skill name "pack:evil',
    );
    expect(r.stderr).not.toContain("\u202e");
    untouched();
  });
});

describe("the ownership record", () => {
  it("naming a file outside every agent destination never makes kanon write or delete it", async () => {
    s.writeHome("version: 1\nagents: [claude]\ninstructions:\n  files: [i.md]\n", { "i.md": "rules\n" });
    expect((await s.k("apply", "--yes")).status).toBe(0);
    const [root] = listFiles(join(s.home, ".local/state/kanon/roots")).filter((f) =>
      f.endsWith("record.json"),
    );
    const recordPath = join(s.home, ".local/state/kanon/roots", root!);
    const record = JSON.parse(readFileSync(recordPath, "utf8"));
    const victim = join(s.home, ".bashrc");
    const outside = join(s.work, "precious.txt");
    writeFileSync(victim, "my shell\n");
    writeFileSync(outside, "mine\n");
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    record.files[victim] = { agent: "claude", sha256: sha("my shell\n"), mode: "0644" };
    record.files[outside] = { agent: "claude", sha256: sha("mine\n"), mode: "0644" };
    record.files[`${s.home}/.claude/skills/../../.profile`] = {
      agent: "claude",
      sha256: sha("profile\n"),
      mode: "0644",
    };
    record.entries[join(s.home, ".ssh/config")] = {
      agent: "claude",
      merge: { kind: "entries", format: "json", key: "mcpServers" },
      names: { x: "0" },
    };
    writeFileSync(recordPath, JSON.stringify(record));
    const r = await s.k("apply", "--yes");
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      `the ownership record names ${JSON.stringify(victim)} for claude, where kanon writes nothing; it is left alone`,
    );
    expect(readFileSync(victim, "utf8")).toBe("my shell\n");
    expect(readFileSync(outside, "utf8")).toBe("mine\n");
    expect(s.exists(".ssh")).toBe(false);
  });

  it("nor does a history entry naming one make undo remove or restore it", async () => {
    s.writeHome("version: 1\nagents: [claude]\ninstructions:\n  files: [i.md]\n", { "i.md": "rules\n" });
    expect((await s.k("apply", "--yes")).status).toBe(0);
    const victim = join(s.home, ".bashrc");
    writeFileSync(victim, "my shell\n");
    const journal = listFiles(join(s.home, ".local/state/kanon")).find((f) => f.endsWith("apply.json"))!;
    const path = join(s.home, ".local/state/kanon", journal);
    const entry = JSON.parse(readFileSync(path, "utf8"));
    entry.changes[0].path = victim;
    entry.changes[0].after.sha256 = createHash("sha256").update("my shell\n").digest("hex");
    writeFileSync(path, JSON.stringify(entry));
    const r = await s.k("undo", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^cannot undo the apply of .*: its history names ".*\/\.bashrc", where kanon writes nothing; nothing was restored\n$/,
    );
    expect(readFileSync(victim, "utf8")).toBe("my shell\n");
    expect(s.exists(".claude/CLAUDE.md")).toBe(true);
  });

  it("a moved agent home (CODEX_HOME once set) stays a place kanon writes, by the same rule", () => {
    const scope: Scope = { kind: "user", userHome: "/home/u", homes: {} };
    const manifest = (id: string) => AGENTS.find((a) => a.manifest.id === id)!.manifest;
    const isAgentDestination = (m: ReturnType<typeof manifest>, path: string, sc: Scope) =>
      agentDestinations(m, sc)(path);
    const codex = manifest("codex");
    const claude = manifest("claude");
    expect(isAgentDestination(codex, "/srv/codex/AGENTS.md", scope)).toBe(true);
    expect(isAgentDestination(codex, "/home/u/.codex/hooks.json", scope)).toBe(true);
    expect(isAgentDestination(codex, "/home/u/.agents/skills/review/SKILL.md", scope)).toBe(true);
    expect(isAgentDestination(claude, "/home/u/.claude/skills/review/scripts/run.sh", scope)).toBe(true);
    expect(isAgentDestination(codex, "/home/u/.bashrc", scope)).toBe(false);
    expect(isAgentDestination(codex, "/home/u/.codex/../.bashrc", scope)).toBe(false);
    expect(isAgentDestination(claude, "/home/u/.claude/skills/../x/SKILL.md", scope)).toBe(false);
    expect(isAgentDestination(claude, "/home/u/.claude/skills/-rf/SKILL.md", scope)).toBe(false);
    expect(isAgentDestination(claude, "relative/CLAUDE.md", scope)).toBe(false);
    const project: Scope = { kind: "project", userHome: "/home/u", dir: "/p", homes: {} };
    expect(isAgentDestination(claude, "/p/CLAUDE.md", project)).toBe(true);
    expect(isAgentDestination(claude, "/elsewhere/CLAUDE.md", project)).toBe(false);
  });
});

describe("a project's symlinks", () => {
  const project = () => join(s.work, "project");
  it.each([
    ["CLAUDE.md", "file"],
    [".claude", "folder"],
  ])("%s linked outside the project makes apply --project refuse; nothing is written", async (link, kind) => {
    s.writeHome(
      "version: 1\nagents: [claude]\ninstructions:\n  files: [i.md]\nhooks:\n  - {name: g, event: Stop, command: x}\n",
      {
        "i.md": "rules\n",
      },
    );
    mkdirSync(project());
    const target = join(s.home, kind === "file" ? ".bashrc" : ".ssh");
    if (kind === "file") writeFileSync(target, "my shell\n");
    else mkdirSync(target);
    symlinkSync(target, join(project(), link));
    const r = await s.k("apply", "--project", project(), "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /: a symlink in the project points outside it \(.*\); kanon writes only inside .*, so nothing was written\n$/,
    );
    if (kind === "file") expect(readFileSync(target, "utf8")).toBe("my shell\n");
    else expect(listFiles(target)).toEqual([]);
    expect(listFiles(project()).filter((f) => !f.startsWith(link))).toEqual([]);
  });

  it("inside the project are followed, as everywhere", async () => {
    s.writeHome("version: 1\nagents: [claude]\ninstructions:\n  files: [i.md]\n", { "i.md": "rules\n" });
    mkdirSync(join(project(), "docs"), { recursive: true });
    symlinkSync(join(project(), "docs/CLAUDE.md"), join(project(), "CLAUDE.md"));
    expect((await s.k("apply", "--project", project(), "--yes")).status).toBe(0);
    expect(readFileSync(join(project(), "docs/CLAUDE.md"), "utf8")).toBe("rules\n");
  });
});

describe("render (the boundary itself)", () => {
  const source = (names: string[]): Source => ({
    paths: { home: "/kh", config: "/kh/kanon.yaml", userHome: "/home/u" },
    config: {
      version: 1,
      instructions: { files: [] },
      skills: [],
      mcp: { servers: {} },
      hooks: [],
      metadata: {},
    },
    instructions: [],
    localSkills: names.map((name) => ({
      name,
      targets: undefined,
      files: [{ rel: "SKILL.md", content: Buffer.from(SKILL), mode: 0o644 }],
    })),
    providers: [],
    renameSkillMd: null,
  });
  const scope: Scope = { kind: "user", userHome: "/home/u", homes: {} };

  it("writes a skill only below <skill root>/<name>/, or refuses it, whatever its name (property)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (name) => {
        let files: ReturnType<typeof renderAll>;
        try {
          files = renderAll({
            source: source([name]),
            scope,
            agents: AGENTS,
            decisions: [],
            mcp: [],
            items: [],
          });
        } catch (e) {
          expect(segmentProblem(name)).not.toBeNull();
          expect((e as Error).message).toContain("the skill name");
          return;
        }
        expect(segmentProblem(name)).toBeNull();
        const roots = AGENTS.map((a) => agentPath(a.manifest, a.manifest.skills.root, scope)!);
        for (const f of files) {
          const root = roots.find((r) => isInside(r, f.path));
          expect(root, f.path).toBeDefined();
          expect(f.path).toBe(join(root!, name, "SKILL.md"));
        }
      }),
    );
  });
});
