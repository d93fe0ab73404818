/**
 * Running kanon in a temporary HOME: `main(argv, io)` in the test's own process (what most tests
 * need; no process to start), or the built `dist/kanon.js` as a user would (`spawnKanon`, for what
 * only a separate process shows: a terminal, a signal, a reader that goes away).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import type { Io } from "../../src/cli/context.js";
import { main } from "../../src/cli/main.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const KANON = join(ROOT, "dist/kanon.js");

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

export interface Sandbox {
  /** The temporary user home ($HOME). */
  home: string;
  /** A directory for Kanon homes and projects, outside $HOME. */
  work: string;
  /** `kanon ...args` in-process; `env` values override the sandbox's, `undefined` removes a variable. */
  run(args: string[], options?: RunOptions): Promise<Run>;
  /** The same run through the built `dist/kanon.js` in a process of its own (a kill, a process id). */
  spawn(args: string[], options?: RunOptions): Run;
  cleanup(): void;
}

export interface RunOptions {
  /** What stdin holds (not a terminal; it ends after this). */
  input?: string;
  env?: Record<string, string | undefined>;
  /** The working directory (`work` by default). */
  cwd?: string;
  /**
   * stdout and stderr are a terminal's (isTTY, 100 columns; stdin stays a pipe): what kanon decides
   * from them, as progress lines, without starting the binary under script(1).
   */
  terminal?: boolean;
}

/**
 * Git without its housekeeping: a commit or fetch starts `git maintenance run --auto`, a push `git gc
 * --auto` on the receiving side, each a process that finds nothing to do in a test's tiny repository.
 * Measured on commit + push + pull: 12% less CPU. Nothing kanon does depends on them.
 */
export const GIT_NO_HOUSEKEEPING = {
  GIT_CONFIG_COUNT: "2",
  GIT_CONFIG_KEY_0: "maintenance.auto",
  GIT_CONFIG_VALUE_0: "false",
  GIT_CONFIG_KEY_1: "receive.autogc",
  GIT_CONFIG_VALUE_1: "false",
};

/** The environment of a sandboxed run: its own HOME, no system git config, a git identity. */
export function sandboxEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    ...GIT_NO_HOUSEKEEPING,
    GIT_AUTHOR_NAME: "kanon test",
    GIT_AUTHOR_EMAIL: "test@example.invalid",
    GIT_COMMITTER_NAME: "kanon test",
    GIT_COMMITTER_EMAIL: "test@example.invalid",
  };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/**
 * Collects what is written to it, as text, and into `both`, which two captures share: stdout and
 * stderr in the order they were written. A terminal's stream when `isTTY`.
 */
class Capture extends Writable {
  text = "";
  readonly columns: number | undefined;
  constructor(
    readonly both: { text: string },
    readonly isTTY = false,
  ) {
    super();
    this.columns = isTTY ? 100 : undefined;
  }
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    this.both.text += chunk.toString();
    done();
  }
}

/**
 * `kanon ...args` through `main(argv, io)`, in this process: the environment, working directory and
 * user home are the io's (kanon reads none of them from the process), stdin holds `input` and is no
 * terminal, stdout and stderr are captured, like a spawned run's pipes.
 */
export async function runKanon(
  args: string[],
  options: RunOptions & { home: string; cwd: string },
): Promise<Run & { output: string }> {
  const both = { text: "" };
  const stdout = new Capture(both, options.terminal);
  const stderr = new Capture(both, options.terminal);
  const stdin = new Readable({ read() {} });
  if (options.input) stdin.push(options.input);
  stdin.push(null);
  const env = sandboxEnv(options.home, options.env);
  const io: Io = {
    stdout,
    stderr,
    stdin: stdin as NodeJS.ReadStream,
    env,
    cwd: options.cwd,
    // As kanon's own process reads it (processIo): $HOME, which a test may move.
    userHome: env.HOME || options.home,
  };
  const status = await main(args, io);
  return { status, stdout: stdout.text, stderr: stderr.text, output: both.text };
}

/** `dist/kanon.js ...args` in a process of its own (run `npm run build` first), in the sandbox `home`. */
export function spawnKanon(
  args: string[],
  options: { home: string; cwd: string; input?: string; env?: Record<string, string | undefined> },
): Run {
  const r = spawnSync(process.execPath, [KANON, ...args], {
    cwd: options.cwd,
    input: options.input ?? "",
    encoding: "utf8",
    env: sandboxEnv(options.home, options.env),
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export function sandbox(): Sandbox {
  const base = mkdtempSync(join(tmpdir(), "kanon-cli-"));
  const home = join(base, "home");
  const work = join(base, "work");
  mkdirSync(home);
  mkdirSync(work);
  return {
    home,
    work,
    run: (args, options = {}) => runKanon(args, { ...options, home, cwd: options.cwd ?? work }),
    spawn: (args, options = {}) => spawnKanon(args, { ...options, home, cwd: options.cwd ?? work }),
    cleanup() {
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/**
 * One sandbox for the calling file, built once and put back before each test: `build` runs before the
 * file's first test and what it leaves is copied aside; before every test the sandbox is replaced by
 * a copy of that, at the same path, so the paths git and kanon wrote into files (a clone's origin,
 * the record's roots) still hold. A copy starts no process: the git processes and kanon runs of
 * `build` run once per file, not once per test (in test/security/update-scripts.test.ts they were a
 * third of each test's CPU). Git sees copied files as touched and reads them again, as after a
 * `touch`; their content is what `build` left.
 */
export function restoredSandbox(build: (s: Sandbox) => unknown): Sandbox {
  const s = sandbox();
  const base = dirname(s.home);
  const pristine = `${base}.pristine`;
  const copy = (from: string, to: string) => cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  beforeAll(async () => {
    await build(s);
    copy(base, pristine);
  });
  beforeEach(() => {
    rmSync(base, { recursive: true, force: true });
    copy(pristine, base);
  });
  afterAll(() => {
    s.cleanup();
    rmSync(pristine, { recursive: true, force: true });
  });
  return s;
}

/** The sandbox of the test that is running, with a Kanon home at `<work>/kanon-home`. */
export interface KanonSandbox extends Sandbox {
  /** The Kanon home (`<work>/kanon-home`; writeHome creates it). */
  readonly kh: string;
  /** `kanon --home <kh> ...args` */
  k(...args: string[]): Promise<Run>;
  /** Writes kanon.yaml, and `files` (paths relative to the Kanon home), into the Kanon home. */
  writeHome(yaml: string | Buffer, files?: Record<string, string>): void;
  /** A file in the Kanon home (`rel` relative to it), as text. */
  readHome(rel: string): string;
  /** A file under $HOME (`rel` relative to it): read as text, written (folders made), there or not. */
  read(rel: string): string;
  write(rel: string, content: string): void;
  /** Files under $HOME (paths relative to it), folders made: a machine's settings. */
  writeFiles(files: Record<string, string>): void;
  exists(rel: string): boolean;
}

/**
 * A fresh sandbox for each test of the calling file: made before each test (then `setup` runs),
 * removed after it. The object stands for the running test's sandbox; its functions may be taken
 * out of it (`const { k } = s`).
 */
export function sandboxPerTest(setup?: (s: KanonSandbox) => unknown): KanonSandbox {
  let current: Sandbox | undefined;
  const now = (): Sandbox => {
    if (!current) throw new Error("the sandbox exists only while a test runs");
    return current;
  };
  const kh = () => join(now().work, "kanon-home");
  const s: KanonSandbox = {
    get home() {
      return now().home;
    },
    get work() {
      return now().work;
    },
    get kh() {
      return kh();
    },
    run: (args, options) => now().run(args, options),
    spawn: (args, options) => now().spawn(args, options),
    cleanup: () => now().cleanup(),
    k: (...args) => now().run(["--home", kh(), ...args]),
    writeHome(yaml, files = {}) {
      mkdirSync(kh(), { recursive: true });
      writeFileSync(join(kh(), "kanon.yaml"), yaml);
      for (const [rel, content] of Object.entries(files)) {
        mkdirSync(dirname(join(kh(), rel)), { recursive: true });
        writeFileSync(join(kh(), rel), content);
      }
    },
    readHome: (rel) => readFileSync(join(kh(), rel), "utf8"),
    read: (rel) => readFileSync(join(now().home, rel), "utf8"),
    write(rel, content) {
      mkdirSync(dirname(join(now().home, rel)), { recursive: true });
      writeFileSync(join(now().home, rel), content);
    },
    writeFiles(files) {
      for (const [rel, content] of Object.entries(files)) s.write(rel, content);
    },
    exists: (rel) => existsSync(join(now().home, rel)),
  };
  beforeEach(async () => {
    current = sandbox();
    await setup?.(s);
  });
  afterEach(() => {
    current?.cleanup();
    current = undefined;
  });
  return s;
}

/** The files below `dir` (not folders), relative to it, sorted; none when `dir` does not exist. */
export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

/**
 * What is below `dir` (nothing when it does not exist), to compare before and after a command: each
 * path relative to `dir` → a file's mode and the sha256 of its bytes, a symlink's target (`-> …`),
 * and with `folders`, `folder`. A path that `skip` matches (relative to `dir`) is left out.
 */
export function snapshot(
  dir: string,
  options: { skip?: RegExp; folders?: boolean } = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(e.parentPath, e.name);
    const rel = relative(dir, path);
    if (options.skip?.test(rel)) continue;
    const st = lstatSync(path);
    if (st.isDirectory()) {
      if (options.folders) out[rel] = "folder";
    } else if (st.isSymbolicLink()) out[rel] = `-> ${readlinkSync(path)}`;
    else
      out[rel] =
        `${(st.mode & 0o777).toString(8)} ${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
  }
  return out;
}
