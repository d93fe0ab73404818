// The agent conformance suite: renders the conformance Kanon home with `kanon apply --yes` for each agent
// and scope, runs the real agent headless against the fake model, and checks from the hooks' own logs
// that the rendered hooks fire as promised. See conformance/README.md.

import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { COMMANDS_COLUMNS, commandsPhase } from "./commands/phase.js";
import { CONTINUITY_COLUMNS, continuityPhase } from "./continuity.js";
import { drivers } from "./drivers/index.js";
import {
  type AgentDriver,
  type ExtraCheckContext,
  type Installed,
  type Layout,
  LIFECYCLE,
  type PhaseCheck,
  type Scope,
} from "./drivers/types.js";
import { ENVELOPE_COLUMNS, envelopePhase } from "./envelope.js";
import { type FakeModel, type RecordedRequest, startFakeModel } from "./fake-model/server.js";
import {
  checkFields,
  countLabels,
  firstOccurrences,
  type HookRecord,
  readHookLog,
  sameDir,
  show,
} from "./lib/checks.js";
import { type NeutralHook, readHooks } from "./lib/home.js";
import { baseEnv, createLayout } from "./lib/layout.js";
import {
  killActiveGroups,
  type RunResult,
  runProcess,
  type StrayProcess,
  signalActiveGroups,
  sweepStrays,
} from "./lib/proc.js";
import { Report } from "./lib/report.js";
import { MCP_COLUMNS, mcpPhase } from "./mcp/phase.js";

const COLUMNS = [
  "install",
  "render",
  "omitted",
  "tool-ran",
  "events",
  "payload",
  "hook-env",
  "argv",
  "block",
  "block-msg",
  "review",
  "doctor",
  ...ENVELOPE_COLUMNS,
  ...CONTINUITY_COLUMNS,
  "hygiene",
  ...MCP_COLUMNS,
  ...COMMANDS_COLUMNS,
];
/** Run tokens of the agent runs in progress (see sweepStrays). */
const activeTokens = new Set<string>();
const GUARD_REASON = "KANON_CONFORMANCE_GUARD_REASON";
const ARGV_HOOK = "argv-probe";

interface Options {
  agents: string[];
  keep: boolean;
  jobs: number;
  runTimeoutMs?: number;
  suiteTimeoutMs: number;
  netns: boolean;
  cacheRoot: string;
  /** The kanon CLI to test (default: <repo>/dist/kanon.js). */
  kanon: string;
  /** Run the MCP phase only (conformance/mcp/phase.ts). */
  mcpOnly?: boolean;
  /** Run the commands and subagents phase only (conformance/commands/phase.ts). */
  commandsOnly?: boolean;
}

interface Paths {
  repoRoot: string;
  bundle: string;
}

interface RunState {
  options: Options;
  paths: Paths;
  runRoot: string;
  installed: Record<string, Installed>;
  installErrors: Record<string, string>;
}

const USAGE = `usage: npm run test:agents -- [agent...] [options]

agents: ${drivers.map((d) => d.id).join(", ")} (default: all)

options:
  --jobs=N                    agents that run at the same time (default 2; the scopes of one agent
                              run one after the other)
  --timeout=SECONDS           bound for one agent run (default: per driver, 90-120 s)
  --suite-timeout=SECONDS     bound for the whole run phase (default 900)
  --keep                      keep the temporary folders (they are kept anyway for failing rows)
  --no-netns                  do not run the agents in a private network namespace
  --kanon=PATH                the kanon CLI to test (default: dist/kanon.js)
  --mcp-only                  run the MCP phase only
  --commands-only             run the commands and subagents phase only
env:
  KANON_AGENTS_CACHE          where agent packages are installed (default: <repo>/.cache/agents)`;

function parseOptions(argv: string[], repoRoot: string): Options | string {
  const options: Options = {
    agents: [],
    keep: false,
    jobs: 2,
    suiteTimeoutMs: 900_000,
    netns: true,
    cacheRoot: resolve(process.env.KANON_AGENTS_CACHE || join(repoRoot, ".cache", "agents")),
    kanon: join(repoRoot, "dist", "kanon.js"),
  };
  for (const arg of argv) {
    const [flag, value] = arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, ""];
    if (flag === "--help" || flag === "-h") return USAGE;
    if (flag === "--keep") options.keep = true;
    else if (flag === "--mcp-only") options.mcpOnly = true;
    else if (flag === "--commands-only") options.commandsOnly = true;
    else if (flag === "--no-netns") options.netns = false;
    else if (flag === "--kanon" && value) options.kanon = resolve(value);
    else if (flag === "--jobs" && Number(value) >= 1) options.jobs = Math.floor(Number(value));
    else if (flag === "--timeout" && Number(value) > 0) options.runTimeoutMs = Number(value) * 1000;
    else if (flag === "--suite-timeout" && Number(value) > 0) options.suiteTimeoutMs = Number(value) * 1000;
    else if (!flag.startsWith("-") && drivers.some((d) => d.id === flag)) options.agents.push(flag);
    else return `unknown argument: ${arg}\n\n${USAGE}`;
  }
  if (options.agents.length === 0) options.agents = drivers.map((d) => d.id);
  return options;
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Entry point. Returns the exit code. */
export async function main(argv: string[], paths: Paths): Promise<number> {
  const stateArg = argv.find((a) => a.startsWith("--state="));
  if (stateArg)
    return runPhase(JSON.parse(readFileSync(stateArg.slice("--state=".length), "utf8")) as RunState);

  const parsed = parseOptions(argv, paths.repoRoot);
  if (typeof parsed === "string") {
    say(parsed);
    return parsed === USAGE ? 0 : 2;
  }
  const options = parsed;
  const selected = drivers.filter((d) => options.agents.includes(d.id));
  if (!existsSync(options.kanon)) {
    say(`${options.kanon} is missing: run \`npm run build\` first (npm run test:agents does).`);
    return 1;
  }
  say(`kanon agent conformance: ${selected.map((d) => `${d.id} ${d.version}`).join(", ")}`);

  // Phase 1: install the pinned agents (the only step that needs the npm registry), in parallel.
  const installed: Record<string, Installed> = {};
  const installErrors: Record<string, string> = {};
  await Promise.all(
    selected.map(async (driver) => {
      try {
        installed[driver.id] = await driver.install({
          cacheRoot: options.cacheRoot,
          log: (line) => say(`[install] ${driver.id}: ${line}`),
        });
        const i = installed[driver.id]!;
        say(
          `[install] ${driver.id} ${i.version}: ${i.cached ? "cached" : "installed"} in ${i.seconds.toFixed(1)} s`,
        );
      } catch (error) {
        installErrors[driver.id] = error instanceof Error ? error.message : String(error);
        say(`[install] ${driver.id}: FAILED ${installErrors[driver.id]}`);
      }
    }),
  );

  const runRoot = mkdtempSync(join(tmpdir(), "kanon-conformance-"));
  const state: RunState = { options, paths, runRoot, installed, installErrors };
  const stateFile = join(runRoot, "state.json");
  writeFileSync(stateFile, JSON.stringify(state));

  // On Ctrl-C or SIGTERM, let the run phase clean up its own agents first, then kill what is left.
  const onSignal = (): void => {
    signalActiveGroups("SIGTERM");
    setTimeout(() => {
      killActiveGroups();
      process.exit(130);
    }, 3000).unref();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  // Phase 2: the agent runs, inside a private network namespace with only loopback when the machine allows.
  if (options.netns && (await netnsWorks())) {
    say("network: agents run in a private network namespace (loopback only)");
    const child = await runProcess(
      [
        "unshare",
        "-rn",
        "sh",
        "-c",
        'ip link set lo up && exec "$@"',
        "sh",
        process.execPath,
        paths.bundle,
        `--state=${stateFile}`,
      ],
      { cwd: paths.repoRoot, env: process.env, timeoutMs: options.suiteTimeoutMs + 60_000, inherit: true },
    );
    if (child.timedOut) say("suite: run phase timed out and was killed");
    return child.code ?? 1;
  }
  if (options.netns)
    say("network: no private network namespace here; relying on proxy variables and the egress sink");
  return runPhase(state);
}

async function netnsWorks(): Promise<boolean> {
  try {
    const probe = await runProcess(["unshare", "-rn", "sh", "-c", "ip link set lo up"], {
      cwd: tmpdir(),
      env: process.env,
      timeoutMs: 10_000,
    });
    return probe.code === 0;
  } catch {
    return false;
  }
}

async function runPhase(state: RunState): Promise<number> {
  const { options, runRoot, installed, installErrors } = state;
  const report = new Report(say);
  report.declareColumns(COLUMNS);
  const started = performance.now();

  const onSignal = (): void => {
    killActiveGroups();
    for (const token of activeTokens) sweepStrays(token);
    say("interrupted: killed the agent runs this suite started");
    process.exit(130);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const watchdog = setTimeout(() => {
    killActiveGroups();
    report.add("suite", "timeout", "fail", `the run phase exceeded ${options.suiteTimeoutMs / 1000} s`);
    finish();
    process.exit(1);
  }, options.suiteTimeoutMs);
  watchdog.unref();

  const selected = drivers.filter((d) => options.agents.includes(d.id));
  // Rows in a stable order: agent by agent, user before project.
  for (const driver of selected) {
    for (const scope of [...driver.scopes, ...driver.mcpOnlyScopes]) {
      const row = `${driver.id}/${scope}`;
      report.row({ row, version: driver.version, seconds: 0 });
      if (!installed[driver.id])
        report.add(row, "install", "fail", installErrors[driver.id] ?? "not installed");
    }
  }
  // Agents run concurrently (up to --jobs at once, slowest first, as drivers/index.ts lists them); the
  // scopes of one agent run one after the other, so one slow agent never holds every job slot.
  const queue = selected.filter((d) => installed[d.id]);
  const keptDirs: string[] = [];
  const worker = async (): Promise<void> => {
    for (let driver = queue.shift(); driver; driver = queue.shift()) {
      for (const scope of driver.scopes) {
        const kept = await runRow(driver, installed[driver.id]!, scope, state, report);
        if (kept) keptDirs.push(kept);
      }
      // Scopes where the agent reads MCP servers but no hooks (Kimi Code's project): the MCP phase and
      // the commands phase only.
      for (const scope of driver.mcpOnlyScopes) {
        const root = join(runRoot, `${driver.id}-${scope}`);
        const started = performance.now();
        const row = `${driver.id}/${scope}`;
        const mcpFailed =
          !options.commandsOnly && (await runMcp(driver, installed[driver.id]!, scope, state, report, root));
        const commandsFailed =
          !options.mcpOnly &&
          (await runCommands(driver, installed[driver.id]!, scope, state, report, join(root, "commands")));
        const failed = mcpFailed || commandsFailed;
        report.row({ row, version: driver.version, seconds: (performance.now() - started) / 1000 });
        if (failed || options.keep) keptDirs.push(root);
        else rmSync(root, { recursive: true, force: true });
      }
    }
  };
  // Continuity across agents: one project, every agent in turn (conformance/continuity.ts), in a lane
  // of its own beside the rows.
  const continuity = async (): Promise<void> => {
    const chain = selected.filter((d) => installed[d.id]);
    if (chain.length === 0 || options.mcpOnly || options.commandsOnly) return;
    const root = join(runRoot, "continuity");
    const checks = await continuityPhase({
      agents: chain.map((driver) => ({
        driver,
        installed: installed[driver.id]!,
        row: `${driver.id}/${driver.scopes[0]}`,
        timeoutMs: options.runTimeoutMs ?? driver.timeoutMs,
      })),
      root,
      repoRoot: state.paths.repoRoot,
      kanon: options.kanon,
      activeTokens,
      say,
    });
    for (const c of checks) report.add(c.row, c.id, c.status, c.detail);
    if (checks.some((c) => c.status === "fail")) keptDirs.push(root);
    else if (!options.keep) rmSync(root, { recursive: true, force: true });
  };
  await Promise.all([...Array.from({ length: Math.min(options.jobs, queue.length) }, worker), continuity()]);
  clearTimeout(watchdog);

  function finish(): void {
    say("");
    say(report.matrix());
    say("");
    say(`total ${((performance.now() - started) / 1000).toFixed(1)} s (run phase)`);
    if (keptDirs.length > 0) say(`kept for inspection: ${keptDirs.join(" ")}`);
    say(`agents: ${report.passed} passed, ${report.failed} failed`);
  }
  finish();
  if (keptDirs.length === 0 && !options.keep) rmSync(runRoot, { recursive: true, force: true });
  return report.failed > 0 ? 1 : 0;
}

interface RunOutcome {
  kind: "lifecycle" | "block";
  prompt: string;
  command: string;
  sideEffect: string;
  result: RunResult;
  requests: RecordedRequest[];
  hooks: HookRecord[];
  strays: StrayProcess[];
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'"'"'`)}'`;
}

function tail(text: string, lines = 8): string {
  return text.trim().split("\n").slice(-lines).join("\n");
}

/** One agent in one scope: render, run twice, check. Returns the folder kept for inspection, if any. */
async function runRow(
  driver: AgentDriver,
  installed: Installed,
  scope: Scope,
  state: RunState,
  report: Report,
): Promise<string | undefined> {
  const { options, paths, runRoot } = state;
  const row = `${driver.id}/${scope}`;
  const started = performance.now();
  const failuresBefore = (): number =>
    report.results.filter((r) => r.row === row && r.status === "fail").length;
  report.add(
    row,
    "install",
    "pass",
    `${driver.pkg}@${installed.version} (${installed.cached ? "cached" : `installed in ${installed.seconds.toFixed(1)} s`})`,
  );
  const layout = await createLayout(
    join(runRoot, `${driver.id}-${scope}`),
    join(paths.repoRoot, "conformance", "home"),
  );
  const model = await startFakeModel();
  const timeoutMs = options.runTimeoutMs ?? driver.timeoutMs;
  const tilde = (path: string): string =>
    path.startsWith(layout.project)
      ? `<project>/${relative(layout.project, path)}`
      : path.startsWith(layout.home)
        ? `~/${relative(layout.home, path)}`
        : path;

  const kanon = async (args: string[]): Promise<RunResult> => {
    const scoped = [
      "--home",
      layout.kanonHome,
      ...(scope === "project" ? ["--project", layout.project] : []),
      "--agent",
      driver.id,
    ];
    return runProcess([process.execPath, options.kanon, ...scoped, ...args], {
      cwd: layout.project,
      env: agentEnv(driver, layout, model.url),
      timeoutMs: 60_000,
    });
  };

  try {
    if (options.mcpOnly) {
      await runMcp(driver, installed, scope, state, report, join(layout.root, "mcp"), timeoutMs);
      return failuresBefore() > 0 || options.keep ? layout.root : undefined;
    }
    if (options.commandsOnly) {
      await runCommands(driver, installed, scope, state, report, join(layout.root, "commands"), timeoutMs);
      return failuresBefore() > 0 || options.keep ? layout.root : undefined;
    }
    await driver.prepare(layout, model.url, scope);
    const hooks = readHooks(layout.kanonHome);
    const rendered = hooks.filter((h) => targets(h, driver.id) && !driver.omittedEvents.includes(h.event));

    // render
    const apply = await kanon(["apply", "--yes"]);
    writeFileSync(join(layout.root, "kanon-apply.log"), `${apply.stdout}\n--- stderr ---\n${apply.stderr}`);
    const hookFiles = driver.hookFiles(layout, scope);
    const missing = hookFiles.filter((f) => !existsSync(f));
    const warnings = apply.stderr.split("\n").filter((l) => l.startsWith("warning:"));
    if (apply.code !== 0 || missing.length > 0) {
      report.add(
        row,
        "render",
        "fail",
        [
          `kanon apply: ${apply.timedOut ? "timed out" : `exit ${apply.code}`}`,
          ...missing.map((f) => `missing ${tilde(f)}`),
          tail(apply.stderr),
        ].join("\n"),
      );
      return layout.root;
    }
    report.add(
      row,
      "render",
      "pass",
      `kanon apply exit 0 in ${apply.seconds.toFixed(1)} s, ${warnings.length} warning(s); ${hookFiles.map(tilde).join(", ")}`,
    );

    // omitted: hooks whose event the agent lacks are warned about and not rendered; the others are rendered.
    report.add(row, "omitted", ...omittedCheck(driver, hooks, warnings, hookFiles));

    // lifecycle run
    const lifecycle = await runAgent("lifecycle", driver, installed, layout, model, timeoutMs);
    report.note(row, `lifecycle run: ${describeRun(lifecycle)}`);
    const ran = toolRanCheck(lifecycle);
    report.add(row, "tool-ran", ...ran);
    report.add(row, "events", ...eventsCheck(lifecycle));
    report.add(row, "payload", ...payloadCheck(driver, lifecycle, layout));
    report.add(row, "hook-env", ...hookEnvCheck(driver, lifecycle));
    report.add(row, "argv", ...argvCheck(hooks, lifecycle));

    // block run
    const block = await runAgent("block", driver, installed, layout, model, timeoutMs);
    report.note(row, `block run: ${describeRun(block)}`);
    report.add(row, "block", ...blockCheck(block));
    report.add(row, "block-msg", ...blockMessageCheck(block));

    // agent-specific checks
    if (driver.extraChecks) {
      const ctx: ExtraCheckContext = {
        driver,
        installed,
        layout,
        scope,
        env: {
          ...agentEnv(driver, layout, model.url),
          ...driver.invocation(installed, layout, model.url, "").env,
        },
        kanon,
        renderedHooks: rendered.map((h) => ({
          name: h.name,
          command: h.command,
          ...(h.args ? { args: h.args } : {}),
        })),
        timeoutMs,
      };
      for (const extra of await driver.extraChecks(ctx)) {
        report.add(row, extra.id, extra.ok ? "pass" : extra.info ? "warn" : "fail", extra.detail);
      }
    }

    // The neutral envelope, live: once per agent, in its first scope (conformance/envelope.ts).
    if (scope === driver.scopes[0]) {
      const checks = await envelopePhase({
        driver,
        installed,
        root: join(layout.root, "envelope"),
        repoRoot: paths.repoRoot,
        kanon: options.kanon,
        timeoutMs,
        activeTokens,
      });
      for (const c of checks) report.add(row, c.id, c.status, c.detail);
    }

    report.add(row, "hygiene", ...hygieneCheck([lifecycle, block]));
    await runMcp(driver, installed, scope, state, report, join(layout.root, "mcp"), timeoutMs);
    await runCommands(driver, installed, scope, state, report, join(layout.root, "commands"), timeoutMs);
  } catch (error) {
    report.add(
      row,
      "suite",
      "fail",
      `suite error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  } finally {
    await model.close();
    report.row({ row, version: installed.version, seconds: (performance.now() - started) / 1000 });
  }
  if (failuresBefore() > 0 || options.keep) return layout.root;
  rmSync(layout.root, { recursive: true, force: true });
  return undefined;
}

/** The MCP phase of one agent and scope (conformance/mcp/phase.ts); true when a check failed. */
function runMcp(
  driver: AgentDriver,
  installed: Installed,
  scope: Scope,
  state: RunState,
  report: Report,
  root: string,
  timeoutMs = state.options.runTimeoutMs ?? driver.timeoutMs,
): Promise<boolean> {
  const { repoRoot } = state.paths;
  const kanonCli = state.options.kanon;
  return reportPhase(`${driver.id}/${scope}`, report, "mcp-render", "MCP phase", async () => {
    const context = { driver, installed, scope, root, repoRoot, kanonCli, timeoutMs };
    return (await mcpPhase(context)).checks;
  });
}

/** The commands and subagents phase of one agent and scope (conformance/commands/phase.ts); true when a check failed. */
function runCommands(
  driver: AgentDriver,
  installed: Installed,
  scope: Scope,
  state: RunState,
  report: Report,
  root: string,
  timeoutMs = state.options.runTimeoutMs ?? driver.timeoutMs,
): Promise<boolean> {
  const { repoRoot } = state.paths;
  const kanonCli = state.options.kanon;
  return reportPhase(`${driver.id}/${scope}`, report, "cmd-render", "commands phase", () =>
    commandsPhase({ driver, installed, scope, root, repoRoot, kanonCli, timeoutMs, activeTokens }),
  );
}

/**
 * A phase's checks added to the report's row; an error it throws is a failure in its first column
 * (`<name> error: …`). True when a check failed.
 */
async function reportPhase(
  row: string,
  report: Report,
  column: string,
  name: string,
  phase: () => Promise<readonly PhaseCheck[]>,
): Promise<boolean> {
  try {
    const checks = await phase();
    for (const c of checks) report.add(row, c.id, c.status, c.detail);
    return checks.some((c) => c.status === "fail");
  } catch (error) {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    report.add(row, column, "fail", `${name} error: ${text}`);
    return true;
  }
}

function targets(hook: NeutralHook, agent: string): boolean {
  const list = hook.targets ?? [];
  return list.length === 0 || list.includes("all") || list.includes(agent);
}

/** The isolation environment plus the agent's home variable: kanon and the agent see the same homes. */
function agentEnv(driver: AgentDriver, layout: Layout, modelUrl: string): Record<string, string> {
  return { ...baseEnv(layout, modelUrl), ...driver.homeEnv?.(layout) };
}

async function runAgent(
  kind: "lifecycle" | "block",
  driver: AgentDriver,
  installed: Installed,
  layout: Layout,
  model: FakeModel,
  timeoutMs: number,
): Promise<RunOutcome> {
  const dir = join(layout.root, kind);
  mkdirSync(dir, { recursive: true });
  const sideEffect = join(
    layout.project,
    kind === "lifecycle" ? "side-effect.txt" : "blocked-side-effect.txt",
  );
  const command =
    kind === "lifecycle"
      ? `echo kanon-conformance > ${shellQuote(sideEffect)}`
      : `echo KANON_CONFORMANCE_BLOCK > ${shellQuote(sideEffect)}`;
  const prompt =
    kind === "lifecycle"
      ? "Run the kanon conformance shell command."
      : "Run the kanon conformance shell command that the guard hook blocks.";
  const hookLog = join(dir, "hooks.jsonl");
  const requests = model.begin({
    command,
    logFile: join(dir, "requests.jsonl"),
    ...(driver.finalDelayMs ? { finalDelayMs: driver.finalDelayMs } : {}),
  });
  const invocation = driver.invocation(installed, layout, model.url, prompt);
  const token = randomUUID();
  const env = {
    ...agentEnv(driver, layout, model.url),
    ...invocation.env,
    KANON_CONFORMANCE_LOG: hookLog,
    KANON_CONFORMANCE_RUN: token,
  };
  activeTokens.add(token);
  const result = await runProcess(invocation.argv, {
    cwd: layout.project,
    env,
    timeoutMs,
    ...(invocation.stdin === undefined ? {} : { stdin: invocation.stdin }),
    stdoutFile: join(dir, "stdout.log"),
    stderrFile: join(dir, "stderr.log"),
  });
  const strays = sweepStrays(token);
  activeTokens.delete(token);
  writeFileSync(
    join(dir, "result.json"),
    `${JSON.stringify({ argv: result.argv, code: result.code, signal: result.signal, timedOut: result.timedOut, seconds: result.seconds, strays }, null, 2)}\n`,
  );
  return { kind, prompt, command, sideEffect, result, requests, hooks: readHookLog(hookLog), strays };
}

function describeRun(run: RunOutcome): string {
  const r = run.result;
  const exit = r.timedOut
    ? "TIMED OUT"
    : r.spawnError
      ? `spawn error ${r.spawnError}`
      : `exit ${r.code ?? r.signal}`;
  const decisions = run.requests.filter((q) => q.kind === "model").map((q) => q.decision);
  return `${exit} in ${r.seconds.toFixed(1)} s; model requests: ${decisions.join(", ") || "none"}; hooks: ${run.hooks.map((h) => h.label).join(", ") || "none"}`;
}

type Verdict = ["pass" | "fail" | "warn" | "skip", string];

function agentFailure(run: RunOutcome): string | undefined {
  const r = run.result;
  if (r.spawnError) return `agent did not start: ${r.spawnError}`;
  if (r.timedOut) return `agent timed out after ${r.seconds.toFixed(0)} s\n${tail(r.stderr)}`;
  if (r.code !== 0) return `agent exit ${r.code ?? r.signal}\n${tail(`${r.stdout}\n${r.stderr}`)}`;
  return undefined;
}

function toolRanCheck(run: RunOutcome): Verdict {
  const failure = agentFailure(run);
  if (failure) return ["fail", failure];
  const called = run.requests.some((q) => q.decision === "tool_call");
  const finished = run.requests.some((q) => q.decision === "final");
  if (!called)
    return ["fail", "the fake model never offered the shell tool call (no shell tool in any request)"];
  if (!existsSync(run.sideEffect))
    return ["fail", `the shell command did not run: ${run.sideEffect} is missing`];
  const content = readFileSync(run.sideEffect, "utf8");
  if (content.trim() !== "kanon-conformance")
    return ["fail", `side effect has unexpected content ${show(content)}`];
  if (!finished) return ["fail", "the agent never sent the tool result back to the model"];
  return [
    "pass",
    `shell tool ${run.requests.find((q) => q.decision === "tool_call")?.toolName} ran; side effect written`,
  ];
}

function eventsCheck(run: RunOutcome): Verdict {
  const order = firstOccurrences(run.hooks, LIFECYCLE);
  const counts = countLabels(run.hooks);
  const missing = LIFECYCLE.filter((e) => !order.includes(e));
  const summary = `${order.join(" > ") || "none"} (counts: ${LIFECYCLE.map((e) => `${e} ${counts[e] ?? 0}`).join(", ")})`;
  if (missing.length > 0) return ["fail", `not fired: ${missing.join(", ")}; fired: ${summary}`];
  if (order.join(",") !== LIFECYCLE.join(",")) return ["fail", `wrong order: ${summary}`];
  return ["pass", summary];
}

function payloadCheck(driver: AgentDriver, run: RunOutcome, layout: Layout): Verdict {
  const problems: string[] = [];
  for (const event of LIFECYCLE) {
    const record = run.hooks.find((h) => h.label === event);
    if (!record) {
      problems.push(`${event}: did not fire`);
      continue;
    }
    if (typeof record.stdin !== "object" || record.stdin === null) {
      problems.push(`${event}: stdin is not a JSON object: ${show(record.stdin)}`);
      continue;
    }
    const rules = driver.payload(event, { prompt: run.prompt, command: run.command });
    for (const problem of checkFields(record.stdin, rules, layout.project))
      problems.push(`${event}: ${problem}`);
    if (!sameDir(record.cwd, layout.project))
      problems.push(`${event}: hook ran in ${record.cwd}, not the project`);
  }
  if (problems.length > 0) return ["fail", problems.join("\n")];
  const fields = new Set<string>();
  for (const event of LIFECYCLE)
    for (const key of Object.keys(driver.payload(event, { prompt: "", command: "" }))) fields.add(key);
  return ["pass", `fields ${[...fields].join(", ")} as expected; hooks ran in the project`];
}

/**
 * Each lifecycle hook's environment has every variable the agent's manifest says it sets for its
 * hooks (hooks.environment), and none that only other agents' manifests name: validation leaves a
 * hook that uses one out for the agents that do not set it. The agents run with an allow-listed
 * environment, so what the probe finds came from the agent.
 */
function hookEnvCheck(driver: AgentDriver, run: RunOutcome): Verdict {
  const own = driver.manifest.hooks.environment.names;
  const others = [
    ...new Set(drivers.flatMap((d) => d.manifest.hooks.environment.names).filter((n) => !own.includes(n))),
  ];
  const problems: string[] = [];
  for (const event of LIFECYCLE) {
    const record = run.hooks.find((h) => h.label === event);
    if (!record) continue; // the events check reports it
    const missing = own.filter((n) => !Object.hasOwn(record.env, n));
    const extra = others.filter((n) => Object.hasOwn(record.env, n));
    if (missing.length > 0) problems.push(`${event}: not set: ${missing.join(", ")}`);
    if (extra.length > 0)
      problems.push(`${event}: set, though the manifest does not say so: ${extra.join(", ")}`);
  }
  if (problems.length > 0) return ["fail", problems.join("\n")];
  return [
    "pass",
    `${own.length > 0 ? own.join(", ") : "no variables of its own"}; none of ${others.join(", ")}`,
  ];
}

function argvCheck(hooks: NeutralHook[], run: RunOutcome): Verdict {
  const hook = hooks.find((h) => h.name === ARGV_HOOK);
  if (!hook?.args) return ["fail", `kanon.yaml has no "${ARGV_HOOK}" hook with args`];
  const expected = hook.args.slice(3);
  const records = run.hooks.filter((h) => h.label === "argv");
  if (records.length === 0)
    return ["fail", `the ${ARGV_HOOK} hook (UserPromptSubmit, exec form) did not fire`];
  const wrong = records.find((r) => JSON.stringify(r.argv) !== JSON.stringify(expected));
  if (wrong)
    return [
      "fail",
      `argv mismatch\n  expected ${JSON.stringify(expected)}\n  received ${JSON.stringify(wrong.argv)}`,
    ];
  return ["pass", `${expected.length} arguments arrived intact (${records.length} call(s))`];
}

function blockCheck(run: RunOutcome): Verdict {
  const failure = agentFailure(run);
  const problems: string[] = [];
  if (failure) problems.push(failure);
  const guard = run.hooks.find((h) => h.label === "guard");
  if (!guard) problems.push("the guard hook (PreToolUse) did not fire");
  else if (guard.decision !== "block")
    problems.push(`the guard hook did not see the blocked command: ${show(guard.stdin)}`);
  if (!run.requests.some((q) => q.decision === "tool_call"))
    problems.push("the fake model never made the tool call");
  if (existsSync(run.sideEffect)) problems.push(`the blocked command ran anyway: ${run.sideEffect} exists`);
  if (run.hooks.some((h) => h.label === "PostToolUse"))
    problems.push("PostToolUse fired for the blocked command");
  if (!run.hooks.some((h) => h.label === "Stop"))
    problems.push("Stop did not fire after the block (the turn did not finish)");
  if (problems.length > 0) return ["fail", problems.join("\n")];
  return ["pass", "exit 2 from the guard hook: command not run, PostToolUse not fired, turn finished"];
}

function blockMessageCheck(run: RunOutcome): Verdict {
  const results = [...new Set(run.requests.flatMap((q) => q.toolResults ?? []))];
  const hit = results.find((t) => t.includes(GUARD_REASON));
  if (hit) return ["pass", `tool result seen by the model: ${show(hit.trim())}`];
  if (results.length === 0) return ["fail", "no tool result reached the model"];
  return [
    "fail",
    `the model did not receive the hook's message; tool results: ${results.map((t) => show(t)).join(" | ")}`,
  ];
}

function omittedCheck(
  driver: AgentDriver,
  hooks: NeutralHook[],
  warnings: string[],
  hookFiles: string[],
): Verdict {
  const content = hookFiles.map((f) => (existsSync(f) ? readFileSync(f, "utf8") : "")).join("\n");
  const mentions = (neutral: string): boolean => {
    const command = driver.nativeCommand ? driver.nativeCommand(neutral) : neutral;
    return content.includes(command) || content.includes(JSON.stringify(command).slice(1, -1));
  };
  const problems: string[] = [];
  const notes: string[] = [];
  for (const hook of hooks) {
    if (!targets(hook, driver.id)) continue;
    const warning = warnings.find((w) => w.includes(`"${hook.name}"`));
    if (driver.omittedEvents.includes(hook.event)) {
      if (!warning)
        problems.push(`no warning for hook "${hook.name}" (${hook.event}, which ${driver.title} lacks)`);
      else if (!warning.includes(driver.id))
        problems.push(`the warning for "${hook.name}" does not name ${driver.id}: ${warning}`);
      if (mentions(hook.command)) problems.push(`hook "${hook.name}" (${hook.event}) was rendered anyway`);
      if (warning) notes.push(warning);
    } else {
      if (warning) problems.push(`unexpected warning: ${warning}`);
      if (!hook.args && !mentions(hook.command))
        problems.push(`hook "${hook.name}" (${hook.event}) is not in the native file`);
    }
  }
  if (problems.length > 0) return ["fail", problems.join("\n")];
  return ["pass", notes.length > 0 ? notes.join("\n") : "every hook of kanon.yaml is supported and rendered"];
}

function hygieneCheck(runs: RunOutcome[]): Verdict {
  const egress = [
    ...new Set(runs.flatMap((r) => r.requests.filter((q) => q.kind === "egress").map((q) => q.url))),
  ];
  const strays = runs.flatMap((r) => r.strays);
  const other = [
    ...new Set(
      runs.flatMap((r) => r.requests.filter((q) => q.kind === "other").map((q) => `${q.method} ${q.url}`)),
    ),
  ];
  const notes: string[] = [];
  if (egress.length > 0) notes.push(`egress attempts (refused): ${egress.join(", ")}`);
  if (strays.length > 0)
    notes.push(`stray processes killed: ${strays.map((s) => s.cmdline.slice(0, 80)).join("; ")}`);
  if (other.length > 0) notes.push(`unrouted requests: ${other.join(", ")}`);
  if (notes.length > 0) return ["warn", notes.join("\n")];
  return ["pass", "no egress attempt, no stray process, every request routed"];
}
