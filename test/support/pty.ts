/**
 * The real `kanon` in a pseudo-terminal (Python's pty module as the provider: no native build), its
 * output read by a headless xterm: tests see the screen a user sees.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import xterm from "@xterm/headless";
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

export class PtySession {
  readonly term: xterm.Terminal;
  readonly exited: Promise<number>;
  private readonly proc: ChildProcessWithoutNullStreams;
  private pending = Promise.resolve();
  private midFrame = false;
  private tail = "";

  constructor(args: string[], options: PtyOptions) {
    const cols = options.cols ?? 100;
    const rows = options.rows ?? 30;
    this.term = new xterm.Terminal({ cols, rows, allowProposedApi: true });
    this.proc = spawn(pythonPath(), [HOST, String(cols), String(rows), process.execPath, KANON, ...args], {
      cwd: options.cwd,
      env: options.env,
    });
    this.proc.stdout.on("data", (chunk: Buffer) => {
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
    });
    // Answers to the program's terminal queries go back to it, as a real terminal's would.
    this.term.onData((data) => this.proc.stdin.write(data));
    this.exited = new Promise((resolve) => this.proc.on("exit", (code) => resolve(code ?? -1)));
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

  send(keys: string): void {
    this.proc.stdin.write(keys);
  }

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

  kill(): void {
    this.proc.kill("SIGKILL");
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
