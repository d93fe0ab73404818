// The MCP phase of the conformance suite: kanon renders the servers of conformance/mcp/home for one agent
// and scope, the agent runs headless against the fake model, which calls each server's tool under the
// agent's own name for it, and the stub servers' logs say how each server was started. See
// conformance/README.md ("The MCP phase").

import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { parse } from "yaml";
import { AGENT_IDS } from "../../src/agents/index.js";
import { agentHomes, agentPath } from "../../src/core/homes.js";
import type { AgentDriver, Layout, PhaseCheck, PhaseContext, Scope } from "../drivers/types.js";
import { type FakeModel, type RecordedRequest, startFakeModel } from "../fake-model/server.js";
import { show } from "../lib/checks.js";
import { baseEnv, createLayout } from "../lib/layout.js";
import { type RunResult, runProcess, startInteractive, sweepStrays } from "../lib/proc.js";

export const MCP_COLUMNS = [
  "mcp-render",
  "mcp-start",
  "mcp-env",
  "mcp-headers",
  "mcp-result",
  "mcp-held",
  "mcp-approval",
];

/** Values the agent's environment holds for the references in kanon.yaml; kanon's own differ. */
const AGENT_VALUES = {
  KMCP_SOURCE: "agent-source",
  KMCP_SAME_TOKEN: "agent-same",
  KMCP_FORWARD_TOKEN: "agent-forward",
  KMCP_INHERITED_TOKEN: "agent-inherited-secret",
  KMCP_HEADER: "agent-header",
  KMCP_TOKEN: "agent-token",
  KMCP_INHERITED: "agent-inherited",
};
const KANON_VALUES = {
  KMCP_SOURCE: "kanon-source",
  KMCP_SAME_TOKEN: "kanon-same",
  KMCP_FORWARD_TOKEN: "kanon-forward",
  KMCP_HEADER: "kanon-header",
  KMCP_TOKEN: "kanon-token",
};

interface StubRecord {
  event: string;
  name: string;
  transport?: string;
  argv0?: string;
  argv?: string[];
  cwd?: string;
  env?: Record<string, string>;
  method?: string;
  headers?: Record<string, string>;
  tool?: string;
}

interface NeutralServer {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  targets?: string[];
  enabled?: boolean;
}

/** The agent's name for an MCP tool (its manifest's `mcp.toolName`). */
export function toolName(driver: AgentDriver, server: string, tool: string): string {
  return driver.manifest.mcp.toolName.replace("{server}", server).replace("{tool}", tool);
}

export async function mcpPhase(ctx: PhaseContext): Promise<{ checks: PhaseCheck[]; root: string }> {
  const { driver, scope } = ctx;
  const checks: PhaseCheck[] = [];
  const add = (id: string, status: PhaseCheck["status"], detail: string) =>
    checks.push({ id, status, detail });
  const layout = await createLayout(ctx.root, join(ctx.repoRoot, "conformance", "mcp", "home"));
  const log = join(layout.root, "mcp-servers.jsonl");
  const model = await startFakeModel();
  const http = await startHttpStub(layout, log);
  try {
    await driver.prepare(layout, model.url, scope);
    const other = AGENT_IDS.find((id) => id !== driver.id)!;
    const template = readFileSync(join(layout.kanonHome, "kanon.yaml"), "utf8")
      .replaceAll("@STUB@", join(layout.kanonHome, "stub-server.mjs"))
      .replaceAll("@LOG@", log)
      .replaceAll("@HTTP_URL@", `http://127.0.0.1:${http.port}/mcp`)
      .replaceAll("@OTHER@", other);
    const kanonEnv = { ...baseEnv(layout, model.url), ...driver.homeEnv?.(layout), ...KANON_VALUES };
    const kanon = (args: string[]): Promise<RunResult> =>
      runProcess(
        [
          process.execPath,
          ctx.kanonCli,
          "--home",
          layout.kanonHome,
          ...(scope === "project" ? ["--project", layout.project] : []),
          "--agent",
          driver.id,
          ...args,
        ],
        { cwd: layout.project, env: kanonEnv, timeoutMs: 60_000 },
      );

    // Apply with every server, then without kgone: the second apply must take it out of the agent's file.
    writeFileSync(join(layout.kanonHome, "kanon.yaml"), template);
    const first = await kanon(["apply", "--yes"]);
    const final = template.replace(/ *# REMOVE-BEGIN[\s\S]*# REMOVE-END\n/, "");
    writeFileSync(join(layout.kanonHome, "kanon.yaml"), final);
    const second = await kanon(["apply", "--yes"]);
    const decisions = await kanon(["mcp", "--json"]);
    writeFileSync(
      join(layout.root, "kanon-apply.log"),
      [first, second, decisions]
        .map((r) => `${r.argv.slice(2).join(" ")}\n${r.stdout}\n--- stderr ---\n${r.stderr}`)
        .join("\n\n"),
    );
    const file = mcpFile(driver, layout, scope);
    if (first.code !== 0 || second.code !== 0 || !file || !existsSync(file)) {
      add(
        "mcp-render",
        "fail",
        `kanon apply: exit ${first.code}, then ${second.code}; ${file ?? "no MCP file in this scope"}\n${second.stderr.trim()}`,
      );
      return { checks, root: layout.root };
    }
    const servers = (parse(final) as { mcp: { servers: Record<string, NeutralServer> } }).mcp.servers;
    const nativeText = readFileSync(file, "utf8");
    const warnings = second.stderr.split("\n").filter((l) => l.startsWith("warning:"));
    add(
      "mcp-render",
      nativeText.includes("kgone") ? "fail" : "pass",
      `${nativeText.includes("kgone") ? "kgone is still in" : "kgone removed from"} ${file}; ${warnings.length} warning(s)${warnings.length ? `\n${warnings.join("\n")}` : ""}`,
    );

    // Run the agent: the fake model calls each tool it finds under the agent's name for it.
    const setupEnv = (await driver.mcpSetup?.(layout, scope, Object.keys(servers))) ?? {};
    // kask only where the agent reads approval settings: each model round trip costs seconds.
    const calls = [
      ["kstdio", "probe"],
      ["khttp", "probe"],
      ...(driver.manifest.mcp.approvalModes ? [["kask", "probe"]] : []),
    ].map(([s, t]) => ({ name: toolName(driver, s!, t!), args: { note: `kanon conformance ${s}` } }));
    const run = await runAgent(ctx, layout, model, calls, setupEnv);
    const records = readStubLog(log);
    const started = (name: string) => records.filter((r) => r.event === "start" && r.name === name);
    const offered = new Set(run.requests.flatMap((q) => q.offered ?? []));
    const results = [...new Set(run.requests.flatMap((q) => q.toolResults ?? []))];

    // mcp-start: the stdio server started with exactly the command and args kanon.yaml gives.
    const stdio = started("kstdio")[0];
    const expectArgs = servers.kstdio!.args!;
    if (!stdio) add("mcp-start", "fail", `kstdio never started${describe(run)}`);
    else if (stdio.argv0 !== servers.kstdio!.command || !isDeepStrictEqual(stdio.argv, expectArgs.slice(1)))
      add(
        "mcp-start",
        "fail",
        `started as ${show([stdio.argv0, ...(stdio.argv ?? [])])}, expected ${show([servers.kstdio!.command, ...expectArgs])}`,
      );
    else add("mcp-start", "pass", `node + ${expectArgs.length} args exactly; cwd ${stdio.cwd}`);

    // mcp-env: every env value resolved; the references from the agent's environment (or kanon's, where
    // kanon resolved them at apply for this agent: `kanon mcp --json` lists them).
    const resolvedAtApply = resolvedFields(decisions.stdout, "kstdio", driver.id);
    const expected: Record<string, string> = {
      KMCP_LITERAL: "plain value",
      KMCP_FROM_VAR: resolvedAtApply.includes("env.KMCP_FROM_VAR")
        ? KANON_VALUES.KMCP_SOURCE
        : AGENT_VALUES.KMCP_SOURCE,
      KMCP_SAME_TOKEN: resolvedAtApply.includes("env.KMCP_SAME_TOKEN")
        ? KANON_VALUES.KMCP_SAME_TOKEN
        : AGENT_VALUES.KMCP_SAME_TOKEN,
      KMCP_FORWARD_TOKEN: AGENT_VALUES.KMCP_FORWARD_TOKEN,
      KMCP_DEFAULT_UNSET: "fallback",
      KMCP_DEFAULT_SET: resolvedAtApply.includes("env.KMCP_DEFAULT_SET")
        ? KANON_VALUES.KMCP_SOURCE
        : AGENT_VALUES.KMCP_SOURCE,
    };
    if (stdio) {
      const env = stdio.env ?? {};
      const wrong = Object.entries(expected).filter(([k, v]) => env[k] !== v);
      // What the server inherits: a plain name, and one that looks like a secret.
      const plain = env.KMCP_INHERITED === AGENT_VALUES.KMCP_INHERITED;
      const secret = env.KMCP_INHERITED_TOKEN === AGENT_VALUES.KMCP_INHERITED_TOKEN;
      const inherits = plain
        ? secret
          ? "all"
          : "not secret-like names"
        : secret
          ? "only secret-like names"
          : "none";
      const inheritNote = `inherits the agent's environment: ${inherits} (manifest: ${driver.manifest.mcp.inheritsEnvironment})`;
      if (wrong.length > 0 || inherits !== driver.manifest.mcp.inheritsEnvironment)
        add(
          "mcp-env",
          "fail",
          [...wrong.map(([k, v]) => `${k}: expected ${show(v)}, got ${show(env[k])}`), inheritNote].join(
            "\n",
          ),
        );
      else
        add(
          "mcp-env",
          "pass",
          `${Object.keys(expected).length} values resolved${resolvedAtApply.length ? ` (${resolvedAtApply.join(", ")} by kanon at apply)` : ""}; ${inheritNote}`,
        );
    } else add("mcp-env", "fail", "kstdio never started");

    // mcp-headers: each HTTP request carried the literal header, the header from a variable and the token.
    const resolvedHttp = resolvedFields(decisions.stdout, "khttp", driver.id);
    const value = (name: keyof typeof AGENT_VALUES, field: string) =>
      resolvedHttp.includes(field) ? KANON_VALUES[name as keyof typeof KANON_VALUES] : AGENT_VALUES[name];
    const wantHeaders: Record<string, string> = {
      "x-kmcp-literal": "plain header",
      "x-kmcp-ref": value("KMCP_HEADER", "headers.X-Kmcp-Ref"),
      "x-kmcp-env": value("KMCP_HEADER", "env_headers.X-Kmcp-Env"),
      authorization: `Bearer ${value("KMCP_TOKEN", "bearer_token_env_var")}`,
    };
    const posts = records.filter((r) => r.name === "khttp" && r.event === "http" && r.method === "POST");
    if (posts.length === 0) add("mcp-headers", "fail", `the agent never reached khttp${describe(run)}`);
    else {
      const wrong = posts.flatMap((p) =>
        Object.entries(wantHeaders)
          .filter(([h, v]) => p.headers?.[h] !== v)
          .map(([h, v]) => `${h}: expected ${show(v)}, got ${show(p.headers?.[h])}`),
      );
      const distinct = [...new Set(wrong)];
      add(
        "mcp-headers",
        distinct.length ? "fail" : "pass",
        distinct.length
          ? distinct.join("\n")
          : `${posts.length} requests, each with ${Object.keys(wantHeaders).join(", ")}`,
      );
    }

    // mcp-result: both tools offered under the agent's names, called, and their results sent back.
    const problems: string[] = [];
    for (const server of ["kstdio", "khttp"]) {
      const name = toolName(driver, server, "probe");
      if (!offered.has(name)) problems.push(`${name} not offered`);
      else if (!records.some((r) => r.event === "call" && r.name === server))
        problems.push(`${name} not called`);
      else if (!results.some((t) => t.includes(`KMCP_RESULT ${server} probe`)))
        problems.push(`the result of ${name} never reached the model`);
    }
    add(
      "mcp-result",
      problems.length ? "fail" : "pass",
      problems.length
        ? `${problems.join("\n")}\noffered: ${[...offered].filter((t) => t.includes("kstdio") || t.includes("khttp") || t.startsWith("mcp")).join(", ") || "no MCP tool"}${describe(run)}`
        : `${toolName(driver, "kstdio", "probe")} and ${toolName(driver, "khttp", "probe")} called; results reached the model`,
    );

    // mcp-held: disabled, untargeted and removed servers not started nor offered; tool filters hold
    // where the agent has them (elsewhere the tool is offered and kanon warned).
    const held: string[] = [];
    for (const server of ["koff", "kother", "kgone"]) {
      if (started(server).length > 0) held.push(`${server} was started`);
      if ([...offered].some((t) => t.includes(server))) held.push(`a tool of ${server} was offered`);
    }
    const filters = driver.manifest.mcp.fields;
    for (const [server, field] of [
      ["kstdio", "enabled_tools"],
      ["khttp", "disabled_tools"],
    ] as const) {
      const spare = offered.has(toolName(driver, server, "spare"));
      const supported = filters[field].support !== "none";
      if (supported && spare) held.push(`${server}'s ${field} did not hold: spare offered`);
      if (!supported && !warnings.some((w) => w.includes(`"${server}"`) && w.includes(field)))
        held.push(`no warning that ${field} of ${server} is left out`);
    }
    add(
      "mcp-held",
      held.length ? "fail" : "pass",
      held.length
        ? held.join("\n")
        : "koff, kother, kgone not started nor offered; tool filters hold (or are warned about)",
    );

    // mcp-approval: an agent that reads kanon's approval settings (Codex) refuses the call that needs one.
    if (!driver.manifest.mcp.approvalModes)
      add("mcp-approval", "skip", `${driver.title} has no MCP approval setting`);
    else {
      const askName = toolName(driver, "kask", "probe");
      const askCalled = records.some((r) => r.event === "call" && r.name === "kask");
      const stdioCalled = records.some((r) => r.event === "call" && r.name === "kstdio");
      // Codex 0.171.0 `codex exec` (approval_policy on-request, no bypass flag) runs a tool whose mode is
      // prompt without asking: headless runs cannot show the approval, so this is informational.
      const held = offered.has(askName) && !askCalled && stdioCalled;
      add(
        "mcp-approval",
        held ? "pass" : stdioCalled && askCalled ? "warn" : "fail",
        `kask (default_approval: prompt): ${askCalled ? "ran unasked" : "not run"}; kstdio probe (approval: approve): ${stdioCalled ? "ran" : "not run"}${held ? "" : `; results: ${results.map((r) => show(r)).join(" | ")}`}`,
      );
    }
  } finally {
    http.stop();
    await model.close();
  }
  return { checks, root: layout.root };
}

function describe(run: { result: RunResult; requests: RecordedRequest[] }): string {
  const r = run.result;
  return `\nagent ${r.timedOut ? "timed out" : `exit ${r.code}`}; model requests: ${run.requests
    .filter((q) => q.kind === "model")
    .map((q) => `${q.decision}${q.toolName ? ` ${q.toolName}` : ""}`)
    .join(", ")}\n${r.stderr.trim().split("\n").slice(-6).join("\n")}`;
}

/** The agent's MCP file in this scope. */
function mcpFile(driver: AgentDriver, layout: Layout, scope: Scope): string | null {
  const { homes } = agentHomes([driver.manifest], driver.homeEnv?.(layout) ?? {}, layout.project);
  return agentPath(
    driver.manifest,
    driver.manifest.mcp.file,
    scope === "user"
      ? { kind: "user", userHome: layout.home, homes }
      : { kind: "project", userHome: layout.home, dir: layout.project, homes },
  );
}

/** The neutral fields of a server that kanon resolved at apply for the agent (from `kanon mcp --json`). */
function resolvedFields(json: string, server: string, agent: string): string[] {
  try {
    const doc = JSON.parse(json) as { servers: { server: string; agent: string; resolved?: string[] }[] };
    return doc.servers.find((s) => s.server === server && s.agent === agent)?.resolved ?? [];
  } catch {
    return [];
  }
}

function readStubLog(path: string): StubRecord[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as StubRecord];
      } catch {
        return [];
      }
    });
}

async function startHttpStub(layout: Layout, log: string): Promise<{ port: number; stop(): void }> {
  const portFile = join(layout.root, "khttp.port");
  const stub = startInteractive(
    [
      process.execPath,
      join(layout.kanonHome, "stub-server.mjs"),
      "--log",
      log,
      "--name",
      "khttp",
      "--second-tool",
      "--http",
      portFile,
    ],
    { cwd: layout.root, env: { PATH: process.env.PATH ?? "" } },
  );
  // The file can exist before its content is written: wait for a port number.
  const port = (): number => (existsSync(portFile) ? Number(readFileSync(portFile, "utf8")) || 0 : 0);
  for (let i = 0; i < 200 && port() === 0; i++) await new Promise((r) => setTimeout(r, 50));
  if (port() === 0) {
    stub.stop();
    throw new Error("the HTTP stub server did not start");
  }
  return { port: port(), stop: () => stub.stop() };
}

async function runAgent(
  ctx: PhaseContext,
  layout: Layout,
  model: FakeModel,
  calls: { name: string; args: Record<string, unknown> }[],
  setupEnv: Record<string, string>,
): Promise<{ result: RunResult; requests: RecordedRequest[] }> {
  const dir = join(layout.root, "mcp-run");
  mkdirSync(dir, { recursive: true });
  const requests = model.begin({
    command: "true",
    calls,
    logFile: join(dir, "requests.jsonl"),
    ...(ctx.driver.finalDelayMs ? { finalDelayMs: ctx.driver.finalDelayMs } : {}),
  });
  const invocation = ctx.driver.invocation(
    ctx.installed,
    layout,
    model.url,
    "Call the kanon conformance MCP tools.",
  );
  const token = randomUUID();
  const result = await runProcess(ctx.driver.mcpArgv?.(invocation.argv) ?? invocation.argv, {
    cwd: layout.project,
    env: {
      ...baseEnv(layout, model.url),
      ...ctx.driver.homeEnv?.(layout),
      ...invocation.env,
      ...setupEnv,
      ...AGENT_VALUES,
      KANON_CONFORMANCE_RUN: token,
    },
    timeoutMs: ctx.timeoutMs,
    ...(invocation.stdin === undefined ? {} : { stdin: invocation.stdin }),
    stdoutFile: join(dir, "stdout.log"),
    stderrFile: join(dir, "stderr.log"),
  });
  sweepStrays(token);
  return { result, requests };
}
