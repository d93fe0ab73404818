/**
 * The waypoint store: revisions grow by one on every write, writers in several processes lose
 * nothing, a file kanon cannot read is refused, the projection is used only at its revision, and a
 * stale lock left by a dead writer is broken.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { withLock } from "../../src/continuity/lock.js";
import {
  clearWaypoint,
  isEmpty,
  projectedPosition,
  readWaypoint,
  writerFromEnv,
  writeWaypoint,
} from "../../src/continuity/waypoint.js";
import { deadPid } from "../support/dead-pid.js";
import { projectPerTest, runWorkers } from "./helpers.js";

const p = projectPerTest();
const cli = { agent: null, session: null };

describe("waypoint store", () => {
  it("writes revision 1, then one more on every write, keeping the fields a write leaves out", () => {
    expect(readWaypoint(p.files)).toBeNull();
    const first = writeWaypoint(p.files, () => ({ path: ["phase-1", "plan"], next: "write the plan" }), cli);
    expect(first).toMatchObject({ schema: 1, revision: 1, path: ["phase-1", "plan"], status: null });
    const second = writeWaypoint(p.files, () => ({ status: "in progress" }), {
      agent: "codex",
      session: "s1",
    });
    expect(second).toMatchObject({
      revision: 2,
      path: ["phase-1", "plan"],
      next: "write the plan",
      status: "in progress",
      writer: { agent: "codex", session: "s1" },
    });
    expect(Date.parse(second.updatedAt)).toBeGreaterThanOrEqual(Date.parse(first.updatedAt));
    expect(readWaypoint(p.files)).toEqual(second);
    expect(JSON.parse(readFileSync(p.files.waypoint, "utf8"))).toEqual(second);
  });

  it("clears with a new revision, so a revision is never used twice", () => {
    writeWaypoint(p.files, () => ({ next: "a" }), cli);
    const cleared = clearWaypoint(p.files, cli);
    expect(cleared.revision).toBe(2);
    expect(isEmpty(cleared)).toBe(true);
    expect(writeWaypoint(p.files, () => ({ next: "b" }), cli).revision).toBe(3);
  });

  it("keeps keys it does not know", () => {
    writeWaypoint(p.files, () => ({ next: "a" }), cli);
    const raw = JSON.parse(readFileSync(p.files.waypoint, "utf8"));
    writeFileSync(p.files.waypoint, JSON.stringify({ ...raw, team: "blue" }));
    writeWaypoint(p.files, () => ({ next: "b" }), cli);
    expect(JSON.parse(readFileSync(p.files.waypoint, "utf8"))).toMatchObject({ team: "blue", next: "b" });
  });

  it("takes the writer from KANON_AGENT and KANON_SESSION_ID", () => {
    expect(writerFromEnv({ KANON_AGENT: "kimi", KANON_SESSION_ID: "abc" })).toEqual({
      agent: "kimi",
      session: "abc",
    });
    expect(writerFromEnv({})).toEqual({ agent: null, session: null });
  });

  it.each([
    ["not JSON", "{", /waypoint\.json: not valid JSON .*; fix it or delete it/],
    ["not an object", "[]", /not a JSON object/],
    ["a newer schema", '{"schema": 2}', /schema 2 is newer than this kanon reads \(1\)/],
    ["a wrong field", '{"schema":1,"revision":"7"}', /not a kanon waypoint \(schema 1\)/],
  ])("refuses a waypoint.json that is %s, and does not replace it", (_, text, message) => {
    mkdirSync(p.files.dir, { recursive: true });
    writeFileSync(p.files.waypoint, text);
    expect(() => readWaypoint(p.files)).toThrow(message);
    expect(() => writeWaypoint(p.files, () => ({ next: "x" }), cli)).toThrow(message);
    expect(readFileSync(p.files.waypoint, "utf8")).toBe(text);
    expect(existsSync(p.files.waypointLock)).toBe(false);
  });

  it("refuses a waypoint.json larger than 1 MiB", () => {
    mkdirSync(p.files.dir, { recursive: true });
    writeFileSync(p.files.waypoint, " ".repeat(1024 * 1024 + 1));
    expect(() => readWaypoint(p.files)).toThrow(
      `read ${p.files.waypoint}: is larger than kanon reads (1 MiB; at most 1 MiB)`,
    );
  });

  it("refuses a waypoint.json that is a symbolic link, a FIFO or a folder", () => {
    mkdirSync(p.files.dir, { recursive: true });
    symlinkSync("/etc/hostname", p.files.waypoint);
    expect(() => readWaypoint(p.files)).toThrow(`read ${p.files.waypoint}: is a symbolic link`);
    rmSync(p.files.waypoint);
    spawnSync("mkfifo", [p.files.waypoint]);
    expect(() => readWaypoint(p.files)).toThrow(`read ${p.files.waypoint}: is a FIFO, not a regular file`);
    rmSync(p.files.waypoint);
    mkdirSync(p.files.waypoint);
    expect(() => readWaypoint(p.files)).toThrow(
      `read ${p.files.waypoint}: is a directory, not a regular file`,
    );
  });

  it("leaves no temporary file behind", () => {
    for (let i = 0; i < 5; i++) writeWaypoint(p.files, () => ({ next: `n${i}` }), cli);
    expect(readdirSync(p.files.dir).sort()).toEqual(["position.txt", "waypoint.json"]);
  });
});

describe("position.txt", () => {
  it("names the revision it was made from and is written with every revision", () => {
    const w = writeWaypoint(p.files, () => ({ path: ["a", "b"], status: "ok", next: "go" }), cli);
    expect(readFileSync(p.files.position, "utf8")).toBe(
      "kanon position of waypoint revision 1\nkanon waypoint r1: a > b | ok | next: go\n",
    );
    expect(projectedPosition(p.files, w)).toBe("kanon waypoint r1: a > b | ok | next: go");
  });

  it("is used as written when its revision matches", () => {
    const w = writeWaypoint(p.files, () => ({ next: "go" }), cli);
    writeFileSync(p.files.position, "kanon position of waypoint revision 1\nthe projection's own words\n");
    expect(projectedPosition(p.files, w)).toBe("the projection's own words");
  });

  it("is made again when its revision is not the waypoint's, however new the file is", () => {
    writeWaypoint(p.files, () => ({ next: "old" }), cli);
    const stale = readFileSync(p.files.position, "utf8");
    const w = writeWaypoint(p.files, () => ({ next: "new" }), cli);
    writeFileSync(p.files.position, stale);
    // A newer modification time says nothing about the revision.
    const future = new Date(Date.now() + 3600_000);
    utimesSync(p.files.position, future, future);
    expect(projectedPosition(p.files, w)).toBe("kanon waypoint r2: (no path) | next: new");
    expect(readFileSync(p.files.position, "utf8")).toMatch(/^kanon position of waypoint revision 2\n/);
  });

  it.each([
    ["missing", null],
    ["empty", ""],
    ["damaged", "garbage\n"],
  ])("is made again when %s", (_, text) => {
    const w = writeWaypoint(p.files, () => ({ next: "go" }), cli);
    if (text === null) unlinkSync(p.files.position);
    else writeFileSync(p.files.position, text);
    expect(projectedPosition(p.files, w)).toBe("kanon waypoint r1: (no path) | next: go");
    expect(readFileSync(p.files.position, "utf8")).toContain("revision 1\n");
  });
});

describe("writers in several processes", () => {
  it("lose nothing and never share a revision", async () => {
    const processes = 4;
    const writes = 25;
    const revisions = await runWorkers(processes, (i) => ["write", p.dir, `w${i}`, String(writes)]);
    const all = revisions.flat().map(Number);
    // Every revision from 1 to the total, each written once.
    expect(all.sort((a, b) => a - b)).toEqual(Array.from({ length: processes * writes }, (_, i) => i + 1));
    // Each process saw its own revisions grow.
    for (const own of revisions) {
      const nums = own.map(Number);
      expect(nums).toEqual([...nums].sort((a, b) => a - b));
    }
    const w = readWaypoint(p.files)!;
    expect(w.revision).toBe(processes * writes);
    // Every read-modify-write kept what the others had appended.
    const tokens = w.why!.split(" ");
    expect(tokens).toHaveLength(processes * writes);
    for (let i = 0; i < processes; i++)
      for (let k = 0; k < writes; k++) expect(tokens).toContain(`w${i}-${k}`);
    expect(readdirSync(p.files.dir).sort()).toEqual(["position.txt", "waypoint.json"]);
  }, 60_000);
});

describe("the lock", () => {
  it("breaks a lock whose process is gone", () => {
    mkdirSync(p.files.dir, { recursive: true });
    writeFileSync(p.files.waypointLock, `${deadPid()} ${hostname()} deadbeef ${Date.now()}\n`);
    expect(writeWaypoint(p.files, () => ({ next: "after a crash" }), cli).revision).toBe(1);
    expect(existsSync(p.files.waypointLock)).toBe(false);
  });

  it("breaks a lock older than 30 s, even when its pid is alive", () => {
    mkdirSync(p.files.dir, { recursive: true });
    writeFileSync(p.files.waypointLock, `${process.ppid} ${hostname()} deadbeef ${Date.now() - 31_000}\n`);
    expect(writeWaypoint(p.files, () => ({ next: "x" }), cli).revision).toBe(1);
  });

  it("breaks an empty lock file after 2 s (its writer died before writing it)", () => {
    mkdirSync(p.files.dir, { recursive: true });
    writeFileSync(p.files.waypointLock, "");
    const old = new Date(Date.now() - 3000);
    utimesSync(p.files.waypointLock, old, old);
    expect(writeWaypoint(p.files, () => ({ next: "x" }), cli).revision).toBe(1);
  });

  it("waits for a live lock, and names its holder when the wait is over", () => {
    mkdirSync(p.files.dir, { recursive: true });
    writeFileSync(p.files.waypointLock, `${process.ppid} ${hostname()} cafe ${Date.now()}\n`);
    expect(() => withLock(p.files.waypointLock, () => 1, 200)).toThrow(
      new RegExp(
        `waypoint\\.lock is held by process ${process.ppid} on .* since .*; if no kanon command or hook is running, delete it`,
      ),
    );
    expect(readFileSync(p.files.waypointLock, "utf8")).toContain("cafe");
  });

  it("is held by one process at a time: a writer waits until the holder is done", async () => {
    const { files } = p;
    mkdirSync(files.dir, { recursive: true });
    const holder = spawn(process.execPath, ["-e", holdScript(files.waypointLock, 400)], { stdio: "pipe" });
    await new Promise<void>((resolve) => holder.stdout.once("data", () => resolve()));
    const started = Date.now();
    expect(writeWaypoint(files, () => ({ next: "x" }), cli).revision).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await new Promise((resolve) => holder.once("close", resolve));
  });
});

/** A process that takes the lock as kanon does (O_EXCL, owner line) and holds it for `ms`. */
function holdScript(lock: string, ms: number): string {
  return `
const fs = require("node:fs");
const os = require("node:os");
const owner = process.pid + " " + os.hostname() + " hold " + Date.now() + "\\n";
const fd = fs.openSync(${JSON.stringify(lock)}, "wx");
fs.writeFileSync(fd, owner);
fs.closeSync(fd);
process.stdout.write("held\\n");
setTimeout(() => fs.unlinkSync(${JSON.stringify(lock)}), ${ms});
`;
}
