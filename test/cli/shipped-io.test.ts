/**
 * What ships runs what is tested: the built dist/kanon.js does its file I/O through the same Node
 * functions as src/ does in vitest (the build swaps no module for another). The same `apply --yes`
 * is traced in both, by counting the asynchronous file-system requests Node makes (async_hooks): the
 * counts of each kind are the same, and not zero.
 */

import { createHook } from "node:async_hooks";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { KANON, ROOT, sandboxEnv } from "../support/cli.js";

const base = mkdtempSync(join(tmpdir(), "kanon-shipped-io-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const kh = join(base, "kanon-home");
cpSync(join(ROOT, "examples/home"), kh, { recursive: true });

const FS_REQUEST = /^FSREQ/;
const TRACER = `
const counts = {};
require("node:async_hooks").createHook({
  init(id, type) { if (${FS_REQUEST}.test(type)) counts[type] = (counts[type] ?? 0) + 1; },
}).enable();
process.on("exit", () => require("node:fs").writeFileSync(process.env.KANON_IO_TRACE, JSON.stringify(counts)));
`;

class Discard extends Writable {
  override _write(_chunk: unknown, _enc: BufferEncoding, done: () => void): void {
    done();
  }
}

const freshHome = (name: string) => {
  const home = join(base, name);
  mkdirSync(home);
  return home;
};

/** `kanon apply --yes` of the example home in src/, in this process: its file-system requests. */
async function inProcess(home: string): Promise<{ status: number; counts: Record<string, number> }> {
  const counts: Record<string, number> = {};
  const hook = createHook({
    init(_id, type) {
      if (FS_REQUEST.test(type)) counts[type] = (counts[type] ?? 0) + 1;
    },
  });
  const io = {
    stdout: new Discard(),
    stderr: new Discard(),
    stdin: process.stdin,
    env: { PATH: process.env.PATH, NO_COLOR: "1" },
    cwd: base,
    userHome: home,
  };
  hook.enable();
  try {
    const status = await main(["--home", kh, "apply", "--yes"], io);
    return { status, counts };
  } finally {
    hook.disable();
  }
}

it("the built kanon makes the file-system requests the tested code makes", async () => {
  // A first run loads every module the command imports (vitest reads their files), outside the trace.
  expect((await inProcess(freshHome("warm"))).status).toBe(0);
  const tested = await inProcess(freshHome("tested"));
  expect(tested.status).toBe(0);

  const tracer = join(base, "tracer.cjs");
  const trace = join(base, "trace.json");
  writeFileSync(tracer, TRACER);
  const shippedHome = freshHome("shipped");
  const r = spawnSync(process.execPath, ["-r", tracer, KANON, "--home", kh, "apply", "--yes"], {
    encoding: "utf8",
    env: sandboxEnv(shippedHome, { KANON_IO_TRACE: trace, NO_COLOR: "1" }),
  });
  expect(r.status, r.stderr).toBe(0);
  const shipped = JSON.parse(readFileSync(trace, "utf8"));

  expect(tested.counts.FSREQPROMISE).toBeGreaterThan(0);
  expect(shipped).toEqual(tested.counts);
});
