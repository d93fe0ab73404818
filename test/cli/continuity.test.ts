/**
 * kanon waypoint, kanon stage and kanon task in a git project: in-process, and through the built
 * binary where a hook runs it.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, sandboxPerTest } from "../support/cli.js";

// The git project, made once for the file (`git init`) and copied into each test's sandbox.
let template = "";
beforeAll(() => {
  template = mkdtempSync(join(tmpdir(), "kanon-continuity-"));
  mkdirSync(join(template, "src"));
  const init = spawnSync("git", ["init", "-q"], { cwd: template, encoding: "utf8" });
  if (init.status !== 0) throw new Error(`git init: ${init.stderr}`);
});
afterAll(() => rmSync(template, { recursive: true, force: true }));
const s = sandboxPerTest((s) => cpSync(template, join(s.work, "project"), { recursive: true }));
const project = () => join(s.work, "project");
/** `kanon --home <kh> …` run in the project's src/ folder (the git root is one up). */
const k = (args: string[], env: Record<string, string> = {}) =>
  s.run(["--home", s.kh, ...args], { cwd: join(project(), "src"), env });
const waypointFile = () => JSON.parse(readFileSync(join(project(), ".kanon/waypoint.json"), "utf8"));

describe("kanon waypoint", () => {
  it("sets, shows and clears the waypoint at the git root", async () => {
    expect(await k(["waypoint", "show"])).toMatchObject({
      status: 0,
      stdout: `No waypoint in ${project()}; kanon waypoint set --next "<the next piece of work>" records one.\n`,
    });
    const set = await k([
      "waypoint",
      "set",
      "--path",
      "release-2/execute",
      "--status",
      "in progress",
      "--next",
      "fix the parser",
    ]);
    expect(set).toMatchObject({
      status: 0,
      stdout: "Waypoint revision 1 written to .kanon/waypoint.json.\n",
      stderr: "",
    });
    expect(
      await k(["waypoint", "set", "--why", "the release waits for it"], {
        KANON_AGENT: "codex",
        KANON_SESSION_ID: "s-9",
      }),
    ).toMatchObject({ status: 0 });
    expect(waypointFile()).toMatchObject({
      schema: 1,
      revision: 2,
      writer: { agent: "codex", session: "s-9" },
      path: ["release-2", "execute"],
      status: "in progress",
      next: "fix the parser",
      why: "the release waits for it",
    });
    const show = await k(["waypoint", "show"]);
    expect(show.stdout).toMatch(
      /^\[kanon\] Where the work stands: waypoint revision 2 \(\S+, written by codex \(session s-9\)\)\nPath: release-2 > execute\nStatus: in progress\nNext: fix the parser\nWhy: the release waits for it\n$/,
    );
    expect((await k(["waypoint"])).stdout).toBe(show.stdout);
    expect((await k(["waypoint", "show", "--block"])).stdout).toBe(show.stdout);
    expect((await k(["waypoint", "show", "--position"])).stdout).toBe(
      "kanon waypoint r2: release-2 > execute | in progress | next: fix the parser\n",
    );
    const json = JSON.parse((await k(["waypoint", "show", "--json"])).stdout);
    expect(json).toEqual({
      root: project(),
      revision: 2,
      path: ["release-2", "execute"],
      status: "in progress",
      next: "fix the parser",
      why: "the release waits for it",
      waypoint: waypointFile(),
      pause: null,
      handoffs: [],
      reminder: null,
    });
    expect(await k(["waypoint", "clear"])).toMatchObject({
      status: 0,
      stdout: "Waypoint cleared (revision 3).\n",
    });
    expect((await k(["waypoint", "show", "--block"])).stdout).toBe("");
    expect((await k(["waypoint", "show", "--position"])).stdout).toBe("");
  });

  it("--json: revision, path, status, next and why at the top level, the waypoint file under waypoint", async () => {
    const json = async () => JSON.parse((await k(["waypoint", "show", "--json"])).stdout);
    const none = { revision: null, path: [], status: null, next: null, why: null, waypoint: null };
    expect(await json()).toMatchObject(none);
    await k(["waypoint", "set", "--path", "p1/plan", "--next", "write the plan"]);
    await k(["waypoint", "pause", "--reason", "lunch"]);
    const set = await json();
    expect(Object.keys(set)).toEqual([
      "root",
      "revision",
      "path",
      "status",
      "next",
      "why",
      "waypoint",
      "pause",
      "handoffs",
      "reminder",
    ]);
    expect(set).toMatchObject({ revision: 1, path: ["p1", "plan"], status: null, next: "write the plan" });
    expect(set.waypoint).toEqual(waypointFile());
    expect(set.pause).toMatchObject({ reason: "lunch" });
    // A cleared waypoint keeps its revision: the number a script compares goes on growing.
    await k(["waypoint", "clear"]);
    expect(await json()).toMatchObject({ ...none, revision: 2, waypoint: waypointFile() });
  });

  it("works in the --project folder, with or without a Kanon home", async () => {
    const other = join(s.work, "other");
    mkdirSync(other);
    expect(await s.run(["--project", other, "waypoint", "set", "--next", "x"])).toMatchObject({ status: 0 });
    expect(existsSync(join(other, ".kanon/waypoint.json"))).toBe(true);
    // Its .kanon folder makes it the project root of the folders below it.
    mkdirSync(join(other, "deep"));
    expect((await s.run(["waypoint", "show", "--position"], { cwd: join(other, "deep") })).stdout).toBe(
      "kanon waypoint r1: (no path) | next: x\n",
    );
    expect(await s.run(["--project", join(s.work, "nope"), "waypoint", "show"])).toMatchObject({
      status: 1,
      stderr: `--project ${join(s.work, "nope")}: not a directory\n`,
    });
  });

  it("outside a git repository, asks for --project", async () => {
    expect(await s.run(["waypoint", "show"], { cwd: s.work })).toMatchObject({
      status: 1,
      stdout: "",
      stderr: `no project at or above ${s.work} (no .kanon or .git folder): run kanon in a project, or pass --project DIR\n`,
    });
  });

  it.each([
    [["waypoint", "set"], "kanon waypoint set: nothing to set; give --path, --status, --next or --why"],
    [["waypoint", "set", "--path", "a//b"], '--path "a//b": empty segment (separate segments with one /)'],
    [["waypoint", "set", "--next", "a\u0007b"], "--next: control characters are not allowed"],
  ])("refuses %j and writes nothing", async (args, message) => {
    expect(await k(args)).toMatchObject({ status: 1, stdout: "", stderr: `${message}\n` });
    expect(existsSync(join(project(), ".kanon"))).toBe(false);
  });

  it("refuses a waypoint.json it cannot read, and leaves it", async () => {
    mkdirSync(join(project(), ".kanon"));
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(project(), ".kanon/waypoint.json"), "{oops");
    const r = await k(["waypoint", "set", "--next", "x"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^\.kanon\/waypoint\.json: not valid JSON \(.*\); fix it or delete it\n$/);
    expect(readFileSync(join(project(), ".kanon/waypoint.json"), "utf8")).toBe("{oops");
  });

  it("pauses and resumes", async () => {
    await k(["waypoint", "set", "--next", "go on"]);
    expect(
      await k(["waypoint", "pause", "--reason", "review first"], { KANON_AGENT: "claude" }),
    ).toMatchObject({
      status: 0,
      stdout:
        "Paused: wrote .kanon/PAUSE; the next re-anchor starts with a pause banner (kanon waypoint resume ends it).\n",
    });
    expect(JSON.parse(readFileSync(join(project(), ".kanon/PAUSE"), "utf8"))).toEqual({
      requestedAt: expect.any(String),
      reason: "review first",
      agent: "claude",
    });
    expect((await k(["waypoint", "show", "--block"])).stdout).toMatch(
      /^\[kanon\] PAUSED: the operator interrupted the work in claude at \S+ \(review first\)\. Tools remain available/,
    );
    expect((await k(["waypoint", "show", "--position"])).stdout).toBe(
      "PAUSED | kanon waypoint r1: (no path) | next: go on\n",
    );
    expect((await k(["waypoint", "resume"])).stdout).toMatch(
      /^Resumed: removed \.kanon\/PAUSE \(paused at \S+ in claude\)\.\n$/,
    );
    expect(existsSync(join(project(), ".kanon/PAUSE"))).toBe(false);
    expect((await k(["waypoint", "resume"])).stdout).toBe("Not paused.\n");
  });

  it("bounds the block at continuity.max_chars", async () => {
    s.writeHome("version: 1\ncontinuity: { max_chars: 300 }\n");
    await k([
      "waypoint",
      "set",
      "--path",
      "a",
      "--status",
      "s".repeat(150),
      "--next",
      "n".repeat(150),
      "--why",
      "w".repeat(150),
    ]);
    const block = (await k(["waypoint", "show", "--block"])).stdout;
    expect(block.length).toBeLessThanOrEqual(300);
    expect(block).toMatch(/more characters cut \(kanon waypoint show\)\n$/);
    expect((await k(["waypoint", "show"])).stdout).toContain(`Why: ${"w".repeat(150)}\n`);
  });
});

describe("kanon stage", () => {
  it("refuses to start a stage whose gate is closed (exit 2), naming the command that opens it", async () => {
    const r = await k(["stage", "start", "plan"]);
    expect(r).toMatchObject({
      status: 2,
      stdout: "",
      stderr:
        'stage "plan" cannot start: stage "assess" has no handoff; run: kanon stage done assess --summary "<what the next stage needs to know>" (or kanon stage skip assess --reason "<why>")\n',
    });
    expect(existsSync(join(project(), ".kanon"))).toBe(false);
  });

  it("walks the stages: skip, start, done with artifacts, list", async () => {
    mkdirSync(join(project(), "docs"));
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(project(), "docs/plan.md"), "plan\n");
    expect(await k(["stage", "skip", "assess", "--reason", "a small fix"])).toMatchObject({
      status: 0,
      stdout: "Skipped stage assess; handoff written to .kanon/handoffs/assess.json (waypoint revision 1).\n",
    });
    expect(await k(["stage", "start", "plan"])).toMatchObject({
      status: 0,
      stdout: "Started stage plan (waypoint revision 2).\n",
    });
    expect(
      await k(["stage", "done", "plan", "--summary", "one task", "--artifact", "../docs/plan.md"]),
    ).toMatchObject({
      status: 0,
      stdout: "Done: stage plan; handoff written to .kanon/handoffs/plan.json (waypoint revision 3).\n",
    });
    expect(JSON.parse(readFileSync(join(project(), ".kanon/handoffs/plan.json"), "utf8"))).toMatchObject({
      outputs: ["docs/plan.md"],
      summaryForNext: "one task",
      nextStage: "execute",
    });
    const list = (await k(["stage", "list"])).stdout;
    expect(list).toMatch(
      /^assess {3}skipped \S+\nplan {5}done \S+\nexecute {2}open\nreflect {2}open \(waits for execute\)\n$/,
    );
    expect((await k(["stage"])).stdout).toBe(list);
    const json = JSON.parse((await k(["stage", "list", "--json"])).stdout);
    expect(json.stages.map((r: { name: string; waitsFor: string | null }) => [r.name, r.waitsFor])).toEqual([
      ["assess", null],
      ["plan", "assess"],
      ["execute", "plan"],
      ["reflect", "execute"],
    ]);
    expect(readdirSync(join(project(), ".kanon/handoffs")).sort()).toEqual(["assess.json", "plan.json"]);
  });

  it.each([
    [
      ["stage", "start", "plam"],
      'unknown stage "plam" (did you mean "plan"?); stages: assess, plan, execute, reflect',
    ],
    [
      ["stage", "done", "assess"],
      'kanon stage done assess: --summary "<what the next stage needs to know>" is required',
    ],
    [
      ["stage", "done", "assess", "--summary", "s", "--artifact", "missing.md"],
      "--artifact missing.md: no such file or directory",
    ],
    [["stage", "skip", "assess"], 'kanon stage skip assess: --reason "<why>" is required'],
    [["task", "start", "3", "2"], "task 3 of 2: index and total are whole numbers with 1 <= index <= total"],
    [["task", "done", "0", "2"], "task 0 of 2: index and total are whole numbers with 1 <= index <= total"],
    [
      ["task"],
      "kanon task: name a step: kanon task start <index> <total> or kanon task done <index> <total>",
    ],
  ])("refuses %j and writes nothing", async (args, message) => {
    expect(await k(args)).toMatchObject({ status: 1, stderr: `${message}\n` });
    expect(existsSync(join(project(), ".kanon"))).toBe(false);
  });

  it("takes the stages and stage hooks from kanon.yaml", async () => {
    s.writeHome(`version: 1
stages: [plan, {name: review, optional: true}, execute]
stage_hooks:
  - { on: "*:before", command: 'echo "$KANON_HOOK_EVENT" >> "$KANON_PROJECT_ROOT/fired"' }
  - { name: tests, on: execute:after, command: "exit 4", on_failure: error }
  - { on: task:after, command: "printf 'task hook says \\\\033[2Jhi\\\\n' >&2; exit 5" }
`);
    expect((await k(["stage", "done", "plan", "--summary", "s"])).status).toBe(0);
    expect((await k(["stage", "start", "execute"])).status).toBe(0);
    expect(readFileSync(join(project(), "fired"), "utf8")).toBe("execute:before\n");
    const task = await k(["task", "done", "1", "1"]);
    expect(task).toMatchObject({
      status: 0,
      stdout: "Done: task 1 of 1 (waypoint revision 3).\n",
      // A hook's output passes kanon's printing boundary: a control character is spelled out.
      stderr: 'task hook says ^[[2Jhi\nwarning: stage hook "stage_hooks[2]" (task:after) failed: exit 5\n',
    });
    expect(await k(["stage", "done", "execute", "--summary", "s"])).toMatchObject({
      status: 1,
      stderr: 'stage hook "tests" (execute:after) failed: exit 4; stage "execute" not recorded as done\n',
    });
    expect(existsSync(join(project(), ".kanon/handoffs/execute.json"))).toBe(false);
    const events = readFileSync(join(project(), ".kanon/events.jsonl"), "utf8").trim().split("\n");
    expect(events.map((l) => JSON.parse(l).event)).toEqual(["execute:before", "task:after", "execute:after"]);
  });

  it("reports bad stages and stage hooks with their place in kanon.yaml", async () => {
    s.writeHome(`version: 1
continuity: { max_chars: 50 }
stages: [plan, Plan, plan, task]
stage_hooks:
  - { on: plam:before, command: x }
  - { on: "plan", command: x }
  - { on: "change:before", command: x }
  - { on: "plan:after", timeout: 0 }
  - { on: "plan:after", command: x, on_failure: maybe }
`);
    const expected = [
      "kanon.yaml:2:26: continuity.max_chars must be between 300 and 10000 (characters)",
      'kanon.yaml:3:16: stage "Plan": a stage name is 1 to 64 lower-case letters, digits, - or _, starting with a letter or digit',
      'kanon.yaml:3:22: stage "plan" is listed twice',
      'kanon.yaml:3:28: stage "task": the name is taken by stage hooks (on: task:after)',
      'kanon.yaml:5:11: stage hook "stage_hooks[0]": on "plam:before" names no stage (did you mean "plan"?); stages: plan, Plan, plan, task',
    ];
    const validate = await s.run(["--home", s.kh, "validate"]);
    expect(validate.status).toBe(1);
    for (const line of expected) expect(validate.stderr).toContain(`${line}\n`);
    expect(validate.stderr).toContain(
      'stage hook "stage_hooks[1]": on "plan" is not <stage|task|change|*>:<before|after|*>',
    );
    expect(validate.stderr).toContain("change has only an after edge");
    expect(validate.stderr).toContain('stage hook "stage_hooks[3]" requires command');
    expect(validate.stderr).toContain('stage hook "stage_hooks[3]": timeout must be at least 1 second');
    expect(validate.stderr).toContain(
      'kanon.yaml:9:49: stage hook "stage_hooks[4]": on_failure "maybe" is not warn, error, ignore\n',
    );
    const stage = await k(["stage", "list"]);
    expect(stage.status).toBe(1);
    expect(stage.stderr).toContain(expected[0]);
  });
});

describe("kanon schema", () => {
  it("describes continuity, stages and stage_hooks", async () => {
    const schema = JSON.parse((await s.run(["schema"])).stdout);
    expect(Object.keys(schema.properties.continuity.properties)).toEqual([
      "reanchor",
      "position_on_prompt",
      "max_chars",
    ]);
    expect(schema.properties.stages.items.anyOf[1].properties.optional.type).toBe("boolean");
    expect(schema.properties.stage_hooks.items.properties.on_failure.enum).toEqual([
      "warn",
      "error",
      "ignore",
    ]);
  });
});

describe("continuity: kanon's own hooks", () => {
  const ALL = "agents: [claude, codex, opencode, gemini, kimi]\n";

  it("are listed by kanon hooks with where each lands in each agent, or why it is left out", async () => {
    s.writeHome(`version: 1\n${ALL}continuity: { reanchor: true, position_on_prompt: true }\n`);
    const r = await s.run(["--home", s.kh, "hooks"]);
    expect(r.status).toBe(0);
    const row = (hook: string, agent: string) =>
      r.stdout
        .split("\n")
        .find((l) => new RegExp(`^${hook} +\\S+ +${agent} `).test(l))
        ?.split(/ {2,}/);
    expect(row("kanon/reanchor", "claude")).toEqual([
      "kanon/reanchor",
      "SessionStart",
      "claude",
      "as written",
      "neutral",
      "at event",
      "no",
    ]);
    expect(row("kanon/reanchor-compact", "claude")).toBeUndefined();
    expect(row("kanon/reanchor-compact", "kimi")?.slice(3)).toEqual([
      "as written",
      "neutral",
      "next prompt",
      "no",
    ]);
    expect(row("kanon/reanchor", "kimi")?.[5]).toBe("next prompt");
    expect(row("kanon/carry", "kimi")?.[5]).toBe("at event");
    expect(row("kanon/reanchor-compact", "gemini")?.[3]).toBe("left out");
    expect(row("kanon/position", "opencode")?.[5]).toBe("at event");
    expect(row("kanon/pause", "claude")?.[3]).toBe("left out");
    expect(row("kanon/pause", "codex")?.slice(3)).toEqual([
      "as written (gated)",
      "neutral",
      "not delivered",
      "no",
    ]);
    expect(row("kanon/stop", "claude")?.slice(3)).toEqual(["as written", "neutral", "not delivered", "no"]);
    // No carry hook where nothing is carried.
    expect(row("kanon/carry", "claude")).toBeUndefined();
    expect(r.stdout).toContain('kanon/pause → claude: left out: event "Interrupt" is not supported\n');
    expect(r.stdout).toContain(
      "kanon/pause → claude: kanon's own hook: writes .kanon/PAUSE before anything else when the operator interrupts; an agent without an Interrupt event pauses with kanon waypoint pause\n",
    );
    expect(r.stdout).toContain(
      'kanon/reanchor-compact → gemini: left out: event "PostCompact" is not supported\n',
    );
    const json = JSON.parse((await s.run(["--home", s.kh, "hooks", "--json"])).stdout);
    expect(
      json.hooks.find(
        (h: { hook: string; agent: string }) => h.hook === "kanon/position" && h.agent === "codex",
      ),
    ).toMatchObject({
      builtin: "position",
      envelope: "neutral",
      event: "UserPromptSubmit",
      context: "at event",
      block: false,
    });
  });

  it("render into every agent through the runner, each with its bound", async () => {
    s.writeHome(`version: 1\n${ALL}continuity: { reanchor: true, max_chars: 2000 }\n`);
    const render = JSON.parse((await s.run(["--home", s.kh, "render", "--json"])).stdout);
    const file = (suffix: string) =>
      render.files.find((f: { path: string }) => f.path.endsWith(suffix))?.content as string;
    const claude = file(".claude/settings.json");
    expect(claude).toContain('"--builtin",\n              "reanchor"');
    expect(claude).toContain('"2000"');
    expect(claude).not.toContain("PostCompact");
    expect(claude).not.toContain('"position"');
    const kimi = file(".kimi-code/config.toml");
    expect(kimi).toMatch(
      /^command = ".* 'PostCompact' 'kanon\/reanchor-compact' .* '--builtin' 'reanchor'"$/m,
    );
    expect(kimi).toMatch(/^command = ".* 'Interrupt' 'kanon\/pause' .* '--builtin' 'pause'"$/m);
    expect(file("hook-runner.mjs")).toContain("__kanonBundle");
  });

  it("are only the position hook with position_on_prompt alone, and none without continuity", async () => {
    s.writeHome(`version: 1\n${ALL}continuity: { position_on_prompt: true }\n`);
    const hooks = (await s.run(["--home", s.kh, "hooks"])).stdout;
    const rows = hooks.split("\n\n")[0]!.split("\n").slice(1);
    expect(rows.map((r) => r.split(/ +/)[0])).toEqual(Array(5).fill("kanon/position"));
    s.writeHome(`version: 1\n${ALL}`);
    expect((await s.run(["--home", s.kh, "hooks"])).stdout).toBe("No hooks.\n");
  });

  it("record the agent and session of a neutral hook that sets the waypoint", async () => {
    s.writeHome(
      `version: 1\nagents: [claude]\nhooks:\n  - { name: mark, event: Stop, envelope: neutral, command: "${process.execPath} ${join(ROOT, "dist/kanon.js")} waypoint set --status marked" }\n`,
    );
    expect((await s.run(["--home", s.kh, "apply", "--yes"])).status).toBe(0);
    const settings = JSON.parse(readFileSync(join(s.home, ".claude/settings.json"), "utf8"));
    const handler = settings.hooks.Stop[0].hooks[0];
    const r = spawnSync(handler.command, handler.args, {
      input: JSON.stringify({ session_id: "sess-7", cwd: project(), hook_event_name: "Stop" }),
      cwd: project(),
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: s.home },
    });
    expect(r.status).toBe(0);
    expect(waypointFile()).toMatchObject({
      status: "marked",
      writer: { agent: "claude", session: "sess-7" },
    });
  });
});
