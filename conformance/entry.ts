// Bundle entry. `scripts/test-agents.mjs` imports `main` from the bundle; the bundle also runs on its own
// (`node .cache/conformance/suite.mjs --state=…`) for the run phase inside a private network namespace.
import { realpathSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "./suite.js";

export { main };

const self = fileURLToPath(import.meta.url);
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(self)) {
  // The bundle lives in <repo>/.cache/conformance/.
  main(process.argv.slice(2), { repoRoot: resolve(dirname(self), "..", ".."), bundle: self }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
