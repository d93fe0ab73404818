import { spawnSync } from "node:child_process";

/**
 * A pid no process has: that of a child that has exited. The child is `true`, not Node: a Node
 * process cost ~0.16 s of CPU here, `true` a few milliseconds; any exited child's pid will do.
 */
export const deadPid = (): number => spawnSync("true").pid!;
