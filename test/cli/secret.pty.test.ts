/** `kanon secret set NAME` at a terminal: the value is typed at a prompt that never shows it. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sandboxPerTest } from "../support/cli.js";
import { KEYS, PtySession } from "../support/pty.js";

const s = sandboxPerTest();
let t: PtySession | undefined;
afterEach(() => {
  t?.kill();
  t = undefined;
});

const start = (...args: string[]) =>
  (t = new PtySession(["secret", ...args], {
    cwd: s.work,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: s.home, TERM: "xterm-256color" },
  }));
const store = () => join(s.home, ".local/state/kanon/secrets.json");

describe("kanon secret set at a terminal", { timeout: 60_000 }, () => {
  it("asks for the value without showing it (backspace edits it), and stores it", async () => {
    const pty = start("set", "GITHUB_TOKEN");
    await pty.waitFor("Value for GITHUB_TOKEN (not shown): ");
    pty.send("ghp_typed-valuex");
    pty.send(KEYS.backspace);
    pty.send(KEYS.enter);
    expect(await pty.exited).toBe(0);
    const screen = await pty.waitFor("Stored secret GITHUB_TOKEN");
    expect(screen).not.toContain("ghp_");
    expect(JSON.parse(readFileSync(store(), "utf8")).secrets).toEqual({ GITHUB_TOKEN: "ghp_typed-value" });
  });

  it("ctrl+c stores nothing", async () => {
    const pty = start("set", "GITHUB_TOKEN");
    await pty.waitFor("(not shown): ");
    pty.send("ghp_half");
    pty.send(KEYS.ctrlC);
    expect(await pty.exited).toBe(1);
    const screen = await pty.waitFor("cancelled; nothing was stored");
    expect(screen).not.toContain("ghp_");
    expect((await s.run(["secret", "list"])).stdout).toMatch(/^No secrets stored on this machine/);
  });
});
