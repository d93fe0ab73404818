/**
 * Context carried to the next prompt, as the agents run the rendered hooks (test/support/agent-hooks.ts):
 * kanon/carry delivers each carried hook's context whole up to that hook's own bound, however many
 * are carried together, and cuts only what is past a bound.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { type HookRun, hookSandbox, runEvent } from "../support/agent-hooks.js";

const h = hookSandbox();

/** `printf` of two lines that make `n` characters together (the newline between them included). */
const exactly = (n: number, a: string, b: string) =>
  `printf '%s\\n%s\\n' ${a.repeat(Math.floor((n - 1) / 2))} ${b.repeat(Math.ceil((n - 1) / 2))}`;
const context = (n: number, a: string, b: string) =>
  `${a.repeat(Math.floor((n - 1) / 2))}\n${b.repeat(Math.ceil((n - 1) / 2))}`;

// Kimi Code takes no context at SessionStart: the runner keeps both for the first prompt.
const HOME = `version: 1
agents: [kimi]
hooks_envelope: neutral
hooks:
  - name: first
    event: SessionStart
    max_output_chars: 60
    command: ${exactly(60, "a", "b")}
  - name: second
    event: SessionStart
    max_output_chars: 41
    command: ${exactly(41, "c", "d")}
`;

beforeAll(async () => {
  const apply = await h.apply(HOME);
  expect(apply, apply.stderr).toMatchObject({ status: 0, stderr: "" });
});

function run(event: string, session: string): Promise<HookRun[]> {
  return runEvent("kimi", h.hooks("kimi"), event, "startup", h.call("kimi", event, { session_id: session }));
}

describe("kanon/carry", () => {
  it("delivers two contexts, each exactly at its bound, whole and once", async () => {
    const start = await run("SessionStart", "session_whole");
    expect(start.map((r) => [r.name, r.code, r.stdout])).toEqual([
      ["first", 0, ""],
      ["second", 0, ""],
    ]);
    const carried = async () =>
      (await run("UserPromptSubmit", "session_whole")).filter((r) => r.name === "kanon/carry");
    const [carry] = await carried();
    expect(carry).toMatchObject({ code: 0, stderr: "" });
    // Kimi starts both hooks at once: either may have kept its context first.
    expect(carry!.stdout).toHaveLength(60 + 2 + 41);
    expect(carry!.stdout.split("\n\n").sort()).toEqual([context(60, "a", "b"), context(41, "c", "d")]);
    expect((await carried()).map((r) => r.stdout)).toEqual([""]);
  });
});
