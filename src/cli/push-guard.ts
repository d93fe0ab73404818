/**
 * What `kanon push` would send, scanned for plaintext secrets before it is sent: every line added by
 * the commits that no remote has yet (HEAD not reachable from any remote-tracking branch; all of
 * HEAD for a home never pushed). A finding names the file and line and the commit, never the value.
 */
import { lineSecret } from "../core/secrets.js";
import { KanonError } from "../model/types.js";
import type { Io } from "./context.js";
import { git, gitReason } from "./home-git.js";

export interface PushFinding {
  /** `kanon.yaml:12`, the line in that commit's version of the file. */
  where: string;
  what: string;
  commit: string;
}

export async function secretsToPush(home: string, io: Io): Promise<PushFinding[]> {
  const log = await git(
    [
      "-C",
      home,
      "-c",
      "core.quotePath=false",
      "log",
      "-p",
      "--no-color",
      "--no-ext-diff",
      "--no-textconv",
      "--unified=0",
      "--format=%x00commit %h",
      "HEAD",
      "--not",
      "--remotes",
    ],
    { io },
  );
  if (log.failure) {
    // No commit yet: git push has nothing to send either (it says so itself). Asked only when the log
    // fails: a git process less for every push of a home that has commits.
    const head = await git(["-C", home, "rev-parse", "--verify", "--quiet", "HEAD"], { io });
    if (head.failure) return [];
    throw new KanonError(`git log: ${log.failure}: ${gitReason(log.output)}`);
  }
  const findings: PushFinding[] = [];
  let commit = "";
  let file: string | null = null;
  let line = 0;
  for (const text of log.stdout.split("\n")) {
    if (text.startsWith("\u0000commit ")) {
      commit = text.slice("\u0000commit ".length);
      file = null;
      continue;
    }
    if (text.startsWith("+++ ")) {
      // `+++ b/path`, or /dev/null for a deleted file.
      file =
        text === "+++ /dev/null"
          ? null
          : text
              .slice(4)
              .replace(/^b\//, "")
              .replace(/^"(.*)"$/, "$1");
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (hunk) {
      line = Number(hunk[1]);
      continue;
    }
    if (file === null || text.startsWith("---")) continue;
    if (text.startsWith("+")) {
      const what = lineSecret(text.slice(1), file);
      if (what && !findings.some((f) => f.where === `${file}:${line}` && f.commit === commit))
        findings.push({ where: `${file}:${line}`, what, commit });
      line++;
    }
  }
  return findings;
}

/** The error `kanon push` stops with: each finding on its line, and the ways forward. */
export function pushRefusal(findings: readonly PushFinding[]): KanonError {
  const lines = findings.map((f) => `  ${f.where}: ${f.what} (commit ${f.commit})`);
  return new KanonError(
    [
      `refusing to push ${findings.length === 1 ? "a plaintext secret" : `${findings.length} plaintext secrets`} in the Kanon home; nothing was pushed:`,
      ...lines,
      "Move each value into this machine's secret store (kanon secret set NAME, then ${secret:NAME} in kanon.yaml) and take it out of those commits (git commit --amend, or git rebase -i), or push anyway with kanon push --allow-secrets.",
    ].join("\n"),
  );
}
