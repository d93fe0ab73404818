/**
 * What kanon leaves in a fresh HOME (issue 38): the files it renders and its own state directory
 * (`~/.local/state/kanon/`, as XDG_STATE_HOME is unset), nothing else: no cache, and nothing at all
 * for `validate`, `diff` and a refused `apply`. One suite, run in-process (test/cli/home-writes.test.ts)
 * and through the built `dist/kanon.js` (test/smoke/home-writes.test.ts), which alone shows what the
 * executable itself writes.
 */
import { cpSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";
import { type KanonSandbox, listFiles, ROOT, type Run, sandboxPerTest, snapshot } from "./cli.js";

const STATE = ".local/state/kanon/";

/** The folders below `dir`, outside kanon's state directory, that hold no file however deep. */
function emptyFolders(dir: string): string[] {
  const files = listFiles(dir);
  return Object.entries(snapshot(dir, { folders: true }))
    .filter(([rel, what]) => what === "folder" && !`${rel}/`.startsWith(STATE))
    .filter(([rel]) => !files.some((f) => f.startsWith(`${rel}/`)))
    .map(([rel]) => rel);
}

/** `run(s, args)`: `kanon ...args` in the sandbox `s`, in-process or through the built executable. */
export function homeWritesSuite(run: (s: KanonSandbox, args: string[]) => Run | Promise<Run>): void {
  const s = sandboxPerTest();
  /** `kanon --home <the Kanon home> ...args`: the Kanon home is outside HOME. */
  const k = (...args: string[]) => run(s, ["--home", s.kh, ...args]);
  const example = () => cpSync(join(ROOT, "examples/home"), s.kh, { recursive: true });

  it("validate and diff write nothing in HOME", async () => {
    example();
    expect((await k("validate")).status).toBe(0);
    const diff = await k("diff");
    expect(diff.status).toBe(0);
    expect(diff.stdout).toContain("+++ ");
    expect(snapshot(s.home, { folders: true })).toEqual({});
  });

  it("an apply refused for an unset secret writes nothing, as it says", async () => {
    s.writeHome(
      "version: 1\nmcp:\n  servers:\n    gh:\n      command: gh\n      env:\n        TOKEN: ${secret:GH_TOKEN}\n",
    );
    const r = await k("apply", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("nothing was written");
    expect(snapshot(s.home, { folders: true })).toEqual({});
  });

  it("an apply refused for a destination it cannot parse leaves HOME as it was", async () => {
    example();
    s.write(".claude/settings.json", "{ not json");
    const before = snapshot(s.home, { folders: true });
    const r = await k("apply", "--yes");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("cannot parse");
    expect(snapshot(s.home, { folders: true })).toEqual(before);
  });

  it("apply --yes of a new home writes the files diff showed and kanon's state, nothing else", async () => {
    example();
    const shown = [...(await k("diff")).stdout.matchAll(/^\+\+\+ (.+)$/gm)].map((m) =>
      relative(s.home, m[1]!),
    );
    expect(shown.length).toBeGreaterThan(10);
    expect((await k("apply", "--yes")).status).toBe(0);
    const files = listFiles(s.home);
    expect(files.filter((f) => !f.startsWith(STATE))).toEqual(shown.sort());
    expect(files.filter((f) => f.startsWith(STATE)).length).toBeGreaterThan(0);
    expect(emptyFolders(s.home)).toEqual([]);
  });

  it("apply --yes of an empty home writes kanon's state only", async () => {
    s.writeHome("version: 1\n");
    expect(await k("apply", "--yes")).toMatchObject({ status: 0, stdout: "No changes.\n" });
    expect(listFiles(s.home).filter((f) => !f.startsWith(STATE))).toEqual([]);
    expect(emptyFolders(s.home)).toEqual([]);
  });
}
