/** `kanon init`: scaffold a new Kanon home (the Go original's starter files, byte for byte). */
import { execFile } from "node:child_process";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { KanonError } from "../../model/types.js";
import { type GlobalFlags, type Io, out } from "../context.js";
import { pathsOf } from "../pipeline.js";

export const STARTER_CONFIG = `version: 1
instructions:
  files:
    - instructions/shared.md
skills: []
mcp:
  servers: {}
hooks: []
`;
export const STARTER_INSTRUCTIONS =
  "# Shared Agent Instructions\n\nKeep changes focused and explain tradeoffs clearly.\n";

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

export async function initCommand(
  flags: GlobalFlags,
  opts: { force?: boolean; git?: boolean },
  io: Io,
): Promise<void> {
  const { home } = pathsOf(flags, io);
  for (const dir of ["instructions", "skills", "hooks", ".kanon"]) {
    await mkdir(join(home, dir), { recursive: true, mode: 0o755 });
  }
  const config = join(home, "kanon.yaml");
  if ((await exists(config)) && !opts.force) {
    throw new KanonError(`${config} already exists; pass --force to overwrite`);
  }
  await writeFile(config, STARTER_CONFIG, { mode: 0o644 });
  const shared = join(home, "instructions", "shared.md");
  if (opts.force || !(await exists(shared))) await writeFile(shared, STARTER_INSTRUCTIONS, { mode: 0o644 });
  const gitignore = join(home, ".gitignore");
  if (opts.force || !(await exists(gitignore))) await writeFile(gitignore, ".kanon/\n", { mode: 0o644 });
  if (opts.git !== false && !(await exists(join(home, ".git")))) {
    try {
      await promisify(execFile)("git", ["-C", home, "init"], { env: io.env });
    } catch (e) {
      const err = e as { message: string; stderr?: string };
      throw new KanonError(`git init: ${err.message.split("\n")[0]}: ${(err.stderr ?? "").trim()}`);
    }
  }
  out(io, `Initialized ${home}\n`);
}
