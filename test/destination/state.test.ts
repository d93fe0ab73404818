import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { emptyRecord } from "../../src/destination/record.js";
import { loadRecord, loadRootState, rootStateDir, writeRecord } from "../../src/destination/state.js";

let base: string;
afterEach(() => rmSync(base, { recursive: true, force: true }));
const fresh = () => {
  base = mkdtempSync(join(tmpdir(), "kanon-state-"));
  return base;
};

describe("the state of a destination root", () => {
  it("is empty for a root kanon never applied to, and names its directory only when asked", () => {
    const b = join(fresh(), "state");
    const loaded = loadRootState(b, "/home/someone");
    expect(loaded).toMatchObject({ record: null, text: null, warnings: [], interrupted: [] });
    expect(loaded.dir).toBe(rootStateDir(b, "/home/someone"));
  });

  it("is read from the root's directory once there is one", () => {
    const b = fresh();
    const root = "/srv/project";
    const dir = rootStateDir(b, root);
    mkdirSync(dir, { recursive: true });
    writeRecord(dir, emptyRecord(root));
    const loaded = loadRootState(b, root);
    expect(loaded.record).toEqual(emptyRecord(root));
    expect(loaded).toEqual(loadRecord(dir, root));
  });

  it("is empty for a root whose name another root's directory shares", () => {
    const b = fresh();
    const other = rootStateDir(b, "/elsewhere/project");
    mkdirSync(other, { recursive: true });
    writeRecord(other, emptyRecord("/elsewhere/project"));
    const loaded = loadRootState(b, "/srv/project");
    expect(loaded.record).toBeNull();
    expect(loaded.dir).toBe(rootStateDir(b, "/srv/project"));
    expect(loaded.dir).not.toBe(other);
  });
});
