/**
 * Gemini CLI expands `$NAME`, `${NAME}` and `${NAME:-default}` in every settings string when it loads
 * settings.json, before bash runs a hook's command. kanon rewrites commands so that bash still sees
 * exactly what kanon.yaml says. These tests run the rewritten command through a copy of Gemini's
 * expansion (test/support/agent-hooks.ts: its regex and rule, set variables are replaced, unset ones
 * stay) and then through bash.
 */
import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commandLine, protectFromExpansion } from "../../../src/core/hooks/quote.js";
import { geminiExpand } from "../../support/agent-hooks.js";

const ENV = { HOME: "/home/u", X: "a b;echo injected", EMPTY: "" };

function bash(command: string): string {
  return execFileSync("bash", ["-c", command], { encoding: "utf8", env: { PATH: process.env.PATH, ...ENV } });
}

function protect(command: string): string {
  const r = protectFromExpansion(command);
  if ("problem" in r) throw new Error(r.problem);
  return r.command;
}

describe("protecting a hook command from Gemini's settings expansion", () => {
  it.each([
    [`echo "$HOME" '$HOME' \\$HOME "\\$X" \${X:-d} "\${HOME}"`],
    [`printf '%s|' "$X" $X`],
    [`echo a$HOME$X'$'"$"`],
    [`echo \${UNSET:-fallback} "$1"`],
  ])("bash sees the original: %s", (command) => {
    const written = protect(command);
    expect(written).not.toMatch(/\$[\w{]/);
    expect(bash(geminiExpand(written, ENV))).toBe(bash(command));
  });

  it("leaves a command without $NAME as it is", () => {
    expect(protectFromExpansion("echo started 2>>/tmp/log $ $$ $?")).toEqual({
      command: "echo started 2>>/tmp/log $ $$ $?",
    });
  });

  it("round-trips any argv quoted by kanon (args), $ and backquotes included", () => {
    // 40 argv lists, as when each was one run: 4 runs of 10, each run's lines one bash script per
    // side (a bash started from the test's process costs ~10 ms of CPU here, most of this test's
    // time). Every line prints, so one line that bash reads otherwise changes the script's output.
    const args = fc.array(fc.stringMatching(/^[a-zA-Z0-9 $'"`{}()\\;|&*?:-]{0,12}$/), { maxLength: 4 });
    fc.assert(
      fc.property(fc.array(args, { minLength: 10, maxLength: 10 }), (batch) => {
        const lines = batch.map((a) => commandLine(["printf", "%s\\n", ...a]));
        const written = lines.map(protect);
        for (const w of written) expect(w).not.toMatch(/\$[\w{]/);
        expect(bash(written.map((w) => geminiExpand(w, ENV)).join("\n"))).toBe(bash(lines.join("\n")));
      }),
      { numRuns: 4 },
    );
  });

  it.each([
    ["echo `echo $HOME`", '"`"'],
    ["echo $(echo $HOME)", '"$("'],
    ["cat <<EOF\n$HOME\nEOF", '"<<"'],
    ["echo hi # $HOME", '"#"'],
    ["echo '$HOME", "unterminated single quote"],
  ])("refuses what it cannot follow: %s", (command, reason) => {
    const r = protectFromExpansion(command);
    expect("problem" in r && r.problem).toContain(reason);
  });
});
