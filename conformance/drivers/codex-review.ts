// Codex hook review: Codex runs a user or project hook only after the user has trusted it (`/hooks` in the
// TUI). kanon must not write trust entries, and `kanon status` must tell the user which rendered hooks are
// waiting for that review. This check compares three views of the same hooks:
//   1. the files: no `[hooks.state]` / `trusted_hash` entries in any config.toml kanon could have touched;
//   2. Codex itself: `codex app-server` → `hooks/list` discovers every rendered hook, none of them trusted;
//   3. kanon: `kanon status` names every one of those hooks as awaiting review.

import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startInteractive } from "../lib/proc.js";
import type { ExtraCheck, ExtraCheckContext } from "./types.js";

interface ListedHook {
  key?: string;
  command?: string;
  currentHash?: string;
  sourcePath?: string;
  trustStatus?: string;
  eventName?: string;
}

/** Asks `codex app-server` (JSON-RPC over stdio) which hooks it discovered for the project. */
async function listHooks(ctx: ExtraCheckContext): Promise<ListedHook[]> {
  const server = startInteractive([...ctx.installed.argv, "app-server"], {
    cwd: ctx.layout.project,
    env: ctx.env,
  });
  try {
    return await new Promise<ListedHook[]>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("codex app-server did not answer hooks/list in 30 s")),
        30_000,
      );
      let buffer = "";
      let stderr = "";
      const send = (message: unknown): void => {
        server.child.stdin.write(`${JSON.stringify(message)}\n`);
      };
      server.child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      server.child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`codex app-server exited (${code}): ${stderr.trim().slice(-500)}`));
      });
      server.child.stdout.on("data", (chunk: Buffer) => {
        buffer += chunk.toString("utf8");
        for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          let message: { id?: number; result?: unknown; error?: unknown };
          try {
            message = JSON.parse(line) as typeof message;
          } catch {
            continue;
          }
          if (message.id === 1) {
            send({ method: "initialized" });
            send({ id: 2, method: "hooks/list", params: { cwds: [ctx.layout.project] } });
          } else if (message.id === 2) {
            clearTimeout(timer);
            if (message.error) {
              reject(new Error(`hooks/list failed: ${JSON.stringify(message.error)}`));
              return;
            }
            const result = message.result as { data?: { hooks?: ListedHook[] }[] } | undefined;
            resolve((result?.data ?? []).flatMap((entry) => entry.hooks ?? []));
          }
        }
      });
      send({
        id: 1,
        method: "initialize",
        params: { clientInfo: { name: "kanon-conformance", title: "kanon conformance", version: "1" } },
      });
    });
  } finally {
    server.stop();
  }
}

interface StatusView {
  /** Hook name → state, from the lines under "… will skip N hook(s) …". */
  gated: Map<string, string>;
  count: number | undefined;
  output: string;
  problem?: string;
}

async function kanonStatus(ctx: ExtraCheckContext): Promise<StatusView> {
  const status = await ctx.kanon(["status"]);
  const output = `${status.stdout}${status.stderr ? `\n${status.stderr}` : ""}`.trim().slice(0, 2000);
  const gated = new Map<string, string>();
  let count: number | undefined;
  let inSection = false;
  for (const line of status.stdout.split("\n")) {
    const header = /will skip (\d+) hook\(s\)/.exec(line);
    if (header) {
      count = (count ?? 0) + Number(header[1]);
      inSection = true;
      continue;
    }
    const entry = /^\s+(\S+) \(([A-Za-z]+)\): (.+)$/.exec(line);
    if (inSection && entry) gated.set(entry[1]!, entry[3]!);
    else if (!/^\s+\(/.test(line)) inSection = false;
  }
  if (status.timedOut) return { gated, count, output, problem: "kanon status timed out" };
  if (status.code !== 0)
    return { gated, count, output, problem: `kanon status exited ${status.code}: ${output}` };
  return { gated, count, output };
}

export async function reviewChecks(ctx: ExtraCheckContext): Promise<ExtraCheck[]> {
  const problems: string[] = [];
  const notes: string[] = [];
  const { layout, scope } = ctx;

  // 1. No trust entries: the suite's own config.toml has none, so any would come from kanon.
  for (const file of [
    join(layout.home, ".codex", "config.toml"),
    join(layout.project, ".codex", "config.toml"),
  ]) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, "utf8");
    if (/hooks\.state|trusted_hash/.test(text))
      problems.push(`hook trust entries found in ${file}: kanon must not write them`);
  }

  // 2. Codex's own view.
  const hooksFile = ctx.driver.hookFiles(layout, scope)[0] ?? "";
  let listed: ListedHook[] = [];
  try {
    listed = (await listHooks(ctx)).filter((h) => h.sourcePath === hooksFile);
    const trusted = listed.filter((h) => h.trustStatus === "trusted");
    if (listed.length !== ctx.renderedHooks.length) {
      problems.push(
        `codex discovered ${listed.length} hook(s) in ${hooksFile}; kanon.yaml has ${ctx.renderedHooks.length} for codex`,
      );
    }
    if (trusted.length > 0) problems.push(`codex already trusts ${trusted.map((h) => h.key).join(", ")}`);
    const statuses = [...new Set(listed.map((h) => h.trustStatus))].join("/");
    notes.push(
      `codex app-server: ${listed.length} hook(s) in ${scope} hooks.json, trust status ${statuses || "none"}`,
    );
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }

  // 3. kanon's view: `kanon status` lists the hooks Codex will skip, one line per hook:
  //      Codex CLI will skip 7 hook(s) for now:
  //        guard (PreToolUse): new: not reviewed yet
  const before = await kanonStatus(ctx);
  const unreported = ctx.renderedHooks.filter((hook) => !before.gated.has(hook.name));
  if (before.problem) problems.push(before.problem);
  else if (unreported.length > 0 || before.count !== ctx.renderedHooks.length) {
    problems.push(
      `kanon status reports ${before.count ?? "no"} hook(s) awaiting review; missing: ${unreported.map((h) => h.name).join(", ") || "none"}\n--- kanon status ---\n${before.output}`,
    );
  } else {
    notes.push(
      `kanon status: all ${before.count} hook(s) awaiting review (${[...new Set(before.gated.values())].join("; ")})`,
    );
  }

  // 4. Review one hook the way Codex's /hooks does (its own current hash into the user config.toml):
  //    Codex must then trust it, and kanon status must stop listing it. This proves that kanon and Codex
  //    agree on what "reviewed" means (the hash), not only on the list.
  const guard = ctx.renderedHooks.find((h) => h.name === "guard");
  const listedGuard = listed.find((h) => h.command === guard?.command);
  if (!problems.length && guard && listedGuard?.key && listedGuard.currentHash) {
    const config = join(layout.home, ".codex", "config.toml");
    appendFileSync(
      config,
      `\n[hooks.state.${JSON.stringify(listedGuard.key)}]\ntrusted_hash = ${JSON.stringify(listedGuard.currentHash)}\n`,
    );
    const relisted = (await listHooks(ctx)).find((h) => h.key === listedGuard.key);
    const after = await kanonStatus(ctx);
    if (relisted?.trustStatus !== "trusted") {
      problems.push(
        `after writing Codex's own hash for "guard", codex reports it ${relisted?.trustStatus ?? "missing"}`,
      );
    } else if (after.problem) problems.push(after.problem);
    else if (after.gated.has("guard") || after.count !== ctx.renderedHooks.length - 1) {
      problems.push(
        `after the "guard" hook was reviewed (Codex trusts it), kanon status still reports ${after.count} hook(s)${after.gated.has("guard") ? `, guard as "${after.gated.get("guard")}"` : ""}\n--- kanon status ---\n${after.output}`,
      );
    } else notes.push(`after reviewing "guard" in Codex, kanon status lists ${after.count}`);
  }

  return [
    {
      id: "review",
      ok: problems.length === 0,
      detail: problems.length > 0 ? [...problems, ...notes].join("\n") : notes.join("; "),
    },
  ];
}
