/**
 * The runner kanon writes (the generated file): whatever the hook does wrong, the agent goes on (exit
 * 0, nothing delivered) and the runner's log gets one line; only a hook with --block blocks. Context
 * kept for the next prompt is delivered once. The file's `runHook` runs in this process; the last
 * tests run the file with node, as agents do.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { AGENTS } from "../../src/agents/index.js";
import { runnerText } from "../../src/runner/file.js";
import { inProcessRunner, spawnRunner } from "../support/runner.js";

const dir = mkdtempSync(join(tmpdir(), "kanon-runner-"));
const state = join(dir, "state");
const runner = join(dir, "hook-runner.mjs");
const logFile = join(state, "hooks", "runner.log");
writeFileSync(
  runner,
  runnerText(
    AGENTS.map((a) => a.manifest),
    state,
  ),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => rmSync(state, { recursive: true, force: true }));

const STDIN = JSON.stringify({
  session_id: "s-1",
  cwd: dir,
  hook_event_name: "UserPromptSubmit",
  prompt: "hi",
});

const runHook = await inProcessRunner(runner);
async function run(args: string[], input = STDIN) {
  const started = Date.now();
  const r = await runHook(args, { input, cwd: dir });
  return { ...r, ms: Date.now() - started };
}
const hook = (...rest: string[]) => [
  "claude",
  "UserPromptSubmit",
  "h",
  "--max",
  "4800",
  "--timeout",
  "10",
  ...rest,
];
const logLines = () =>
  existsSync(logFile)
    ? readFileSync(logFile, "utf8")
        .split("\n")
        .filter((l) => l)
    : [];

describe("fail open", () => {
  const cases: [string, string[], string][] = [
    ["exit 1", ["--sh", "echo partial; exit 1"], "exited 1"],
    ["exit 3", ["--sh", "exit 3"], "exited 3"],
    ["a crash", ["--", process.execPath, "-e", "throw new Error('boom')"], "exited 1"],
    ["a kill", ["--sh", "kill -9 $$"], "was killed by SIGKILL"],
    ["invalid JSON", ["--sh", "echo '{oops'"], "printed invalid JSON"],
    ["a JSON reply with a key it does not know", ["--sh", `echo '{"contxt": "a"}'`], 'an invalid "contxt"'],
    [
      "a decision that is not block or allow",
      ["--sh", `echo '{"decision": "deny"}'`],
      'an invalid "decision"',
    ],
    ["a missing executable", ["--", "/nonexistent/kanon-test-hook"], "could not start: ENOENT"],
    ["a missing command in a shell line", ["--sh", "/nonexistent/kanon-test-hook"], "exited 127"],
    [
      "exit 2 without blocking: true",
      ["--sh", "echo no >&2; exit 2"],
      "exited 2, which blocks only with blocking: true",
    ],
  ];
  for (const [what, args, line] of cases) {
    it(`${what}: exit 0, nothing delivered, one log line`, async () => {
      const r = await run(hook(...args));
      expect(r).toMatchObject({ code: 0, stdout: "", stderr: "" });
      expect(logLines()).toHaveLength(1);
      expect(logLines()[0]).toMatch(/^\S+ claude UserPromptSubmit "h": /);
      expect(logLines()[0]).toContain(line);
    });
  }

  it("a timeout: stopped before the agent's deadline, exit 0, one log line", async () => {
    const r = await run(["claude", "Stop", "slow", "--max", "100", "--timeout", "1", "--sh", "sleep 10"]);
    expect(r).toMatchObject({ code: 0, stdout: "" });
    expect(r.ms).toBeLessThan(5000);
    expect(logLines()).toEqual([
      expect.stringContaining('claude Stop "slow": timed out after 0.8 s and was stopped'),
    ]);
  });

  it("stdin that is not JSON: the hook still runs, with native null", async () => {
    const out = join(dir, "envelope.json");
    const r = await run(hook("--sh", `cat > '${out}'`), "not json");
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(out, "utf8"))).toMatchObject({ native: null, session_id: null });
    expect(logLines()).toEqual([expect.stringContaining("the agent's stdin is not JSON")]);
  });

  it("a command line kanon did not write: exit 0 and a line", async () => {
    expect((await run(["claude"])).code).toBe(0);
    expect((await run(["claude", "Stop", "x", "--bogus"])).code).toBe(0);
    expect(logLines()).toHaveLength(2);
    expect(logLines()[1]).toContain('ignored a call it cannot read: unknown argument "--bogus"');
  });

  it("the log never holds the hook's output, and is rotated at 256 KiB", async () => {
    await run(hook("--sh", "echo SECRET-OUTPUT; echo SECRET-ERR >&2; exit 1"));
    expect(readFileSync(logFile, "utf8")).not.toMatch(/SECRET/);
    writeFileSync(logFile, "x".repeat(300 * 1024));
    await run(hook("--sh", "exit 4"));
    expect(statSync(`${logFile}.1`).size).toBe(300 * 1024);
    expect(logLines()).toEqual([expect.stringContaining("exited 4")]);
  });
});

describe("blocking", () => {
  it("with --block, exit 2 blocks: exit 2 and the hook's stderr as the reason", async () => {
    const r = await run(hook("--block", "--sh", "echo 'not this prompt' >&2; exit 2"));
    expect(r).toMatchObject({ code: 2, stdout: "", stderr: "not this prompt\n" });
  });

  it('with --block, {"decision": "block"} blocks with its reason', async () => {
    const r = await run(hook("--block", "--sh", `echo '{"decision": "block", "reason": "r"}'`));
    expect(r).toMatchObject({ code: 2, stderr: "r\n" });
  });

  it("without --block, a decision to block is ignored and its context delivered", async () => {
    const r = await run(hook("--sh", `echo '{"decision": "block", "context": "c"}'`));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toBe("c");
    expect(logLines()).toEqual([
      expect.stringContaining("asked to block, which it does only with blocking: true"),
    ]);
  });
});

describe("context kept for the next prompt", () => {
  const kimi = (event: string, session: string, ...rest: string[]) =>
    run(
      ["kimi", event, "h", "--max", "4800", "--timeout", "10", ...rest],
      JSON.stringify({ session_id: session }),
    );

  it("is delivered once, to the same session, by the carry built-in", async () => {
    expect((await kimi("SessionStart", "s-1", "--sh", "echo anchored")).stdout).toBe("");
    expect((await kimi("PostCompact", "s-1", "--sh", "echo compacted")).stdout).toBe("");
    expect((await kimi("UserPromptSubmit", "s-2", "--builtin", "carry")).stdout).toBe("");
    expect((await kimi("UserPromptSubmit", "s-1", "--builtin", "carry")).stdout).toBe(
      "anchored\n\ncompacted",
    );
    expect((await kimi("UserPromptSubmit", "s-1", "--builtin", "carry")).stdout).toBe("");
    expect(logLines()).toEqual([]);
  });

  it("is not kept without a session id, and says so", async () => {
    const r = await run(
      ["kimi", "SessionStart", "h", "--max", "10", "--timeout", "10", "--sh", "echo x"],
      "{}",
    );
    expect(r.stdout).toBe("");
    expect(logLines()).toEqual([expect.stringContaining("the agent sent no session id")]);
  });
});

describe("the file run by node, as agents run it", () => {
  const node = (args: string[], input = STDIN) => spawnRunner(runner, args, { input, cwd: dir });

  it("reads the agent's stdin and replies on stdout, exit 0", () => {
    const r = node(hook("--sh", `cat > /dev/null; echo '{"context": "c"}'`));
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toBe("c");
  });

  it("a hook that fails: exit 0, nothing printed, one log line", () => {
    expect(node(hook("--sh", "echo partial; exit 1"))).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(logLines()).toEqual([expect.stringContaining("exited 1")]);
  });

  it("with --block, exit 2 is the runner's exit status, the reason on stderr", () => {
    const r = node(hook("--block", "--sh", "echo 'not this prompt' >&2; exit 2"));
    expect(r).toEqual({ code: 2, stdout: "", stderr: "not this prompt\n" });
  });

  it("a command line kanon did not write: exit 0 and a line", () => {
    expect(node(["claude", "Stop", "x", "--bogus"])).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(logLines()).toEqual([
      expect.stringContaining('ignored a call it cannot read: unknown argument "--bogus"'),
    ]);
  });
});
