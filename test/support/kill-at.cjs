// Preloaded into the built kanon (NODE_OPTIONS=--require …): kills the process with SIGKILL right
// before the first rename or link (the calls that put a file in place) whose destination matches
// $KANON_KILL_AT, as `kill -9` at that instant would. Tests use it to leave exactly what an
// interrupted apply or undo leaves: a kill needs a process of its own, so this stays outside kanon.
const fs = require("node:fs");

const pattern = new RegExp(process.env.KANON_KILL_AT);
for (const name of ["renameSync", "linkSync"]) {
  const original = fs[name];
  fs[name] = (from, to) => {
    if (pattern.test(String(to))) process.kill(process.pid, "SIGKILL");
    return original(from, to);
  };
}
