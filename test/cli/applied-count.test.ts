import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/context.js";
import { applyReviewer } from "../../src/cli/ui/review.js";
import { type KanonSandbox, listFiles, ROOT, sandboxEnv, sandboxPerTest, snapshot } from "../support/cli.js";
import { otherClone } from "../support/git-remote.js";

const s = sandboxPerTest();
const project = () => join(s.work, "project");
const EXAMPLE = readFileSync(join(ROOT, "examples/home/kanon.yaml"), "utf8");
/** The example home for all five agents, every hook through the runner, and kanon's continuity hooks. */
const ALL = EXAMPLE.replace(
  "version: 1\n",
  "version: 1\nagents: [claude, codex, opencode, gemini, kimi]\nhooks_envelope: neutral\ncontinuity: { reanchor: true, position_on_prompt: true }\n",
).replace("targets: [claude, codex, opencode]", "targets: [claude, codex, opencode, gemini, kimi]");

/** Not a destination: git's files, kanon's state directory and the Kanon home. */
const NOT_DESTINATION = /(^|\/)(\.git|\.local\/state\/kanon|\.config\/kanon)(\/|$)/;

/** Every file and symlink of the destinations, the user's home and the project: path → bytes and mode. */
const destinations = () => ({
  ...snapshot(s.home, { skip: NOT_DESTINATION }),
  ...Object.fromEntries(
    Object.entries(snapshot(project(), { skip: NOT_DESTINATION })).map(([rel, v]) => [
      join("<project>", rel),
      v,
    ]),
  ),
});

function changedFiles(before: Record<string, string>, after: Record<string, string>): string[] {
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((p) => before[p] !== after[p]);
}

/** The N of `Applied N file change(s).` (0 for `No changes.`). */
function applied(stdout: string): number {
  if (stdout.endsWith("No changes.\n")) return 0;
  const m = /Applied (\d+) file change\(s\)\.\n$/.exec(stdout);
  if (!m) throw new Error(`no count in: ${stdout}`);
  return Number(m[1]);
}

const exampleHome = (yaml = EXAMPLE) => {
  cpSync(join(ROOT, "examples/home"), s.kh, { recursive: true });
  writeFileSync(join(s.kh, "kanon.yaml"), yaml);
};
const inProject = ["--project", "PROJECT"];
const args = (a: string[]) => a.map((x) => (x === "PROJECT" ? project() : x));

async function applyOk(...a: string[]): Promise<void> {
  const r = await s.k(...args(a), "apply", "--yes");
  expect(r, r.stderr).toMatchObject({ status: 0 });
}

interface Scenario {
  name: string;
  /** What is on disk before the apply that is counted (earlier applies included). */
  setup(s: KanonSandbox): Promise<void> | void;
  /** Global flags of the apply (`PROJECT`: the project folder). */
  flags?: string[];
}

const SCENARIOS: Scenario[] = [
  { name: "the example home, user scope", setup: () => exampleHome() },
  {
    name: "all five agents with the hook runner, OpenCode's plugin and continuity, user scope",
    setup: () => exampleHome(ALL),
  },
  {
    name: "all five agents in a project (one AGENTS.md for Codex, OpenCode and Kimi; the runner outside it)",
    setup: () => exampleHome(ALL),
    flags: inProject,
  },
  {
    name: "a second apply: instructions edited, a skill and an MCP server removed (deletions count)",
    async setup() {
      exampleHome(ALL);
      await applyOk();
      writeFileSync(join(s.kh, "instructions/shared.md"), "# Edited\n");
      rmSync(join(s.kh, "skills/review"), { recursive: true });
      writeFileSync(
        join(s.kh, "kanon.yaml"),
        ALL.replace(/skills:\n(.*\n){3}/, "").replace(/ {4}docs:\n(.*\n){5}/, ""),
      );
    },
  },
  {
    name: "everything removed in a project: kanon's files, and the co-owned files it created, go",
    async setup() {
      exampleHome(ALL);
      await applyOk(...inProject);
      writeFileSync(
        join(s.kh, "kanon.yaml"),
        "version: 1\nagents: [claude, codex, opencode, gemini, kimi]\n",
      );
    },
    flags: inProject,
  },
  {
    name: "a rotated secret: the files that hold it are written again",
    async setup() {
      exampleHome(ALL.replace("${DOCS_TOKEN:-}", "${secret:DOCS_TOKEN}"));
      expect((await s.run(["secret", "set", "DOCS_TOKEN"], { input: "first-token\n" })).status).toBe(0);
      await applyOk();
      expect((await s.run(["secret", "set", "DOCS_TOKEN"], { input: "second-token\n" })).status).toBe(0);
    },
  },
  {
    name: "a kanon file whose mode was changed by hand (only its mode is written)",
    async setup() {
      exampleHome();
      await applyOk();
      chmodSync(join(s.home, ".claude/skills/review/scripts/check.sh"), 0o644);
    },
  },
  {
    name: "a project whose CLAUDE.md is a symlink to AGENTS.md: the one file is written once",
    setup() {
      exampleHome();
      mkdirSync(project());
      writeFileSync(join(project(), "AGENTS.md"), "# mine\n");
      symlinkSync("AGENTS.md", join(project(), "CLAUDE.md"));
    },
    flags: inProject,
  },
  {
    name: "~/.claude/skills a symlink to ~/.agents/skills: each skill file is written once",
    setup() {
      exampleHome();
      mkdirSync(join(s.home, ".agents/skills"), { recursive: true });
      mkdirSync(join(s.home, ".claude"));
      symlinkSync("../.agents/skills", join(s.home, ".claude/skills"));
    },
  },
];

describe("Applied N file change(s) counts the files written", () => {
  for (const sc of SCENARIOS) {
    it(sc.name, async () => {
      await sc.setup(s);
      const before = destinations();
      const r = await s.k(...args(sc.flags ?? []), "apply", "--yes");
      expect(r.status, r.stderr).toBe(0);
      const changed = changedFiles(before, destinations());
      expect(changed.length).toBeGreaterThan(0);
      expect(applied(r.stdout), changed.join("\n")).toBe(changed.length);
      // What the dry run said it would apply, once applied, leaves nothing to do.
      expect((await s.k(...args(sc.flags ?? []), "diff")).stdout).toBe("No changes.\n");
    });
  }
});

describe("one file on disk under two rendered paths", () => {
  it("a path no longer rendered that leads to a file still rendered under another is not deleted", async () => {
    exampleHome();
    mkdirSync(join(s.home, ".agents/skills"), { recursive: true });
    mkdirSync(join(s.home, ".claude"));
    symlinkSync("../.agents/skills", join(s.home, ".claude/skills"));
    await applyOk();
    // Codex's copy (~/.agents/skills) is no longer rendered; Claude's, the same file, still is.
    writeFileSync(
      join(s.kh, "kanon.yaml"),
      EXAMPLE.replace("targets: [claude, codex, opencode]", "targets: [claude, opencode]"),
    );
    const before = destinations();
    const r = await s.k("apply", "--yes");
    expect(r.status, r.stderr).toBe(0);
    expect(applied(r.stdout)).toBe(changedFiles(before, destinations()).length);
    expect(readFileSync(join(s.home, ".claude/skills/review/SKILL.md"), "utf8")).toBe(
      readFileSync(join(s.kh, "skills/review/SKILL.md"), "utf8"),
    );
    expect((await s.k("diff")).stdout).toBe("No changes.\n");
  });

  it("different content for the two paths is refused in one line before anything is written", async () => {
    writeFileSync(join(s.home, "placeholder"), "");
    s.writeHome(
      "version: 1\nagents: [claude, codex]\ninstructions:\n  files: [a.md, {path: b.md, targets: [claude]}]\n",
      {
        "a.md": "A\n",
        "b.md": "B\n",
      },
    );
    s.write(".codex/AGENTS.md", "mine\n");
    mkdirSync(join(s.home, ".claude"));
    symlinkSync("../.codex/AGENTS.md", join(s.home, ".claude/CLAUDE.md"));
    const before = destinations();
    const r = await s.k("apply", "--yes");
    expect(r.status).toBe(1);
    const claude = join(s.home, ".claude/CLAUDE.md");
    const codex = join(s.home, ".codex/AGENTS.md");
    expect(r.stderr).toBe(
      `${claude} (claude) and ${codex} (codex) are one file on disk, ${codex} (a symlink leads from one to the other), and kanon renders different content for them: make one of them a file of its own, or render it for one agent only; nothing was written\n`,
    );
    expect(destinations()).toEqual(before);
  });
});

describe("the same count in update and in kanon ui", () => {
  it("kanon update --yes counts the files its apply wrote", async () => {
    const remote = join(s.work, "remote.git");
    const other = otherClone(remote, join(s.work, "other"), s.home);
    other.create();
    const example = join(ROOT, "examples/home");
    const files = Object.fromEntries(
      listFiles(example).map((f) => [f, readFileSync(join(example, f), "utf8")]),
    );
    other.push({ ...files, "kanon.yaml": ALL });
    expect((await s.k("init", remote)).status).toBe(0);
    expect((await s.k("apply", "--yes", "--trust-hooks")).status).toBe(0);
    other.push({
      "instructions/shared.md": "# Pulled\n",
      "kanon.yaml": ALL.replace(/ {4}tracker:\n(.*\n){4}/, ""),
    });
    const before = destinations();
    const r = await s.k("update", "--yes", "--trust-hooks");
    expect(r.status, r.stderr).toBe(0);
    const changed = changedFiles(before, destinations());
    expect(changed.length).toBeGreaterThan(0);
    expect(applied(r.stdout)).toBe(changed.length);
  });

  it("kanon ui's apply reports the files it wrote", async () => {
    exampleHome(ALL);
    mkdirSync(project());
    writeFileSync(join(project(), "AGENTS.md"), "# mine\n");
    symlinkSync("AGENTS.md", join(project(), "CLAUDE.md"));
    const quiet = new Writable({ write: (_c, _e, done) => done() });
    const io: Io = {
      stdout: quiet,
      stderr: quiet,
      stdin: Readable.from([]) as NodeJS.ReadStream,
      env: sandboxEnv(s.home),
      cwd: s.work,
      userHome: s.home,
    };
    const reviewer = applyReviewer({ home: s.kh, project: project(), agent: "all" }, io);
    const review = await reviewer.load();
    const before = destinations();
    const done = await reviewer.apply(
      review.changes,
      review.changes.map((c) => c.path),
      false,
    );
    const changed = changedFiles(before, destinations());
    expect(changed.length).toBeGreaterThan(0);
    expect(done.count).toBe(changed.length);
  });
});
