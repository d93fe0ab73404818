// The commands and subagents phase of the conformance suite: kanon renders the slash commands and
// subagents of conformance/commands/home for one agent and scope; where the agent has them, it runs each
// rendered command with two arguments and hands a task to a rendered subagent through its own subagent
// tool, and the fake model's request log must show the command's text with the arguments in place and
// the subagent's instructions. Where kanon leaves an item out, it must have said so and written nothing.
// See conformance/README.md ("The commands and subagents phase").

import { randomUUID } from "node:crypto";
import { type Dirent, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parse } from "yaml";
import type { AgentDriver, Layout, PhaseCheck, PhaseContext, RenderedSubagent } from "../drivers/types.js";
import { pickShellTool, type ScriptedCall } from "../fake-model/protocols.js";
import { type FakeModel, type RecordedRequest, startFakeModel } from "../fake-model/server.js";
import { show } from "../lib/checks.js";
import { baseEnv, createLayout } from "../lib/layout.js";
import { type RunResult, runProcess, sweepStrays } from "../lib/proc.js";

export const COMMANDS_COLUMNS = ["cmd-render", "cmd-text", "sub-render", "sub-prompt", "sub-tools"];

/** The arguments every command runs with: two single words (OpenCode re-quotes a word with a space). */
const ARGS = ["alpha", "beta"];
const TASK = "KANON_SUB_TASK: answer the kanon conformance probe.";
const PLAIN_PROMPT = "Hand the kanon conformance probe to the subagent.";
/** Commands in the order the runs take them: the one with positional arguments first. */
const COMMAND_ORDER = ["kanon-pos", "kanon-all"];
/** The subagent to run: the one with a tool list where the agent can say it, else the plain one. */
const SUBAGENT_ORDER = ["kanon-reader", "kanon-plain"];

/** One row of `kanon commands --json` or `kanon agents --json`, for one item and one agent. */
export interface ItemDecision {
  kind: "command" | "subagent";
  name: string;
  agent: string;
  outcome: "as-written" | "translated" | "omitted";
  missing?: { capability: string; detail?: string };
  translations: string[];
  notes: string[];
  /** The agent's file for the item in this scope. */
  native?: string | null;
}

/** What rendering left: kanon's decisions for the agent, and apply's warnings. */
export interface Rendered {
  /** Empty when apply and both reports succeeded; else what went wrong. */
  failure: string;
  decisions: ItemDecision[];
  warnings: string[];
}

export interface CommandsPhaseContext extends PhaseContext {
  activeTokens?: Set<string>;
  /** How the home gets rendered (default: `kanon apply --yes` and its two reports). */
  render?(layout: Layout, env: Record<string, string>): Promise<Rendered>;
}

/** A command or subagent of the phase's home, read from its file. */
interface HomeItem {
  kind: "command" | "subagent";
  name: string;
  /** The body's first word: the marker that must reach the model, and never a file where kanon left it out. */
  marker: string;
  body: string;
  tools?: string[];
}

interface Run {
  label: string;
  command?: HomeItem;
  subagent?: HomeItem;
  calls: ScriptedCall[];
  result: RunResult;
  requests: RecordedRequest[];
}

export async function commandsPhase(ctx: CommandsPhaseContext): Promise<PhaseCheck[]> {
  const { driver, scope } = ctx;
  const checks: PhaseCheck[] = [];
  const add = (id: string, status: PhaseCheck["status"], detail: string) =>
    checks.push({ id, status, detail });
  const home = join(ctx.repoRoot, "conformance", "commands", "home");
  const items = readHomeItems(home);
  const layout = await createLayout(ctx.root, home);
  const model = await startFakeModel();
  try {
    await driver.prepare(layout, model.url, scope);
    const env = { ...baseEnv(layout, model.url), ...driver.homeEnv?.(layout) };
    const rendered = await (ctx.render ?? ((l, e) => kanonRender(ctx, l, e)))(layout, env);
    if (rendered.failure) {
      add("cmd-render", "fail", rendered.failure);
      add("sub-render", "fail", rendered.failure);
      return checks;
    }
    const scan = writtenMarkers(layout, driver, items);
    const decisionOf = (item: HomeItem) =>
      rendered.decisions.find((d) => d.kind === item.kind && d.name === item.name && d.agent === driver.id);
    for (const kind of ["command", "subagent"] as const) {
      add(
        kind === "command" ? "cmd-render" : "sub-render",
        ...renderCheck(
          driver,
          kind,
          items.filter((i) => i.kind === kind),
          decisionOf,
          rendered.warnings,
          scan,
          layout,
        ),
      );
    }

    const live = (item: HomeItem) => {
      const d = decisionOf(item);
      return d !== undefined && d.outcome !== "omitted" && typeof d.native === "string";
    };
    const commands = sortBy(
      items.filter((i) => i.kind === "command" && live(i)),
      COMMAND_ORDER,
    );
    const subagent = sortBy(
      items.filter((i) => i.kind === "subagent" && live(i)),
      SUBAGENT_ORDER,
    )[0];
    if (subagent && !driver.subagentCalls) {
      add("sub-prompt", "fail", `kanon rendered subagents, but the ${driver.id} driver cannot call one`);
    }
    const subagents: RenderedSubagent[] = items
      .filter((i) => i.kind === "subagent" && live(i))
      .map((i) => ({ name: i.name, file: decisionOf(i)!.native! }));
    if (subagents.length > 0) await driver.subagentSetup?.(layout, scope, subagents);

    // One run per rendered command; the first also hands the task to the subagent (or a plain prompt
    // does, where no command is rendered).
    const runs: Run[] = [];
    const calls = subagent && driver.subagentCalls ? driver.subagentCalls(subagent.name, TASK) : [];
    const plan: { command?: HomeItem; subagent?: HomeItem; calls: ScriptedCall[] }[] = [];
    if (commands.length > 0 || calls.length > 0)
      plan.push({ command: commands[0], subagent: calls.length > 0 ? subagent : undefined, calls });
    for (const command of commands.slice(1)) plan.push({ command, calls: [] });
    for (const [i, step] of plan.entries())
      runs.push(await runAgent(ctx, layout, model, `run-${i + 1}`, step));

    add("cmd-text", ...commandTextCheck(driver, items, decisionOf, runs));
    if (!checks.some((c) => c.id === "sub-prompt"))
      add("sub-prompt", ...subagentPromptCheck(items, decisionOf, runs));
    add("sub-tools", ...subagentToolsCheck(driver, decisionOf, runs));
  } finally {
    await model.close();
  }
  return checks;
}

type Verdict = [PhaseCheck["status"], string];

/** `kanon apply --yes`, then `kanon commands --json` and `kanon agents --json`. */
async function kanonRender(
  ctx: CommandsPhaseContext,
  layout: Layout,
  env: Record<string, string>,
): Promise<Rendered> {
  const kanon = (args: string[]): Promise<RunResult> =>
    runProcess(
      [
        process.execPath,
        ctx.kanonCli,
        "--home",
        layout.kanonHome,
        ...(ctx.scope === "project" ? ["--project", layout.project] : []),
        "--agent",
        ctx.driver.id,
        ...args,
      ],
      { cwd: layout.project, env, timeoutMs: 60_000 },
    );
  const apply = await kanon(["apply", "--yes"]);
  const commands = await kanon(["commands", "--json"]);
  const agents = await kanon(["agents", "--json"]);
  writeFileSync(
    join(layout.root, "kanon-apply.log"),
    [apply, commands, agents]
      .map((r) => `${r.argv.slice(2).join(" ")}\n${r.stdout}\n--- stderr ---\n${r.stderr}`)
      .join("\n\n"),
  );
  const failed = [apply, commands, agents].filter((r) => r.code !== 0);
  if (failed.length > 0)
    return {
      failure: failed
        .map((r) => `kanon ${r.argv.slice(-2).join(" ")}: exit ${r.code}\n${r.stderr.trim()}`)
        .join("\n"),
      decisions: [],
      warnings: [],
    };
  try {
    return {
      failure: "",
      decisions: [
        ...decisionsFrom(commands.stdout, "command", "commands"),
        ...decisionsFrom(agents.stdout, "subagent", "subagents"),
      ],
      warnings: apply.stderr.split("\n").filter((l) => l.startsWith("warning:")),
    };
  } catch (error) {
    return { failure: `unreadable report: ${String(error)}`, decisions: [], warnings: [] };
  }
}

function decisionsFrom(json: string, kind: ItemDecision["kind"], key: string): ItemDecision[] {
  const doc = JSON.parse(json) as Record<string, Record<string, unknown>[]>;
  return (doc[key] ?? []).map((row) => ({
    kind,
    name: String(row[kind]),
    agent: String(row.agent),
    outcome: row.outcome as ItemDecision["outcome"],
    ...(row.missing ? { missing: row.missing as ItemDecision["missing"] } : {}),
    translations: (row.translations as string[] | undefined) ?? [],
    notes: (row.notes as string[] | undefined) ?? [],
    native: (row.native as string | null | undefined) ?? null,
  }));
}

function readHomeItems(home: string): HomeItem[] {
  const items: HomeItem[] = [];
  for (const [kind, folder] of [
    ["command", "commands"],
    ["subagent", "agents"],
  ] as const) {
    for (const file of readdirSync(join(home, folder)).sort()) {
      if (!file.endsWith(".md")) continue;
      const text = readFileSync(join(home, folder, file), "utf8");
      const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
      const front = (match ? parse(match[1]!) : {}) as { tools?: string[] };
      const body = (match ? match[2]! : text).trim();
      items.push({
        kind,
        name: file.slice(0, -".md".length),
        marker: body.split(/[\s:]/)[0]!,
        body,
        ...(front.tools ? { tools: front.tools } : {}),
      });
    }
  }
  return items;
}

/** The command's text as the model must get it: the neutral placeholders filled with ARGS. */
function expectedText(command: HomeItem): string {
  return command.body
    .replaceAll("$ARGUMENTS", ARGS.join(" "))
    .replace(/\$([1-9])/g, (_, n: string) => ARGS[Number(n) - 1] ?? "");
}

function sortBy(items: HomeItem[], order: string[]): HomeItem[] {
  const rank = (i: HomeItem) => (order.includes(i.name) ? order.indexOf(i.name) : order.length);
  return [...items].sort((a, b) => rank(a) - rank(b));
}

/**
 * Files under the agent's folders (HOME, the project, a moved agent home) that hold an item's marker,
 * read right after apply: where kanon left an item out, none may.
 */
function writtenMarkers(layout: Layout, driver: AgentDriver, items: HomeItem[]): Map<string, string[]> {
  const found = new Map<string, string[]>(items.map((i) => [i.marker, []]));
  const skip = new Set([".git", "node_modules", join(".local", "state"), ".cache"]);
  const walk = (root: string, dir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (skip.has(relative(root, path)) || entry.name === ".git") continue;
      if (entry.isDirectory()) walk(root, path);
      else if (entry.isFile()) {
        const text = readFileSync(path, "utf8");
        for (const [marker, files] of found) if (text.includes(marker)) files.push(path);
      }
    }
  };
  for (const root of [layout.home, layout.project, ...Object.values(driver.homeEnv?.(layout) ?? {})])
    if (existsSync(root)) walk(root, root);
  return found;
}

function renderCheck(
  driver: AgentDriver,
  kind: HomeItem["kind"],
  items: HomeItem[],
  decisionOf: (item: HomeItem) => ItemDecision | undefined,
  warnings: string[],
  scan: Map<string, string[]>,
  layout: Layout,
): Verdict {
  const problems: string[] = [];
  const notes: string[] = [];
  const homes = Object.entries(driver.homeEnv?.(layout) ?? {});
  const tilde = (path: string) => {
    const moved = homes.find(([, dir]) => path.startsWith(`${dir}/`));
    if (moved) return `$${moved[0]}/${relative(moved[1], path)}`;
    if (path.startsWith(`${layout.project}/`)) return `<project>/${relative(layout.project, path)}`;
    if (path.startsWith(`${layout.home}/`)) return `~/${relative(layout.home, path)}`;
    return path;
  };
  for (const item of items) {
    const d = decisionOf(item);
    if (!d) {
      problems.push(
        `kanon ${kind === "command" ? "commands" : "agents"} --json says nothing of ${item.name}`,
      );
      continue;
    }
    const written = scan.get(item.marker) ?? [];
    if (d.outcome === "omitted") {
      const warning = warnings.find((w) => w.includes(`"${item.name}"`) && w.includes(driver.id));
      if (!warning)
        problems.push(`${item.name} is left out, but apply printed no warning naming it and ${driver.id}`);
      if (written.length > 0)
        problems.push(`${item.name} is left out, but ${written.map(tilde).join(", ")} holds it`);
      notes.push(
        `${item.name}: left out (${d.missing?.capability ?? "?"}${d.missing?.detail ? `: ${d.missing.detail}` : ""})`,
      );
    } else if (typeof d.native !== "string" || !existsSync(d.native)) {
      problems.push(`${item.name} is ${d.outcome}, but its file ${show(d.native)} is missing`);
    } else if (!readFileSync(d.native, "utf8").includes(item.marker)) {
      problems.push(`${tilde(d.native)} does not hold ${item.name}'s text`);
    } else {
      const how = [...d.translations, ...d.notes];
      notes.push(
        `${item.name}: ${d.outcome} → ${tilde(d.native)}${how.length ? ` (${how.join("; ")})` : ""}`,
      );
    }
  }
  // Guard against a vacuous pass: an agent whose manifest has the feature gets at least one item.
  const caps = kind === "command" ? driver.manifest.commands : driver.manifest.subagents;
  const has = !("lacks" in caps);
  const live = items.filter((i) => decisionOf(i) && decisionOf(i)!.outcome !== "omitted");
  if (has && live.length === 0)
    problems.push(`${driver.title}'s manifest has ${kind}s, but kanon rendered none of ${items.length}`);
  if (!has && live.length > 0)
    problems.push(
      `${driver.title}'s manifest has no ${kind}s, but kanon rendered ${live.map((i) => i.name).join(", ")}`,
    );
  if (problems.length > 0) return ["fail", problems.join("\n")];
  return ["pass", notes.join("\n")];
}

function commandTextCheck(
  driver: AgentDriver,
  items: HomeItem[],
  decisionOf: (item: HomeItem) => ItemDecision | undefined,
  runs: Run[],
): Verdict {
  const ran = runs.filter((r) => r.command);
  if (ran.length === 0) {
    const why = items
      .filter((i) => i.kind === "command")
      .map((i) => `${i.name}: ${decisionOf(i)?.missing?.capability ?? "not rendered"}`);
    return ["skip", `no command rendered for ${driver.id} (${why.join("; ")})`];
  }
  const problems: string[] = [];
  const notes: string[] = [];
  for (const run of ran) {
    const expected = expectedText(run.command!);
    const bodies = run.requests.filter((q) => q.kind === "model").map((q) => JSON.stringify(q.body));
    if (bodies.some((b) => b.includes(expected))) {
      notes.push(`/${run.command!.name} ${ARGS.join(" ")} → "${expected}"`);
      continue;
    }
    // What did arrive: the command's text around its marker, if anything.
    const seen = bodies.map((b) => b.indexOf(run.command!.marker)).find((i) => i >= 0);
    const got =
      seen === undefined
        ? "no request holds the command's text"
        : `the model got "${
            bodies
              .find((b) => b.includes(run.command!.marker))!
              .slice(seen, seen + expected.length + 40)
              .split(/\\n|"/)[0]
          }"`;
    problems.push(
      `/${run.command!.name} ${ARGS.join(" ")}: "${expected}" never reached the model; ${got}${describe(run)}`,
    );
  }
  if (problems.length > 0) return ["fail", problems.join("\n")];
  return ["pass", notes.join("\n")];
}

function subagentPromptCheck(
  items: HomeItem[],
  decisionOf: (item: HomeItem) => ItemDecision | undefined,
  runs: Run[],
): Verdict {
  const run = runs.find((r) => r.subagent);
  if (!run) {
    const why = items
      .filter((i) => i.kind === "subagent")
      .map((i) => `${i.name}: ${decisionOf(i)?.missing?.capability ?? "not rendered"}`);
    return ["skip", `no subagent rendered (${why.join("; ")})`];
  }
  const subagent = run.subagent!;
  const tool = run.calls[0]!.name;
  const models = run.requests.filter((q) => q.kind === "model");
  const called = models.findIndex((q) => q.decision === "tool_call" && q.toolName === tool);
  if (called < 0) return ["fail", `the fake model never called ${tool}${describe(run)}`];
  const own = models.slice(called + 1).find((q) => JSON.stringify(q.body).includes(subagent.marker));
  if (!own)
    return [
      "fail",
      `${tool} was called for ${subagent.name}, but its instructions never reached the model${describe(run)}`,
    ];
  const back = models.some((q) => (q.toolResults ?? []).length > 0);
  if (!back)
    return ["fail", `${subagent.name} ran, but no result came back to the main agent${describe(run)}`];
  return [
    "pass",
    `${tool} → ${subagent.name}: its instructions (${subagent.marker}) were in the subagent's request; the result came back`,
  ];
}

function subagentToolsCheck(
  driver: AgentDriver,
  decisionOf: (item: HomeItem) => ItemDecision | undefined,
  runs: Run[],
): Verdict {
  const run = runs.find((r) => r.subagent);
  const subagent = run?.subagent;
  if (!run || !subagent) return ["skip", "no subagent ran"];
  if (!subagent.tools)
    return [
      "skip",
      `the subagent that ran (${subagent.name}) has no tool list; kanon-reader: ${describeDecision(decisionOf, "kanon-reader")}`,
    ];
  const own = run.requests.find(
    (q) => q.kind === "model" && JSON.stringify(q.body).includes(subagent.marker),
  );
  const offered = own?.offered ?? [];
  const problems: string[] = [];
  const shell = pickShellTool(offered.map((name) => ({ name, schema: undefined })));
  if (shell) problems.push(`the subagent was offered the shell tool ${shell.name}`);
  const table = driver.manifest.hooks.tools as Record<string, string[]> | undefined;
  for (const neutral of subagent.tools) {
    const names = [...(table?.[neutral] ?? []), neutral, neutral.toLowerCase()];
    if (!names.some((n) => offered.includes(n))) problems.push(`${neutral} is not among the offered tools`);
  }
  const detail = `offered to ${subagent.name}: ${offered.join(", ") || "nothing"}`;
  if (problems.length > 0) return ["fail", `${problems.join("\n")}\n${detail}`];
  return ["pass", `tools: [${subagent.tools.join(", ")}] held; ${detail}`];
}

function describeDecision(decisionOf: (item: HomeItem) => ItemDecision | undefined, name: string): string {
  const d = decisionOf({ kind: "subagent", name, marker: "", body: "" });
  if (!d) return "no decision";
  return d.outcome === "omitted" ? `left out (${d.missing?.capability ?? "?"})` : d.outcome;
}

function describe(run: Run): string {
  const r = run.result;
  return `\nagent ${r.timedOut ? "timed out" : `exit ${r.code}`}; model requests: ${run.requests
    .filter((q) => q.kind === "model")
    .map((q) => `${q.decision}${q.toolName ? ` ${q.toolName}` : ""}`)
    .join(", ")}\n${r.stderr.trim().split("\n").slice(-6).join("\n")}`;
}

async function runAgent(
  ctx: CommandsPhaseContext,
  layout: Layout,
  model: FakeModel,
  label: string,
  step: { command?: HomeItem; subagent?: HomeItem; calls: ScriptedCall[] },
): Promise<Run> {
  const { driver, installed } = ctx;
  const dir = join(layout.root, label);
  mkdirSync(dir, { recursive: true });
  const delay = Math.max(driver.finalDelayMs ?? 0, step.subagent ? (driver.subagentDelayMs ?? 0) : 0);
  const requests = model.begin({
    command: "true",
    calls: step.calls,
    logFile: join(dir, "requests.jsonl"),
    ...(delay > 0 ? { finalDelayMs: delay } : {}),
  });
  const invocation = step.command
    ? (driver.commandInvocation?.(installed, layout, model.url, step.command.name, ARGS) ??
      driver.invocation(installed, layout, model.url, `/${step.command.name} ${ARGS.join(" ")}`))
    : driver.invocation(installed, layout, model.url, PLAIN_PROMPT);
  const token = randomUUID();
  ctx.activeTokens?.add(token);
  const result = await runProcess(invocation.argv, {
    cwd: layout.project,
    env: {
      ...baseEnv(layout, model.url),
      ...driver.homeEnv?.(layout),
      ...invocation.env,
      KANON_CONFORMANCE_RUN: token,
    },
    timeoutMs: ctx.timeoutMs,
    ...(invocation.stdin === undefined ? {} : { stdin: invocation.stdin }),
    stdoutFile: join(dir, "stdout.log"),
    stderrFile: join(dir, "stderr.log"),
  });
  sweepStrays(token);
  ctx.activeTokens?.delete(token);
  return { label, ...step, result, requests };
}
