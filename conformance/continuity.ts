// The continuity phase: kanon's own continuity hooks, live, across agents. One project is shared by
// every selected agent, run one after the other (a fresh session each, in its own HOME) with
// conformance/continuity/ applied:
//   - cc-reanchor: a waypoint set with `kanon waypoint set` (then by the previous agent) is in the agent's
//                  first request to the fake model as the re-anchor block (Kimi Code: through the first
//                  prompt, where kanon carries the block it could not take at SessionStart);
//   - cc-position: the one-line position is in that request too (UserPromptSubmit);
//   - cc-handoff:  the agent's neutral Stop hook wrote the waypoint (`kanon waypoint set`, recording the
//                  agent and session as its writer), and the next agent read it back;
//   - cc-compact:  after compaction the block is back, carrying the waypoint as it was moved just before
//                  the compaction, where an agent can be made to compact offline: Codex, OpenCode and Kimi
//                  Code at a token limit the fake model's usage passes (Kimi Code: with the next prompt of
//                  the session), Claude Code on /compact in a continued session; Gemini CLI has no event
//                  after compaction (`skip`).

import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentDriver, Installed, Layout } from "./drivers/types.js";
import { type FakeModel, type RecordedRequest, startFakeModel } from "./fake-model/server.js";
import { show } from "./lib/checks.js";
import { baseEnv, createLayout } from "./lib/layout.js";
import { type RunResult, runProcess, sweepStrays } from "./lib/proc.js";
import type { Status } from "./lib/report.js";

export const CONTINUITY_COLUMNS = ["cc-reanchor", "cc-position", "cc-handoff", "cc-compact"];

/** The order of the chain: the fast agents first, so that a short run still crosses agents. */
const ORDER = ["claude", "codex", "gemini", "kimi", "opencode"];
const BLOCK_HEADER = "[kanon] Where the work stands: waypoint revision";
const START_MARKER = "KANON-CHAIN-START";
const PROMPT = "Run the kanon continuity shell command.";

export interface ContinuityCheck {
  /** The row (`<agent>/<scope>`) the check belongs to. */
  row: string;
  id: string;
  status: Status;
  detail: string;
}

export interface ContinuityPhase {
  agents: { driver: AgentDriver; installed: Installed; row: string; timeoutMs: number }[];
  /** A fresh folder for the phase (kept when a check fails). */
  root: string;
  repoRoot: string;
  kanon: string;
  activeTokens: Set<string>;
  say(line: string): void;
}

interface Waypoint {
  revision: number;
  writer: { agent: string | null; session: string | null };
  next: string | null;
}

interface AgentRun {
  driver: AgentDriver;
  row: string;
  layout: Layout;
  env: Record<string, string>;
  run: RunResult;
  requests: RecordedRequest[];
  /** The waypoint when the agent started, and after it ended. */
  before: Waypoint | null;
  after: Waypoint | null;
}

export async function continuityPhase(p: ContinuityPhase): Promise<ContinuityCheck[]> {
  const agents = [...p.agents].sort((a, b) => ORDER.indexOf(a.driver.id) - ORDER.indexOf(b.driver.id));
  const project = join(p.root, "project");
  mkdirSync(project, { recursive: true });
  const model = await startFakeModel();
  const checks: ContinuityCheck[] = [];
  try {
    const git = await runProcess(["git", "init", "-q", project], {
      cwd: project,
      env: { PATH: process.env.PATH ?? "", HOME: p.root },
      timeoutMs: 30_000,
    });
    if (git.code !== 0) throw new Error(`git init: ${git.stderr}`);
    const start = `${START_MARKER}-${randomUUID().slice(0, 8)}`;
    const set = await runProcess(
      [process.execPath, p.kanon, "waypoint", "set", "--path", "conformance/chain", "--next", start],
      { cwd: project, env: { PATH: process.env.PATH ?? "", HOME: p.root }, timeoutMs: 60_000 },
    );
    if (set.code !== 0) throw new Error(`kanon waypoint set: exit ${set.code} ${set.stderr}`);

    const runs: AgentRun[] = [];
    for (const a of agents) {
      p.say(`[continuity] ${a.driver.id}: fresh session in the shared project`);
      runs.push(await runAgent(p, a, project, model));
    }
    for (const [i, r] of runs.entries()) {
      const previous = runs[i - 1];
      const expected = previous ? `KANON-CHAIN-${previous.driver.id}` : start;
      checks.push(reanchorCheck(r, expected));
      checks.push(positionCheck(r));
      checks.push(handoffCheck(r, runs[i + 1]));
    }
    for (const r of runs) checks.push(await compactCheck(p, r, model, agents));
  } catch (error) {
    for (const a of agents)
      checks.push({
        row: a.row,
        id: "cc-reanchor",
        status: "fail",
        detail: `continuity phase: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      });
  } finally {
    await model.close();
  }
  return checks;
}

function readWaypoint(project: string): Waypoint | null {
  const file = join(project, ".kanon", "waypoint.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Waypoint) : null;
}

async function runAgent(
  p: ContinuityPhase,
  a: ContinuityPhase["agents"][number],
  project: string,
  model: FakeModel,
): Promise<AgentRun> {
  const { driver, installed } = a;
  // The agent's own HOME, the shared project.
  const own = await createLayout(join(p.root, driver.id), join(p.repoRoot, "conformance", "continuity"));
  const layout: Layout = { ...own, project };
  await driver.prepare(layout, model.url, "user");
  const env = {
    ...baseEnv(layout, model.url),
    ...driver.homeEnv?.(layout),
    KANON_CONFORMANCE_KANON: p.kanon,
  };
  const apply = await runProcess(
    [process.execPath, p.kanon, "--home", layout.kanonHome, "--agent", driver.id, "apply", "--yes"],
    { cwd: project, env, timeoutMs: 60_000 },
  );
  writeFileSync(join(own.root, "kanon-apply.log"), `${apply.stdout}\n--- stderr ---\n${apply.stderr}`);
  if (apply.code !== 0) throw new Error(`${driver.id}: kanon apply exit ${apply.code}\n${apply.stderr}`);
  const before = readWaypoint(project);
  const { run, requests } = await runOnce(
    p,
    driver,
    installed,
    layout,
    env,
    model,
    a.timeoutMs,
    "run",
    PROMPT,
  );
  return { driver, row: a.row, layout, env, run, requests, before, after: readWaypoint(project) };
}

/**
 * One agent run against the fake model, logged under `<layout.root>/<name>/`; `extra` changes the
 * argv, the tool call's command and the fake model's script.
 */
async function runOnce(
  p: ContinuityPhase,
  driver: AgentDriver,
  installed: Installed,
  layout: Layout,
  env: Record<string, string>,
  model: FakeModel,
  timeoutMs: number,
  name: string,
  prompt: string,
  extra: {
    argv?: (argv: string[]) => string[];
    command?: string;
    finalWhen?: string;
    toolCallTokens?: number;
  } = {},
): Promise<{ run: RunResult; requests: RecordedRequest[] }> {
  const dir = join(layout.root, name);
  mkdirSync(dir, { recursive: true });
  const requests = model.begin({
    command:
      extra.command ?? `echo kanon-continuity >> '${join(layout.project, "continuity-side-effect.txt")}'`,
    logFile: join(dir, "requests.jsonl"),
    ...(driver.finalDelayMs ? { finalDelayMs: driver.finalDelayMs } : {}),
    ...(extra.finalWhen ? { finalWhen: extra.finalWhen } : {}),
    ...(extra.toolCallTokens ? { toolCallTokens: extra.toolCallTokens } : {}),
  });
  const invocation = driver.invocation(installed, layout, model.url, prompt);
  const token = randomUUID();
  p.activeTokens.add(token);
  const run = await runProcess(extra.argv ? extra.argv(invocation.argv) : invocation.argv, {
    cwd: layout.project,
    env: { ...env, ...invocation.env, KANON_CONFORMANCE_RUN: token },
    timeoutMs,
    ...(invocation.stdin === undefined ? {} : { stdin: invocation.stdin }),
    stdoutFile: join(dir, "stdout.log"),
    stderrFile: join(dir, "stderr.log"),
  });
  sweepStrays(token);
  p.activeTokens.delete(token);
  appendFileSync(
    join(dir, "result.json"),
    `${JSON.stringify({ argv: run.argv, code: run.code, seconds: run.seconds })}\n`,
  );
  return { run, requests };
}

/** Every string in a request body, in order (the texts the model is sent). */
function texts(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) texts(v, out);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) texts(v, out);
  return out;
}

/** The agent's first request that offered the model its tools (the start of its first turn). */
const firstRequest = (r: { requests: RecordedRequest[] }) =>
  r.requests.find((q) => q.kind === "model" && q.decision === "tool_call");

function failure(r: AgentRun): string | undefined {
  if (r.run.timedOut) return `agent timed out after ${r.run.seconds.toFixed(0)} s`;
  if (r.run.code !== 0)
    return `agent exit ${r.run.code ?? r.run.signal}\n${r.run.stderr.trim().split("\n").slice(-6).join("\n")}`;
  return undefined;
}

function reanchorCheck(r: AgentRun, expected: string): ContinuityCheck {
  const id = "cc-reanchor";
  const first = firstRequest(r);
  if (!first)
    return {
      row: r.row,
      id,
      status: "fail",
      detail: failure(r) ?? "the agent never sent the fake model a request with its tools",
    };
  const body = texts(first.body).join("\n");
  const at = body.indexOf(BLOCK_HEADER);
  if (at < 0)
    return {
      row: r.row,
      id,
      status: "fail",
      detail: `no re-anchor block in the first request (waypoint revision ${r.before?.revision})`,
    };
  const block = body.slice(at, at + 1200);
  const revision = `${BLOCK_HEADER} ${r.before?.revision} `;
  const problems: string[] = [];
  if (!block.startsWith(revision))
    problems.push(`the block is not of revision ${r.before?.revision}: ${show(block.slice(0, 120))}`);
  if (!block.includes(expected))
    problems.push(`the block does not carry ${expected}: ${show(block.slice(0, 300))}`);
  return problems.length > 0
    ? { row: r.row, id, status: "fail", detail: problems.join("\n") }
    : {
        row: r.row,
        id,
        status: "pass",
        detail: `first request: ${show(block.split("\n").slice(0, 4).join(" / "))}`,
      };
}

function positionCheck(r: AgentRun): ContinuityCheck {
  const id = "cc-position";
  const first = firstRequest(r);
  const line = `kanon waypoint r${r.before?.revision}:`;
  const body = first ? texts(first.body).join("\n") : "";
  const at = body.indexOf(line);
  if (at < 0)
    return { row: r.row, id, status: "fail", detail: `no ${show(line)} position line in the first request` };
  return {
    row: r.row,
    id,
    status: "pass",
    detail: show(body.slice(at, body.indexOf("\n", at) >= 0 ? body.indexOf("\n", at) : undefined)),
  };
}

function handoffCheck(r: AgentRun, next: AgentRun | undefined): ContinuityCheck {
  const id = "cc-handoff";
  const w = r.after;
  const problems: string[] = [];
  if (!w || w.revision === r.before?.revision)
    problems.push("the agent's Stop hook did not write the waypoint");
  else {
    if (w.writer.agent !== r.driver.id)
      problems.push(`writer.agent is ${show(w.writer.agent)}, not ${r.driver.id}`);
    if (!w.writer.session) problems.push("writer.session is empty");
    if (!w.next?.includes(`KANON-CHAIN-${r.driver.id}`)) problems.push(`next is ${show(w.next)}`);
  }
  if (problems.length > 0) return { row: r.row, id, status: "fail", detail: problems.join("\n") };
  const wrote = `its Stop hook wrote revision ${w!.revision} (writer ${w!.writer.agent}, session ${w!.writer.session})`;
  if (!next) return { row: r.row, id, status: "pass", detail: `${wrote}; last in the chain` };
  const body = texts(firstRequest(next)?.body).join("\n");
  const read =
    body.includes(`KANON-CHAIN-${r.driver.id}`) &&
    body.includes(`written by ${r.driver.id} (session ${w!.writer.session})`);
  return read
    ? {
        row: r.row,
        id,
        status: "pass",
        detail: `${wrote}; ${next.driver.id} read it back in its first request`,
      }
    : {
        row: r.row,
        id,
        status: "fail",
        detail: `${wrote}, but ${next.driver.id}'s first request does not carry it`,
      };
}

/**
 * After compaction: the waypoint is changed after the session's start and before the compaction (to
 * KANON-CHAIN-COMPACTED-<agent>), so a request after the compaction whose block carries it
 * (`Next: KANON-CHAIN-COMPACTED-<agent>`) got it from the re-anchor after compaction.
 */
async function compactCheck(
  p: ContinuityPhase,
  r: AgentRun,
  model: FakeModel,
  agents: ContinuityPhase["agents"],
): Promise<ContinuityCheck> {
  const id = "cc-compact";
  const a = agents.find((x) => x.driver.id === r.driver.id)!;
  const marker = `KANON-CHAIN-COMPACTED-${r.driver.id}`;
  const block = `Next: ${marker}`;
  const carrying = (requests: RecordedRequest[]) =>
    requests.findIndex((q) => q.kind === "model" && texts(q.body).join("\n").includes(block));
  const run = (name: string, prompt: string, extra: Parameters<typeof runOnce>[9] = {}) =>
    runOnce(p, r.driver, a.installed, r.layout, r.env, model, a.timeoutMs, name, prompt, extra);
  const setWaypoint = (next: string) =>
    runProcess([process.execPath, p.kanon, "waypoint", "set", "--next", next], {
      cwd: r.layout.project,
      env: r.env,
      timeoutMs: 60_000,
    });
  // A turn that compacts after its tool call: the tool call (reporting 50,000 tokens) moves the waypoint,
  // and the first request after the compaction (which `finalWhen` recognises) gets the final answer.
  const compaction = (finalWhen: string) => ({
    command: `node '${p.kanon}' waypoint set --next ${marker}`,
    finalWhen,
    toolCallTokens: 50_000,
  });
  const limit = LIMITS[r.driver.id];
  if (limit) {
    // The agent compacts when a response reports more tokens than its limit.
    limit(r.layout);
    const { run: result, requests } = await run("compact", PROMPT, compaction(block));
    const at = carrying(requests);
    const decisions = requests.map((q) => q.decision).join(", ");
    return at >= 2 && result.code === 0
      ? {
          row: r.row,
          id,
          status: "pass",
          detail: `compaction after the tool call; request ${at + 1} of ${requests.length} (${decisions}) carries the block with ${marker}`,
        }
      : {
          row: r.row,
          id,
          status: "fail",
          detail: `exit ${result.code}; requests: ${decisions}; none after the compaction carries ${show(block)}`,
        };
  }
  if (r.driver.id === "claude") {
    // /compact in the session the chain ran, then a new waypoint and one more prompt in that session:
    // its request carries the block the re-anchor gave after /compact (what came before the
    // compaction is summarised away, and the session start of that run sees the newer waypoint).
    const cont = (argv: string[]) => {
      const i = argv.indexOf("-p");
      return [...argv.slice(0, i + 1), "--continue", ...argv.slice(i + 1)];
    };
    await setWaypoint(marker);
    const compact = await run("compact", "/compact", { argv: cont });
    await setWaypoint("KANON-CHAIN-AFTER-COMPACT");
    const later = await run("after-compact", PROMPT, { argv: cont });
    const at = carrying(later.requests);
    return compact.run.code === 0 && at >= 0
      ? {
          row: r.row,
          id,
          status: "pass",
          detail: `/compact, then a prompt in the same session: its request ${at + 1} carries the block with ${marker}, the waypoint at compaction`,
        }
      : {
          row: r.row,
          id,
          status: "fail",
          detail: `/compact exit ${compact.run.code}; no request of the next prompt carries ${show(block)}`,
        };
  }
  if (r.driver.id === "kimi") {
    // Kimi Code compacts when a response overflows KIMI_MODEL_MAX_CONTEXT_SIZE; its PostCompact output
    // is kept by kanon's runner for the session's next prompt, which a continued session then sends.
    const small = { ...r.env, KIMI_MODEL_MAX_CONTEXT_SIZE: "8000" };
    const compact = await runOnce(
      p,
      r.driver,
      a.installed,
      r.layout,
      small,
      model,
      a.timeoutMs,
      "compact",
      PROMPT,
      // Kimi's request after a compaction says so; the block itself waits for the next prompt.
      compaction("Context compaction is complete"),
    );
    await setWaypoint("KANON-CHAIN-AFTER-COMPACT");
    const later = await run("after-compact", PROMPT, {
      argv: (argv) => {
        const i = argv.indexOf("-p");
        return [...argv.slice(0, i), "--continue", ...argv.slice(i)];
      },
    });
    const at = carrying(later.requests);
    const decisions = compact.requests.map((q) => q.decision).join(", ");
    return compact.run.code === 0 && at >= 0
      ? {
          row: r.row,
          id,
          status: "pass",
          detail: `compaction after the tool call (${decisions}); the next prompt of the session carries the block with ${marker}`,
        }
      : {
          row: r.row,
          id,
          status: "fail",
          detail: `compaction run exit ${compact.run.code} (${decisions}); the next prompt's requests do not carry ${show(block)}`,
        };
  }
  const why: Record<string, string> = {
    gemini: "Gemini CLI has no event after compaction (kanon hooks: left out)",
  };
  return { row: r.row, id, status: "skip", detail: why[r.driver.id] ?? "no offline compaction known" };
}

/** Agents made to compact after one tool call: each lowers its token limit in the agent's config. */
const LIMITS: Record<string, (layout: Layout) => void> = {
  // model_auto_compact_token_limit: Codex compacts once a response reports more tokens.
  codex(layout) {
    const file = join(layout.home, ".codex", "config.toml");
    writeFileSync(file, `model_auto_compact_token_limit = 1000\n${readFileSync(file, "utf8")}`);
  },
  // The model's context limit in opencode.json: OpenCode compacts when a response overflows it.
  opencode(layout) {
    const file = join(layout.xdgConfig, "opencode", "opencode.json");
    const config = JSON.parse(readFileSync(file, "utf8"));
    config.provider.fake.models["fake-model"].limit = { context: 8000, output: 1000 };
    writeFileSync(file, JSON.stringify(config, null, 2));
  },
};
