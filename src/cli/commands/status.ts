/** `kanon status`: the Kanon home's git status and the destination drift. */
import { execFile } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { nativeHooks } from "../../core/hooks/support.js";
import { destination } from "../../core/render.js";
import { osErrorText } from "../../model/fs-errors.js";
import type { GatedHook } from "../../model/manifest.js";
import { ConfigMissingError } from "../../source/load.js";
import { type GlobalFlags, type Io, out, warn } from "../context.js";
import { loadPlan, pathsOf, type Rendered } from "../pipeline.js";
import { changeJson, jsonText } from "./render.js";

type GitStatus = { clean: boolean; short: string } | { error: string };

async function gitStatus(home: string, env: NodeJS.ProcessEnv): Promise<GitStatus> {
  const gitDir = join(home, ".git");
  try {
    await stat(gitDir);
  } catch (e) {
    return { error: `stat ${gitDir}: ${osErrorText(e)}` };
  }
  try {
    const { stdout } = await promisify(execFile)("git", ["-C", home, "status", "--short"], { env });
    return { clean: stdout.trim() === "", short: stdout };
  } catch (e) {
    return { error: `git status: ${(e as Error).message.split("\n")[0]}` };
  }
}

export async function statusCommand(flags: GlobalFlags, opts: { json?: boolean }, io: Io): Promise<void> {
  const paths = pathsOf(flags, io);
  const git = await gitStatus(paths.home, io.env);
  let plan: Awaited<ReturnType<typeof loadPlan>> | null = null;
  try {
    plan = await loadPlan(flags, io);
  } catch (e) {
    if (!(e instanceof ConfigMissingError)) throw e;
  }
  const changes = plan?.plan.changes ?? [];
  const gated = plan ? await gatedHooks(plan, io) : { hooks: [], warnings: [] };
  if (opts.json) {
    out(
      io,
      jsonText({
        source: "error" in git ? { git: null, error: git.error } : { git: git.clean ? "clean" : git.short },
        files: changes.map(changeJson),
        drift: { changes: changes.length, conflicts: 0 },
        gated: gated.hooks,
        warnings: [...(plan?.warnings ?? []), ...gated.warnings],
      }),
    );
    return;
  }
  if ("error" in git) io.stderr.write(`Git status unavailable: ${git.error}\n`);
  else out(io, git.clean ? "Git status: clean\n" : git.short.endsWith("\n") ? git.short : `${git.short}\n`);
  if (!plan) return;
  out(
    io,
    changes.length === 0 ? "No rendered file drift.\n" : `${changes.length} change(s), 0 conflict(s).\n`,
  );
  warn(io, gated.warnings);
  for (const agent of new Set(gated.hooks.map((h) => h.agent))) {
    const hooks = gated.hooks.filter((h) => h.agent === agent);
    out(io, `${agent} will skip ${hooks.length} hook(s) for now:\n`);
    for (const h of hooks) out(io, `  ${h.hook} (${h.event}): ${h.state}\n`);
    for (const gate of new Set(hooks.map((h) => h.gateDescription))) out(io, `  (${gate})\n`);
  }
}

type StatusGatedHook = GatedHook & { agent: string; gateDescription: string };

/** Rendered hooks that an agent's own gate (Codex's review of changed hooks) still holds back. */
async function gatedHooks(plan: Rendered, io: Io): Promise<{ hooks: StatusGatedHook[]; warnings: string[] }> {
  const hooks: StatusGatedHook[] = [];
  const warnings: string[] = [];
  for (const agent of plan.agents) {
    if (!agent.gatedHooks) continue;
    const path = destination(agent.manifest.hooks.file, plan.scope);
    const file = plan.files.find((f) => f.agent === agent.manifest.id && f.path === path);
    if (!file) continue;
    const r = await agent.gatedHooks({
      path: file.path,
      content: Buffer.from(file.content).toString("utf8"),
      hooks: nativeHooks(plan.validation.decisions, agent.manifest.id),
      userHome: io.userHome,
      env: io.env,
    });
    const gates = agent.manifest.hooks.gates;
    hooks.push(
      ...r.hooks.map((h) => ({
        ...h,
        agent: agent.manifest.displayName,
        gateDescription: gates.find((g) => g.id === h.gate)?.description ?? h.gate,
      })),
    );
    warnings.push(...r.warnings);
  }
  return { hooks, warnings };
}
