/**
 * Runs once in vitest's main process, before the workers start (vitest.config.ts: globalSetup).
 *
 * The tests' temporary files (every sandbox, git fixture, provider cache and copy of one) go to a
 * RAM file system where the machine has one at /dev/shm, unless TMPDIR says where they go. The suite
 * creates and removes tens of thousands of files and folders; on a disk file system each costs a
 * journal entry and, on ext4, a search for an inode not recently freed. Measured here (/tmp on ext4,
 * 2 cores, loaded): 1,481 tests of security/, providers/, import/, destination/ and four git-heavy
 * cli/ files, 75.9 and 79.0 s of CPU with TMPDIR=/tmp against 71.5 and 66.4 s (A/B, two rounds).
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statfsSync } from "node:fs";
import { join } from "node:path";

const SHM = "/dev/shm";
const ROOM = 1 << 30;

/** /dev/shm when it is a tmpfs that runs programs (tests run scripts from there) and has 1 GB free. */
function ramFileSystem(): string | null {
  try {
    const mount = readFileSync("/proc/mounts", "utf8")
      .split("\n")
      .map((line) => line.split(" "))
      .find(([, at]) => at === SHM);
    if (mount?.[2] !== "tmpfs" || mount[3]!.split(",").includes("noexec")) return null;
    const fs = statfsSync(SHM);
    return fs.bavail * fs.bsize >= ROOM ? SHM : null;
  } catch {
    return null;
  }
}

export default function setup(): () => void {
  const ram = process.env.TMPDIR ? null : ramFileSystem();
  const made: string[] = [];
  if (ram) {
    const root = mkdtempSync(join(ram, "kanon-test-"));
    // Others may pass through, as through /tmp: a test runs kanon as another user in its sandbox.
    chmodSync(root, 0o755);
    process.env.TMPDIR = root;
    made.push(root);
  }
  return () => {
    for (const dir of made.reverse()) rmSync(dir, { recursive: true, force: true });
  };
}
