/**
 * kanon's built-in continuity hooks as the runner calls them: the pause marker first, the re-anchor
 * block and position line failing open, and Stop's reminder.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  pauseFirst,
  pauseReason,
  positionContext,
  reanchorContext,
  stopAdvisory,
} from "../../src/continuity/builtin.js";
import { writeWaypoint } from "../../src/continuity/waypoint.js";
import { projectPerTest } from "./helpers.js";

const p = projectPerTest();
const cli = { agent: null, session: null };
const git = () => mkdirSync(join(p.dir, ".git"));
const facts = (session: string | null = "s-1") => ({ cwd: join(p.dir, "src"), agent: "codex", session });

describe("pause on interrupt", () => {
  it("writes .kanon/PAUSE at the project root, then adds the reason", () => {
    git();
    mkdirSync(join(p.dir, "src"));
    mkdirSync(join(p.dir, ".kanon"));
    const files = pauseFirst(join(p.dir, "src"), "kimi");
    expect(files?.root).toBe(p.dir);
    const first = JSON.parse(readFileSync(join(p.dir, ".kanon/PAUSE"), "utf8"));
    expect(first).toEqual({ requestedAt: expect.any(String), reason: null, agent: "kimi" });
    pauseReason(files!, "cancelled");
    expect(JSON.parse(readFileSync(join(p.dir, ".kanon/PAUSE"), "utf8"))).toEqual({
      ...first,
      reason: "cancelled",
    });
  });

  it("writes the marker whatever state the other files are in", () => {
    git();
    mkdirSync(join(p.dir, ".kanon"));
    writeFileSync(join(p.dir, ".kanon/waypoint.json"), "{ broken");
    writeFileSync(join(p.dir, ".kanon/waypoint.lock"), `${process.pid} host token ${Date.now()}\n`);
    expect(pauseFirst(p.dir, "codex")).not.toBeNull();
    expect(existsSync(join(p.dir, ".kanon/PAUSE"))).toBe(true);
  });

  it("does nothing outside a project, or in one without continuity files, and never throws", () => {
    expect(pauseFirst(join(p.dir, "nowhere"), "codex")).toBeNull();
    git();
    expect(pauseFirst(p.dir, "codex")).toBeNull();
    expect(existsSync(join(p.dir, ".kanon"))).toBe(false);
  });
});

describe("re-anchor and position", () => {
  it("give the block and the line of the project's waypoint", () => {
    git();
    mkdirSync(join(p.dir, "src"));
    expect(reanchorContext(facts())).toBe("");
    expect(positionContext(facts())).toBe("");
    // A project without a waypoint is left as it was.
    expect(existsSync(join(p.dir, ".kanon"))).toBe(false);
    writeWaypoint(p.files, () => ({ path: ["a"], next: "the next thing" }), cli);
    expect(reanchorContext(facts())).toMatch(
      /^\[kanon\] Where the work stands: waypoint revision 1 .*\nPath: a\nNext: the next thing\n$/,
    );
    expect(positionContext(facts())).toBe("kanon waypoint r1: a | next: the next thing\n");
    expect(reanchorContext(facts(), 300).length).toBeLessThanOrEqual(300);
  });

  it("fail open: a waypoint kanon cannot read gives no output, not an error", () => {
    git();
    mkdirSync(join(p.dir, ".kanon"));
    writeFileSync(join(p.dir, ".kanon/waypoint.json"), "{ broken");
    expect(reanchorContext({ ...facts(), cwd: p.dir })).toBe("");
    expect(positionContext({ ...facts(), cwd: p.dir })).toBe("");
  });
});

describe("Stop", () => {
  it("records a reminder when the session did not move the waypoint, shown while that revision stands", () => {
    git();
    mkdirSync(join(p.dir, "src"));
    writeWaypoint(p.files, () => ({ next: "n" }), cli);
    expect(reanchorContext(facts("quiet"))).not.toContain("Reminder");
    stopAdvisory(facts("quiet"));
    expect(reanchorContext(facts("next"))).toMatch(
      /\nReminder: a codex session ended a turn at \S+ without moving the waypoint; check that Path and Next still hold \(kanon waypoint set\)\.\n$/,
    );
    writeWaypoint(p.files, () => ({ next: "moved" }), cli);
    expect(reanchorContext(facts("next"))).not.toContain("Reminder");
  });

  it("records nothing for a session that moved the waypoint, or without a session", () => {
    git();
    mkdirSync(join(p.dir, "src"));
    writeWaypoint(p.files, () => ({ next: "n" }), cli);
    positionContext(facts("busy"));
    writeWaypoint(p.files, () => ({ next: "moved" }), cli);
    stopAdvisory(facts("busy"));
    stopAdvisory(facts(null));
    expect(existsSync(p.files.reminder)).toBe(false);
  });
});
