/**
 * Runs in its own Node process (bundled by helpers.ts): `write <root> <id> <count>` writes the
 * waypoint `count` times, each time appending `<id>-<k>` to `why` (a read-modify-write: a lost update
 * would lose a token), and prints each revision it wrote; `fire <root> <count>` fires a stage hook
 * `count` times.
 */
import { projectFiles } from "../../src/continuity/files.js";
import { fireHooks } from "../../src/continuity/stage-hooks.js";
import { writeWaypoint } from "../../src/continuity/waypoint.js";

const [what, a = "", b = "", c = ""] = process.argv.slice(2);
if (what === "write") {
  const files = projectFiles(a);
  for (let k = 0; k < Number(c); k++) {
    const w = writeWaypoint(files, (current) => ({ why: `${current?.why ?? ""} ${b}-${k}`.trim() }), {
      agent: b,
      session: null,
    });
    process.stdout.write(`${w.revision}\n`);
  }
} else if (what === "fire") {
  const files = projectFiles(a);
  for (let k = 0; k < Number(b); k++)
    await fireHooks(
      files,
      [{ on: "task:after", command: "true" }],
      { kind: "task", edge: "after", stage: null, index: k + 1, total: Number(b), path: [] },
      process.env,
      () => {},
    );
}
