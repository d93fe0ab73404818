/**
 * The speed budgets, checked loosely (scripts/bench-opencode-plugin.mjs prints the figures):
 * a tool call that matches no hook costs under 0.2 ms in the plugin, and a matching hook adds under
 * 5 ms to the hook process itself.
 */
import { spawn } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { loadPlugin, removeTempDirs, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function ms(fn: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

describe("plugin speed", () => {
  it("a tool call that matches no hook costs well under 0.2 ms", async () => {
    const { plugin } = await loadPlugin([
      { name: "a", event: "PreToolUse", matcher: { names: ["edit", "write"] }, command: "true" },
      { name: "b", event: "PreToolUse", matcher: { regex: "^(Read|Glob)$" }, command: "true" },
    ]);
    const preTool = (await plugin.server({ directory: tempDir() }))["tool.execute.before"]!;
    const n = 20_000;
    const total = await ms(async () => {
      for (let i = 0; i < n; i++) await preTool({ tool: "bash", sessionID: "s", callID: "c" }, { args: {} });
    });
    expect(total / n).toBeLessThan(0.2);
  });

  it("a matching hook adds under 5 ms to the hook process", async () => {
    const dir = tempDir();
    const { plugin } = await loadPlugin([
      { name: "t", event: "PreToolUse", matcher: { names: ["bash"] }, command: "true" },
    ]);
    const preTool = (await plugin.server({ directory: dir }))["tool.execute.before"]!;
    const bare = () =>
      new Promise((resolve) => {
        const c = spawn("/bin/sh", ["-c", "true"], {
          cwd: dir,
          stdio: ["pipe", "pipe", "pipe"],
          detached: true,
        });
        c.stdout.resume();
        c.stderr.resume();
        c.on("close", resolve);
        c.stdin.on("error", () => {});
        c.stdin.end("{}\n");
      });
    const viaPlugin = () => preTool({ tool: "bash", sessionID: "s", callID: "c" }, { args: {} });
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < 40; i++) {
      a.push(await ms(bare));
      b.push(await ms(viaPlugin));
    }
    expect(median(b) - median(a)).toBeLessThan(5);
  });
});
