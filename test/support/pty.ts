/**
 * `kanon` on a terminal, its output read by a headless xterm: tests see the screen a user sees. Two
 * ways to run it: the real `dist/kanon.js` in a pseudo-terminal (PtySession; Python's pty module as
 * the provider: no native build), for what only a terminal of its own shows (echo, line editing, the
 * built UI chunk), or `main(argv, io)` in the test's process with terminal-like streams
 * (InProcessTerminal), for `kanon ui`'s screens and keys.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import xterm from "@xterm/headless";
import { main } from "../../src/cli/main.js";
import { KANON, ROOT } from "./cli.js";

const HOST = join(ROOT, "test/support/pty-host.py");

/**
 * The Python interpreter itself, asked once: `python3` on PATH may be a version manager's shim (pyenv's
 * is a bash script starting a dozen processes), which cost ~0.5 s of CPU per terminal session here.
 */
let python: string | undefined;
const pythonPath = (): string =>
  (python ??=
    spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).stdout.trim() ||
    "python3");
const SYNC_BEGIN = "\u001b[?2026h";
const SYNC_END = "\u001b[?2026l";

export interface PtyOptions {
  cols?: number;
  rows?: number;
  env: Record<string, string>;
  cwd: string;
}

/** A terminal's screen: what the program wrote, as xterm shows it. */
abstract class Screen {
  readonly term: xterm.Terminal;
  abstract readonly exited: Promise<number>;
  protected pending = Promise.resolve();
  private midFrame = false;
  private tail = "";

  constructor(options: PtyOptions, xtermOptions: { convertEol?: boolean } = {}) {
    this.term = new xterm.Terminal({
      cols: options.cols ?? 100,
      rows: options.rows ?? 30,
      allowProposedApi: true,
      ...xtermOptions,
    });
  }

  /** What the program wrote to its terminal. */
  protected feed(chunk: Buffer): void {
    // Ink wraps each frame in a synchronized update (DEC mode 2026): a screen read between its
    // start and end would see half a frame.
    // A marker can be split between two reads of the terminal: look at the end of the last one too.
    const text = this.tail + chunk.toString("latin1");
    this.tail = text.slice(-SYNC_BEGIN.length);
    const begin = text.lastIndexOf(SYNC_BEGIN);
    const end = text.lastIndexOf(SYNC_END);
    const midFrame = begin > end ? true : end > begin ? false : undefined;
    // The flag changes only once the terminal has parsed this chunk, so it always describes the
    // screen a reader sees (a chunk that arrives while a reader waits is not on the screen yet).
    this.pending = this.pending.then(
      () =>
        new Promise<void>((r) =>
          this.term.write(chunk, () => {
            if (midFrame !== undefined) this.midFrame = midFrame;
            r();
          }),
        ),
    );
  }

  /** The visible screen, one string per row, trailing spaces trimmed. */
  lines(): string[] {
    const buffer = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++) {
      out.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? "");
    }
    return out;
  }

  screen(): string {
    return this.lines().join("\n");
  }

  abstract send(keys: string): void;

  /** Wait until the screen satisfies `test` (a substring or a predicate); fails with the screen. */
  async waitFor(test: string | ((screen: string) => boolean), timeoutMs = 30_000): Promise<string> {
    const ok = typeof test === "string" ? (s: string) => s.includes(test) : test;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.pending;
      const s = this.screen();
      if (!this.midFrame && ok(s)) return s;
      if (Date.now() > deadline) {
        throw new Error(`screen never showed ${String(test)}; it shows:\n${s}`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** The built `kanon` in a pseudo-terminal of its own. */
export class PtySession extends Screen {
  readonly exited: Promise<number>;
  private readonly proc: ChildProcessWithoutNullStreams;

  constructor(args: string[], options: PtyOptions) {
    super(options);
    this.proc = spawn(
      pythonPath(),
      [HOST, String(this.term.cols), String(this.term.rows), process.execPath, KANON, ...args],
      { cwd: options.cwd, env: options.env },
    );
    this.proc.stdout.on("data", (chunk: Buffer) => this.feed(chunk));
    // Answers to the program's terminal queries go back to it, as a real terminal's would.
    this.term.onData((data) => this.proc.stdin.write(data));
    this.exited = new Promise((resolve) => this.proc.on("exit", (code) => resolve(code ?? -1)));
  }

  send(keys: string): void {
    this.proc.stdin.write(keys);
  }

  kill(): void {
    this.proc.kill("SIGKILL");
  }
}

/**
 * The built `kanon ui` on the home `kh` in a pseudo-terminal, until its change list shows; then q.
 * Resolves to its exit status.
 */
export async function builtUiQuits(kh: string, cwd: string, home: string): Promise<number> {
  const ui = new PtySession(["--home", kh, "ui"], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TERM: "xterm-256color" },
  });
  try {
    await ui.waitFor((screen) => /Apply Changes \(\d+ changed/.test(screen));
    ui.send("q");
    return await ui.exited;
  } finally {
    ui.kill();
  }
}

/** Standard output as a terminal of `cols`×`rows` has it; what is written goes to the screen. */
class TerminalOut extends Writable {
  readonly isTTY = true;
  constructor(
    readonly columns: number,
    readonly rows: number,
    private readonly onData: (chunk: Buffer) => void,
  ) {
    super({ decodeStrings: true });
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.onData(chunk);
    done();
  }
}

/** Standard input as a terminal has it (raw mode is a flag here: keys come as they are sent). */
class TerminalIn extends Readable {
  readonly isTTY = true;
  isRaw = false;
  override _read(): void {}
  setRawMode(mode: boolean): this {
    this.isRaw = mode;
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
}

/**
 * Ink's colours: Ink asks chalk, which decides once, from this process's own stdout (no terminal
 * under vitest: no colour). A session sets chalk's level as a 256-colour terminal (TERM=xterm-256color)
 * gets it, and puts it back when the session ends.
 */
const inkChalk = (): Promise<{ default: { level: number } }> => {
  const ink = createRequire(import.meta.url).resolve("ink");
  return import(pathToFileURL(createRequire(ink).resolve("chalk")).href);
};

/**
 * `kanon ...args` through `main(argv, io)` in this process, on a terminal: stdout and stderr are one
 * screen, stdin takes keys. The same UI code as the built binary's (src/cli/ui), without starting a
 * process, Node and the UI chunk for each session: a `kanon ui` session in a pseudo-terminal cost
 * ~2 s of CPU here, most of it start-up, against ~0.2 s here. The pseudo-terminal's own work is
 * mimicked: output's \n moves to the line start (the terminal's onlcr), and keys are not echoed
 * (Ink's raw mode). `test/smoke/dist.test.ts` runs the built `kanon ui` in a real one.
 */
export class InProcessTerminal extends Screen {
  readonly exited: Promise<number>;
  private readonly stdin = new TerminalIn();

  constructor(args: string[], options: PtyOptions) {
    super(options, { convertEol: true });
    const out = () => new TerminalOut(this.term.cols, this.term.rows, (chunk) => this.feed(chunk));
    const stdout = out();
    this.term.onData((data) => this.stdin.push(data));
    this.exited = (async () => {
      const chalk = (await inkChalk()).default;
      const level = chalk.level;
      chalk.level = 2;
      try {
        return await main(args, {
          stdout,
          stderr: out(),
          stdin: this.stdin as unknown as NodeJS.ReadStream,
          env: options.env,
          cwd: options.cwd,
          userHome: options.env.HOME ?? options.cwd,
        });
      } finally {
        chalk.level = level;
        await this.pending;
      }
    })();
  }

  send(keys: string): void {
    this.stdin.push(keys);
  }

  /** A session a failed test left open: ctrl+c quits `kanon ui` from any of its screens. */
  kill(): void {
    this.send(KEYS.ctrlC);
  }
}

/** Key sequences as a terminal sends them. */
export const KEYS = {
  up: "\u001b[A",
  down: "\u001b[B",
  tab: "\t",
  shiftTab: "\u001b[Z",
  enter: "\r",
  esc: "\u001b",
  backspace: "\u007f",
  ctrlC: "\u0003",
};
