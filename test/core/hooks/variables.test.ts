/**
 * Variables an agent sets for the hooks it runs: which ones a command uses (checked against sh), and
 * the support check's answer per agent, with the agents' own manifests.
 */
import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AGENTS } from "../../../src/agents/index.js";
import { RUNNER_ENVIRONMENT } from "../../../src/core/hooks/envelope.js";
import {
  decideHook,
  type HookDecision,
  omissionError,
  omissionWarning,
} from "../../../src/core/hooks/support.js";
import { hookVariables, shellVariableUses } from "../../../src/core/hooks/variables.js";
import type { HookEntry } from "../../../src/model/config.js";
import { projectDirUnset } from "../../support/manifests.js";

const manifests = AGENTS.map((a) => a.manifest);
const variables = hookVariables(manifests);

/** Each agent's decision for `hook`, by agent id. */
function decisions(hook: HookEntry): Record<string, HookDecision> {
  return Object.fromEntries(
    manifests.map((m) => [m.id, decideHook(hook, 0, m, "user", undefined, { variables })!]),
  );
}

const rendered = (hook: HookEntry) =>
  Object.entries(decisions(hook))
    .filter(([, d]) => d.outcome !== "omitted")
    .map(([id]) => id);

describe("the variables a shell command uses", () => {
  it.each([
    ['"$CLAUDE_PROJECT_DIR"/hooks/guard.sh', ["CLAUDE_PROJECT_DIR"]],
    ["${CLAUDE_PROJECT_DIR}/hooks/guard.sh", ["CLAUDE_PROJECT_DIR"]],
    ['cd "${GEMINI_CWD%/}" && echo $A$B', ["GEMINI_CWD", "A", "B"]],
    ["echo ${A:-.} ${B-x} ${C:+y} ${D+y} ${E:=z} ${F:?unset} ${#G}", []],
    ["echo '$A' \\$B \"\\$C\" '\"$D\"'", []],
    ["echo \"'$A'\" $$ $1 $? $", ["A"]],
    ["echo $A $A ${A}", ["A"]],
  ])("%s", (command, names) => {
    expect(shellVariableUses(command)).toEqual(names);
  });

  it("are found in time linear in the command, however many `${` it leaves open or names it uses", () => {
    // 120,000 characters each: a scan to the end of the text from every `$`, or a list searched for
    // every name, takes seconds here; one pass takes a few milliseconds.
    const open = "${a".repeat(40_000);
    const many = Array.from({ length: 20_000 }, (_, i) => `$v${i}`)
      .join("")
      .padEnd(120_000, "x");
    const start = performance.now();
    expect(shellVariableUses(open)).toEqual([]);
    expect(shellVariableUses(many)).toHaveLength(20_000);
    expect(performance.now() - start).toBeLessThan(1000);
  });

  it("are the ones sh expands, however quoted fragments are put together", () => {
    // Lines of balanced fragments, each printed by one sh (10 lines a run): the variable's value
    // shows in a line's output exactly when shellVariableUses finds it there.
    const used = ["$KV", "${KV}", '"$KV"', '"${KV%/}"', `"'$KV'"`, "a$KV/"];
    const literal = ["'$KV'", "\\$KV", `'"$KV"'`, '"\\$KV"', `'a"b'`, `"a'b"`, "x", "${KV:-d}"];
    const fragment = fc.constantFrom(...used, ...literal);
    fc.assert(
      fc.property(
        fc.array(fc.array(fragment, { minLength: 1, maxLength: 4 }), { minLength: 10, maxLength: 10 }),
        (batch) => {
          const lines = batch.map((f) => f.join(" "));
          const script = lines.map((l) => `printf '%s|' ${l}; echo`).join("\n");
          const out = execFileSync("sh", ["-c", script], {
            encoding: "utf8",
            env: { PATH: process.env.PATH, KV: "MARK" },
          }).split("\n");
          lines.forEach((line, i) => {
            const withDefault = line.includes("${KV:-d}");
            const shows = out[i]!.replaceAll("MARK", "").length < out[i]!.length;
            // ${KV:-d} shows the value too, and is not a use: it says what happens without it.
            if (!withDefault) expect(shellVariableUses(line).includes("KV"), line).toBe(shows);
            else if (!shows) expect(shellVariableUses(line)).toEqual([]);
          });
        },
      ),
      { numRuns: 5 },
    );
  });
});

describe("a hook that uses a variable only some agents set", () => {
  it("is rendered for the agents that set it and left out, with the reason, for the others", () => {
    const guard: HookEntry = {
      name: "guard",
      event: "PreToolUse",
      matcher: "Bash",
      command: '"$CLAUDE_PROJECT_DIR"/hooks/guard.sh',
    };
    // Gemini CLI sets CLAUDE_PROJECT_DIR too, as an alias of its own GEMINI_PROJECT_DIR.
    expect(rendered(guard)).toEqual(["claude", "gemini"]);
    const codex = decisions(guard).codex!;
    expect(codex.missing).toEqual({
      capability: "variable $CLAUDE_PROJECT_DIR",
      detail: projectDirUnset("codex"),
    });
    expect(omissionWarning(codex)).toBe(
      `hook "guard" is not rendered for codex: variable $CLAUDE_PROJECT_DIR is not supported (${projectDirUnset("codex")})`,
    );
    const kimi = decideHook({ ...guard, targets: ["kimi"] }, 0, manifests[4]!, "user", undefined, {
      variables,
    })!;
    expect(kimi.explicit).toBe(true);
    expect(omissionError(kimi)).toBe(
      `hook "guard" targets kimi but variable $CLAUDE_PROJECT_DIR is not supported for kimi (${projectDirUnset("kimi")})`,
    );
  });

  it("names every such variable at once, each agent's own", () => {
    const hook: HookEntry = { name: "h", event: "Stop", command: 'cd "$GEMINI_CWD" && echo "$CLAUDECODE"' };
    expect(decisions(hook).claude!.missing?.capability).toBe("variable $GEMINI_CWD");
    expect(decisions(hook).gemini!.missing?.capability).toBe("variable $CLAUDECODE");
    expect(decisions(hook).codex!.missing?.capability).toBe("variables $GEMINI_CWD, $CLAUDECODE");
    expect(decisions(hook).codex!.missing?.detail).toContain(
      "does not set them for the hooks it runs; write ${GEMINI_CWD:-…}, ${CLAUDECODE:-…} if the hook can do without them",
    );
  });

  it("is rendered everywhere when each use says what happens without it, or the shell never expands it", () => {
    for (const command of [
      "${CLAUDE_PROJECT_DIR:-.}/hooks/guard.sh",
      '[ -n "${CLAUDECODE:-}" ] && echo claude',
      "echo '$CLAUDE_PROJECT_DIR' \\$GEMINI_CWD",
      "echo $MY_OWN_VARIABLE",
    ])
      expect(rendered({ name: "h", event: "Stop", command }), command).toEqual(
        manifests.filter((m) => m.hooks.events.Stop).map((m) => m.id),
      );
  });

  it("with args, is judged on its args too (a shell program expands them from the hook's environment)", () => {
    const exec: HookEntry = {
      name: "lint",
      event: "Stop",
      command: "sh",
      args: ["-c", 'exec "$CLAUDE_PROJECT_DIR/bin/lint"'],
    };
    expect(rendered(exec)).toEqual(["claude", "gemini"]);
    expect(rendered({ ...exec, command: "${CLAUDE_PROJECT_DIR}/bin/lint", args: ["--fix"] })).toEqual([
      "claude",
      "gemini",
    ]);
  });

  it("without the variables of every agent, is judged on this agent's and the runner's alone", () => {
    const hook: HookEntry = { name: "h", event: "Stop", command: "$CLAUDE_PROJECT_DIR/x $KANON_AGENT" };
    const codex = decideHook(hook, 0, manifests[0]!, "user")!;
    expect(codex.missing?.capability).toBe("variable $KANON_AGENT");
  });
});

describe("kanon's runner's variables", () => {
  const who: HookEntry = { name: "who", event: "Stop", command: 'echo "$KANON_AGENT ${KANON_SESSION_ID}"' };

  it("are set for a neutral hook in every agent", () => {
    expect(RUNNER_ENVIRONMENT).toEqual(["KANON_AGENT", "KANON_SESSION_ID"]);
    expect(rendered({ ...who, envelope: "neutral" })).toEqual(
      manifests.filter((m) => m.hooks.events.Stop).map((m) => m.id),
    );
  });

  it("leave a native hook out everywhere, saying the runner sets them", () => {
    expect(rendered(who)).toEqual([]);
    expect(decisions(who).claude!.missing).toEqual({
      capability: "variables $KANON_AGENT, $KANON_SESSION_ID",
      detail:
        "kanon's hook runner sets $KANON_AGENT, $KANON_SESSION_ID for hooks with envelope: neutral only",
    });
  });
});

describe("the manifests", () => {
  it("name each variable once, in the form a shell reads", () => {
    for (const m of manifests) {
      const names = m.hooks.environment.names;
      expect(new Set(names).size, m.id).toBe(names.length);
      for (const n of names) expect(n, m.id).toMatch(/^[A-Z_][A-Z0-9_]*$/);
    }
  });
});
