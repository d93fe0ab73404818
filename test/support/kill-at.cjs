// Preloaded into the built kanon (NODE_OPTIONS=--require …): kills the process with SIGKILL right
// before the first rename whose destination matches $KANON_KILL_AT, as `kill -9` at that instant
// would. Tests use it to leave exactly what an interrupted apply leaves.
const fs = require("node:fs");

const pattern = new RegExp(process.env.KANON_KILL_AT);
const rename = fs.renameSync;
fs.renameSync = (from, to) => {
  if (pattern.test(String(to))) process.kill(process.pid, "SIGKILL");
  return rename(from, to);
};
