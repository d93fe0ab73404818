/** `kanon status`: the home's branch against its upstream, its uncommitted changes, and the destination drift. */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { agentPath, userPath } from "../../core/homes.js";
import { nativeHooks } from "../../core/hooks/support.js";
import { osErrorText } from "../../model/fs-errors.js";
import type { GatedHook } from "../../model/manifest.js";
import { UnsettledHomeError } from "../../source/home-state.js";
import { ConfigMissingError } from "../../source/load.js";
import { err, type GlobalFlags, type Io, out, warn } from "../context.js";
import { driftReason } from "../diff-text.js";
import { type BranchState, branchState } from "../home-git.js";
import { loadPlan, pathsOf, type Rendered } from "../pipeline.js";
import { changeJson, jsonText } from "./render.js";

/** How the home stands: its branch against the upstream (as of the last fetch) and uncommitted changes. */
async function homeState(home: string, io: Io): Promise<BranchState | { error: string }> {
  try {
    await stat(join(home, ".git"));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") {
      return {
        error: `${home} is not a git repository; run "git init" there, or "kanon init <repo>" to clone your Kanon home`,
      };
    }
    return { error: `stat ${join(home, ".git")}: ${osErrorText(e)}` };
  }
  return branchState(home, io);
}

/** `Branch main: 2 ahead, 1 behind origin/main (as of the last fetch)`, with what to run next. */
export function branchLine(b: BranchState): string {
  if (b.branch === null) return "HEAD is detached (no branch)";
  if (b.unborn) return `Branch ${b.branch}: no commits yet`;
  if (b.upstream === null) return `Branch ${b.branch}: no upstream (git push -u origin ${b.branch} sets one)`;
  if (b.gone) return `Branch ${b.branch}: upstream ${b.upstream} is gone`;
  const where = `${b.upstream} (as of the last fetch)`;
  if (b.ahead === 0 && b.behind === 0) return `Branch ${b.branch}: up to date with ${where}`;
  const counts = [b.ahead ? `${b.ahead} ahead` : "", b.behind ? `${b.behind} behind` : ""].filter(Boolean);
  const next =
    b.ahead && b.behind
      ? "diverged: merge or rebase in the home, then kanon push"
      : b.ahead
        ? "kanon push publishes"
        : "kanon update brings them here";
  return `Branch ${b.branch}: ${counts.join(", ")} ${where}; ${next}`;
}

export async function statusCommand(
  flags: GlobalFlags,
  opts: { json?: boolean; exitCode?: boolean },
  io: Io,
): Promise<number> {
  const paths = pathsOf(flags, io);
  const git = await homeState(paths.home, io);
  let plan: Awaited<ReturnType<typeof loadPlan>> | null = null;
  // Why there is no drift to show: no home, or a home git is in the middle of changing.
  let missing: string | null = null;
  let unsettled: string | null = null;
  try {
    plan = await loadPlan(flags, io);
  } catch (e) {
    if (e instanceof UnsettledHomeError) unsettled = e.message;
    else if (e instanceof ConfigMissingError) missing = paths.config;
    else throw e;
  }
  const changes = plan?.plan.changes ?? [];
  const gated = plan ? await gatedHooks(plan, io) : { hooks: [], warnings: [] };
  // --exit-code promises "in sync" only when it could compare.
  const code = unsettled || (opts.exitCode && (changes.length > 0 || missing)) ? 1 : 0;
  if (opts.json) {
    const source =
      "error" in git
        ? { git: null, error: git.error }
        : {
            git: git.changes.length === 0 ? "clean" : `${git.changes.join("\n")}\n`,
            branch: git.branch,
            upstream: git.upstream,
            ahead: git.ahead,
            behind: git.behind,
            ...(git.gone ? { upstreamGone: true } : {}),
          };
    out(
      io,
      jsonText({
        source,
        files: changes.map(changeJson),
        drift: { changes: changes.length, conflicts: changes.filter((c) => c.replaces).length },
        gated: gated.hooks,
        warnings: [...(plan?.warnings ?? []), ...gated.warnings],
      }),
    );
    return code;
  }
  if ("error" in git) err(io, `Git status unavailable: ${git.error}\n`);
  else {
    out(io, `${branchLine(git)}\n`);
    if (git.changes.length === 0) out(io, "Git status: clean\n");
    else out(io, `Uncommitted changes in the home:\n${git.changes.join("\n")}\n`);
  }
  if (unsettled) err(io, `${unsettled}\n`);
  if (missing)
    err(
      io,
      `No Kanon home: ${missing} does not exist (kanon init creates one; kanon init <repo> clones yours)\n`,
    );
  if (!plan) return code;
  if (changes.length === 0) out(io, "No rendered file drift.\n");
  else {
    const conflicts = changes.filter((c) => c.replaces).length;
    out(io, `${changes.length} change(s), ${conflicts} conflict(s).\n`);
    for (const c of changes) out(io, `  ${driftReason(c)}: ${c.path} (${c.file.agent})\n`);
  }
  warn(io, gated.warnings);
  for (const agent of new Set(gated.hooks.map((h) => h.agent))) {
    const hooks = gated.hooks.filter((h) => h.agent === agent);
    out(io, `${agent} will skip ${hooks.length} hook(s) for now:\n`);
    for (const h of hooks) out(io, `  ${h.hook} (${h.event}): ${h.state}\n`);
    for (const gate of new Set(hooks.map((h) => h.gateDescription))) out(io, `  (${gate})\n`);
  }
  return code;
}

type StatusGatedHook = GatedHook & { agent: string; gateDescription: string };

/** Rendered hooks that an agent's own gate (Codex's review of changed hooks) still holds back. */
async function gatedHooks(plan: Rendered, io: Io): Promise<{ hooks: StatusGatedHook[]; warnings: string[] }> {
  const hooks: StatusGatedHook[] = [];
  const warnings: string[] = [];
  for (const agent of plan.agents) {
    if (!agent.gatedHooks) continue;
    const path = agentPath(agent.manifest, agent.manifest.hooks.file, plan.scope);
    const file = plan.files.find((f) => f.agent === agent.manifest.id && f.path === path);
    if (!file) continue;
    const r = await agent.gatedHooks({
      path: file.path,
      content: Buffer.from(file.content).toString("utf8"),
      hooks: nativeHooks(plan.validation.decisions, agent.manifest.id),
      userPath: (rel) => userPath(agent.manifest, rel, plan.scope),
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
