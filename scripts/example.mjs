// `npm run example`: builds kanon, then renders, diffs and applies the example home shipped in
// examples/home into a throwaway HOME, so nothing of yours is read or changed.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
execFileSync(process.execPath, [join(root, "scripts/build.mjs")], { stdio: "inherit", cwd: root });

const home = mkdtempSync(join(tmpdir(), "kanon-example-home-"));
const kanon = (...args) => {
  console.log(`\n$ kanon ${args.join(" ")}`);
  const r = spawnSync(
    process.execPath,
    [join(root, "dist/kanon.js"), "--home", join(root, "examples/home"), ...args],
    {
      stdio: "inherit",
      // Only these: a variable of yours such as CODEX_HOME or XDG_STATE_HOME would take kanon out of
      // the throwaway HOME.
      env: {
        PATH: process.env.PATH,
        LANG: process.env.LANG,
        TMPDIR: process.env.TMPDIR,
        HOME: home,
        NO_COLOR: "1",
      },
    },
  );
  if (r.status !== 0) process.exitCode = r.status ?? 1;
};
try {
  console.log(`Throwaway HOME: ${home}`);
  kanon("validate");
  kanon("render");
  kanon("diff");
  kanon("apply", "--yes");
  kanon("status");
  kanon("hooks");
} finally {
  rmSync(home, { recursive: true, force: true });
}
