/**
 * What `kanon ui` needs from the rest of kanon (plan, apply, diffs, git), made by the command in the
 * CLI bundle and handed to the terminal UI (app.tsx), whose chunk then holds only Ink, React and the
 * screen: one copy of kanon's modules and of their state per run, compiled once. Measured (Node
 * 20.20, valgrind): importing the UI chunk 1,159 M -> 1,017 M instructions (915 KB -> 395 KB); with
 * the synchronous yoga load (scripts/build.mjs) and the source panel's git read after the change
 * list (model.ts), `kanon ui` on the large home until its change list 6.42 G -> 5.77 G (mean of 2
 * runs each, measured when kanon still kept a code cache, since removed; Node 22.23: 5.18 G -> 4.88 G).
 */
import { Writable } from "node:stream";
import type { MachineFlags } from "../../import/machine.js";
import { type GlobalFlags, type Io, references } from "../context.js";
import { branchState, git } from "../home-git.js";
import { pathsOf } from "../pipeline.js";
import { secretsToPush } from "../push-guard.js";
import { type PaneLine, paneLines } from "./diff-pane.js";
import { type AgentRow, type Event, firstLine, type Mode, type SourceState } from "./model.js";
import { agentRows, applyReviewer, importReviewer, type Reviewed, type Reviewer } from "./review.js";

export interface UiHost {
  reviewers: Record<Mode, Reviewer>;
  /** The agents panel before the first plan: every agent, those of `--agent` active. */
  agents: AgentRow[];
  /** The diff pane's lines for a reviewed change. */
  diffLines(change: Reviewed): PaneLine[];
  /** `git pull --ff-only` or (after the secret scan of kanon push) `git push` in the Kanon home. */
  git(op: "pull" | "push"): Promise<Extract<Event, { type: "git-done" | "git-failed" }>>;
  /** The Kanon home's git state for the source panel. */
  source(): Promise<SourceState>;
}

export function uiHost(flags: GlobalFlags, machine: MachineFlags, io: Io): UiHost {
  const home = pathsOf(flags, io).home;
  // For git: its stderr is not the terminal, so git never prompts over the screen.
  const gitIo = quietGitIo(io);
  return {
    reviewers: { apply: applyReviewer(flags, io), import: importReviewer(flags, machine, io) },
    agents: agentRows(flags.agent),
    // Values from the secret store show as their references, as in kanon diff.
    diffLines: (change) =>
      change
        .parts()
        .flatMap(paneLines)
        .map((l) => ({ ...l, text: references(io, l.text) })),
    async git(op) {
      const args = op === "pull" ? ["pull", "--ff-only"] : ["push"];
      if (op === "push") {
        // As kanon push: what would leave is scanned first.
        const findings = await secretsToPush(home, gitIo).catch(() => []);
        if (findings.length > 0) {
          return {
            type: "git-failed",
            message: `not pushed: a plaintext secret at ${findings.map((f) => f.where).join(", ")}; kanon push names it and the ways forward`,
          };
        }
      }
      const r = await git(["-C", home, ...args], { io: gitIo });
      return r.failure === null
        ? { type: "git-done", op, output: r.output }
        : {
            type: "git-failed",
            message: `git [${args.join(" ")}]: ${r.failure}${firstLine(r.output) ? `: ${firstLine(r.output)}` : ""}`,
          };
    },
    async source() {
      const s = await branchState(home, gitIo);
      if ("error" in s) return { kind: "unavailable" };
      return s.changes.length === 0 ? { kind: "clean" } : { kind: "dirty", short: s.changes.join("\n") };
    },
  };
}

/** The Io git runs with: output captured, never a terminal (no prompts drawn over the screen). */
function quietGitIo(io: Io): Io {
  const stderr = new Writable({ write: (_c, _e, done) => done() });
  return { ...io, stderr };
}
