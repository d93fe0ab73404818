import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, sandbox } from "../support/cli.js";
import { KEYS, PtySession } from "../support/pty.js";

let s: Sandbox;
let kh: string;
let ui: PtySession | undefined;
beforeEach(() => {
  s = sandbox();
  kh = join(s.work, "kanon-home");
  mkdirSync(join(kh, "instructions"), { recursive: true });
  writeFileSync(
    join(kh, "kanon.yaml"),
    "version: 1\ninstructions:\n  files: [instructions/shared.md]\nmcp:\n  servers:\n    github:\n      command: github-mcp\n",
  );
  writeFileSync(join(kh, "instructions/shared.md"), "Shared rules\n");
});
afterEach(() => {
  ui?.kill();
  ui = undefined;
  s.cleanup();
});

const env = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: s.home, TERM: "xterm-256color" });
const start = (args: string[] = [], options: { cols?: number; rows?: number } = {}) => {
  ui = new PtySession(["--home", kh, "ui", ...args], { cwd: s.work, env: env(), ...options });
  return ui;
};

describe("kanon ui in a terminal", () => {
  it("lists the pending changes", async () => {
    const t = start();
    const screen = await t.waitFor("Apply Changes");
    console.log(screen);
    await t.waitFor("~/.codex/AGENTS.md");
    console.log(t.screen());
    t.send(KEYS.down);
    await new Promise((r) => setTimeout(r, 300));
    console.log(t.screen());
    t.send("q");
    expect(await t.exited).toBe(0);
  });
});
