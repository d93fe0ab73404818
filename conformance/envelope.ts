// The envelope phase: renders conformance/envelope/ (every hook with envelope: neutral) for one agent in
// user scope, runs the agent once against the fake model, and checks that
//   - env-context:   the SessionStart and UserPromptSubmit hooks' markers are in the agent's first
//                    request to the model exactly where `kanon hooks` says they are delivered;
//   - env-payload:   each hook got the neutral envelope: the same keys in every agent, the right event,
//                    agent, cwd and prompt, a session id, and tool.name Bash for the shell tool;
//   - env-bound:     a hook that prints 20,000 characters delivers at most 4,800 (the default
//                    max_output_chars), whole lines then kanon's closing line;
//   - env-fail-open: a hook that crashes does not stop the turn, and leaves a line in the runner's log.

import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ENVELOPE_KEYS } from "../src/core/hooks/envelope.js";
import type { AgentDriver, Installed, Layout } from "./drivers/types.js";
import { type RecordedRequest, startFakeModel } from "./fake-model/server.js";
import { sameDir, show } from "./lib/checks.js";
import { baseEnv, createLayout } from "./lib/layout.js";
import { runProcess, sweepStrays } from "./lib/proc.js";

export const ENVELOPE_COLUMNS = ["env-context", "env-payload", "env-bound", "env-fail-open"];

const START_MARKER = "KANON-ENVELOPE-START-MARKER";
const PROMPT_MARKER = "KANON-ENVELOPE-PROMPT-MARKER";
const BIG_FIRST = "KANON-BIG-0001";
const BIG_LINE = /^KANON-BIG-\d{4} x{34}$/;
const DEFAULT_MAX = 4800;
const PROMPT = "Run the kanon envelope shell command.";

export interface EnvelopeCheck {
  id: string;
  status: "pass" | "fail";
  detail: string;
}

export interface EnvelopePhase {
  driver: AgentDriver;
  installed: Installed;
  /** A fresh folder for this phase (kept by the suite when a check fails). */
  root: string;
  repoRoot: string;
  /** The kanon CLI. */
  kanon: string;
  timeoutMs: number;
  /** Run tokens in flight, for the suite's stray sweep on Ctrl-C. */
  activeTokens: Set<string>;
}

interface Probe {
  label: string;
  started: number;
  stdin: unknown;
}

export async function envelopePhase(p: EnvelopePhase): Promise<EnvelopeCheck[]> {
  const { driver } = p;
  const layout = await createLayout(p.root, join(p.repoRoot, "conformance", "envelope"));
  const model = await startFakeModel();
  try {
    await driver.prepare(layout, model.url, "user");
    const env = { ...baseEnv(layout, model.url), ...driver.homeEnv?.(layout) };
    const kanon = (args: string[]) =>
      runProcess([process.execPath, p.kanon, "--home", layout.kanonHome, "--agent", driver.id, ...args], {
        cwd: layout.project,
        env,
        timeoutMs: 60_000,
      });
    const apply = await kanon(["apply", "--yes"]);
    const hooks = await kanon(["hooks", "--json"]);
    writeFileSync(join(layout.root, "kanon-apply.log"), `${apply.stdout}\n--- stderr ---\n${apply.stderr}`);
    writeFileSync(join(layout.root, "kanon-hooks.json"), hooks.stdout);
    if (apply.code !== 0 || hooks.code !== 0) {
      const why = `kanon apply exit ${apply.code}, kanon hooks exit ${hooks.code}\n${apply.stderr}${hooks.stderr}`;
      return ENVELOPE_COLUMNS.map((id) => ({ id, status: "fail", detail: why }));
    }
    const decisions = (JSON.parse(hooks.stdout) as { hooks: Decision[] }).hooks;

    const dir = join(layout.root, "run");
    mkdirSync(dir, { recursive: true });
    const sideEffect = join(layout.project, "envelope-side-effect.txt");
    const requests = model.begin({
      command: `echo kanon-conformance > '${sideEffect}'`,
      logFile: join(dir, "requests.jsonl"),
      ...(driver.finalDelayMs ? { finalDelayMs: driver.finalDelayMs } : {}),
    });
    const invocation = driver.invocation(p.installed, layout, model.url, PROMPT);
    const token = randomUUID();
    const log = join(dir, "hooks.jsonl");
    p.activeTokens.add(token);
    const run = await runProcess(invocation.argv, {
      cwd: layout.project,
      env: { ...env, ...invocation.env, KANON_CONFORMANCE_LOG: log, KANON_CONFORMANCE_RUN: token },
      timeoutMs: p.timeoutMs,
      ...(invocation.stdin === undefined ? {} : { stdin: invocation.stdin }),
      stdoutFile: join(dir, "stdout.log"),
      stderrFile: join(dir, "stderr.log"),
    });
    sweepStrays(token);
    p.activeTokens.delete(token);
    const probes = readProbes(log);
    const first = requests.find((q) => q.kind === "model" && q.decision === "tool_call");
    const finished = run.code === 0 && requests.some((q) => q.decision === "final");
    return [
      contextCheck(decisions, first),
      payloadCheck(driver, probes, layout),
      boundCheck(first),
      failOpenCheck(probes, finished, existsSync(sideEffect), layout, run.code),
    ];
  } finally {
    await model.close();
  }
}

interface Decision {
  hook: string;
  agent: string;
  outcome: string;
  context: "at event" | "next prompt" | "not delivered";
  context_channel: string | null;
}

function readProbes(path: string): Probe[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Probe];
      } catch {
        return [];
      }
    });
}

/** Every string in a request body, in order (the texts the model is sent). */
function texts(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) texts(v, out);
  else if (value !== null && typeof value === "object") for (const v of Object.values(value)) texts(v, out);
  return out;
}

function contextCheck(decisions: Decision[], first: RecordedRequest | undefined): EnvelopeCheck {
  const id = "env-context";
  if (!first)
    return { id, status: "fail", detail: "the agent never sent the fake model a request with its tools" };
  const body = texts(first.body).join("\n");
  const problems: string[] = [];
  const seen: string[] = [];
  for (const [hook, marker] of [
    ["env-start", START_MARKER],
    ["env-prompt", PROMPT_MARKER],
  ] as const) {
    const d = decisions.find((x) => x.hook === hook);
    if (!d) {
      problems.push(`kanon hooks --json has no decision for ${hook}`);
      continue;
    }
    const found = body.includes(marker);
    // A one-prompt run: the agent's first request is both the event's and the next prompt's.
    const expected = d.context !== "not delivered";
    if (found !== expected)
      problems.push(
        `${hook}: kanon hooks says ${d.context}${d.context_channel ? ` (${d.context_channel})` : ""}, but its marker is ${found ? "" : "not "}in the first request`,
      );
    else seen.push(`${hook} ${d.context}${found ? ", marker in the first request" : ", marker absent"}`);
  }
  return problems.length > 0
    ? { id, status: "fail", detail: problems.join("\n") }
    : { id, status: "pass", detail: seen.join("; ") };
}

function payloadCheck(driver: AgentDriver, probes: Probe[], layout: Layout): EnvelopeCheck {
  const id = "env-payload";
  const problems: string[] = [];
  const expectations = [
    ["start", "SessionStart"],
    ["prompt", "UserPromptSubmit"],
    ["tool", "PreToolUse"],
  ] as const;
  for (const [label, event] of expectations) {
    const probe = probes.find((x) => x.label === label);
    if (!probe) {
      problems.push(`${label} (${event}): did not run`);
      continue;
    }
    const e = probe.stdin as Record<string, unknown>;
    if (typeof e !== "object" || e === null) {
      problems.push(`${label}: stdin is not a JSON object: ${show(e)}`);
      continue;
    }
    const keys = Object.keys(e);
    if (JSON.stringify(keys) !== JSON.stringify(ENVELOPE_KEYS))
      problems.push(`${label}: keys ${keys.join(",")}, not ${ENVELOPE_KEYS.join(",")}`);
    if (e.envelope !== 1) problems.push(`${label}: envelope ${show(e.envelope)}`);
    if (e.event !== event) problems.push(`${label}: event ${show(e.event)}, not ${event}`);
    if (e.agent !== driver.id) problems.push(`${label}: agent ${show(e.agent)}`);
    if (typeof e.session_id !== "string" || e.session_id === "")
      problems.push(`${label}: session_id ${show(e.session_id)}`);
    if (typeof e.cwd !== "string" || !sameDir(e.cwd, layout.project))
      problems.push(`${label}: cwd ${show(e.cwd)} is not the project`);
    if (e.native === null || typeof e.native !== "object")
      problems.push(`${label}: native ${show(e.native)}`);
    if (label === "prompt" && e.prompt !== PROMPT) problems.push(`prompt: prompt ${show(e.prompt)}`);
    const tool = e.tool as { name?: unknown } | null;
    if (label === "tool" && tool?.name !== "Bash") problems.push(`tool: tool ${show(tool)}, name not Bash`);
    if (label !== "tool" && tool !== null) problems.push(`${label}: tool ${show(tool)}, not null`);
  }
  return problems.length > 0
    ? { id, status: "fail", detail: problems.join("\n") }
    : {
        id,
        status: "pass",
        detail: `SessionStart, UserPromptSubmit and PreToolUse got ${ENVELOPE_KEYS.length} keys (${ENVELOPE_KEYS.join(", ")}); tool.name Bash`,
      };
}

const codePoints = (s: string) => [...s].length;

function boundCheck(first: RecordedRequest | undefined): EnvelopeCheck {
  const id = "env-bound";
  const text = first && texts(first.body).find((t) => t.includes(BIG_FIRST));
  if (!text)
    return { id, status: "fail", detail: "the 20,000-character hook's output is not in the first request" };
  const start = text.indexOf(BIG_FIRST);
  const closing = /\[kanon: (\d+) more characters cut\]/.exec(text.slice(start));
  if (!closing)
    return { id, status: "fail", detail: "no `[kanon: N more characters cut]` line after the output" };
  const delivered = text.slice(start, start + closing.index + closing[0].length);
  const lines = delivered.split("\n");
  const body = lines.slice(0, -1);
  const problems: string[] = [];
  const n = codePoints(delivered);
  if (n > DEFAULT_MAX) problems.push(`${n} characters delivered, more than ${DEFAULT_MAX}`);
  if (!body.every((l) => BIG_LINE.test(l)))
    problems.push("a delivered line is not a whole line of the output");
  const cut = Number(closing[1]);
  // The runner trims the output's trailing newline before it bounds it: 19,999 characters.
  if (cut + codePoints(body.map((l) => `${l}\n`).join("")) !== 20_000 - 1)
    problems.push(`the closing line says ${cut} cut, but ${body.length} whole lines of 50 were kept`);
  return problems.length > 0
    ? { id, status: "fail", detail: problems.join("\n") }
    : { id, status: "pass", detail: `${n} characters: ${body.length} whole lines and ${show(lines.at(-1))}` };
}

function failOpenCheck(
  probes: Probe[],
  finished: boolean,
  toolRan: boolean,
  layout: Layout,
  code: number | null,
): EnvelopeCheck {
  const id = "env-fail-open";
  const crashed = probes.some((x) => x.label === "crash");
  const logFile = join(layout.xdgState, "kanon", "hooks", "runner.log");
  const logged = existsSync(logFile)
    ? readFileSync(logFile, "utf8")
        .split("\n")
        .find((l) => l.includes('"env-crash"'))
    : undefined;
  const problems: string[] = [];
  if (!crashed) problems.push("the crashing hook did not run");
  if (!finished || !toolRan)
    problems.push(`the turn did not finish (agent exit ${code}, tool ran: ${toolRan})`);
  if (!logged) problems.push(`no line for env-crash in ${logFile}`);
  return problems.length > 0
    ? { id, status: "fail", detail: problems.join("\n") }
    : { id, status: "pass", detail: `the turn finished; runner.log: ${logged!.replace(/^\S+ /, "")}` };
}
