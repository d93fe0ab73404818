/**
 * Runs in each vitest worker before its test files.
 *
 * `kanon ui` runs in the test's process in some tests (InProcessTerminal, test/support/pty.ts), and
 * Ink decides once, when it is first imported, whether it runs under CI (a CI or
 * CONTINUOUS_INTEGRATION variable; `.ci/run` sets CI=true): then it draws nothing until it exits,
 * unlike on a user's terminal. kanon reads only the environment its Io gives it, so in a worker these
 * two variables serve nothing but Ink's guess.
 */
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;

/**
 * The Node processes a test starts with the worker's environment (hook runners, workers, helpers)
 * open no TLS connection, and with NODE_EXTRA_CA_CERTS set Node reads and parses that file at every
 * start: ~60 ms of CPU per process here (`node -e 0`: ~0.16 s with it, ~0.10 s without).
 */
delete process.env.NODE_EXTRA_CA_CERTS;

/**
 * Ink hides the cursor of an in-process terminal, and cli-cursor then registers, once per process,
 * an exit hook (restore-cursor) that writes "show cursor" (ESC[?25h) to process.stderr: the worker's,
 * which is the test run's output, where it ends up as a stray escape after the last test. A user's
 * kanon ui has its own process and terminal; a worker's stderr is no terminal of kanon's.
 */
const SHOW_CURSOR = "\u001B[?25h";
const marked = globalThis as { __kanonStderrFiltered?: boolean };
if (!marked.__kanonStderrFiltered) {
  marked.__kanonStderrFiltered = true;
  const write = process.stderr.write.bind(process.stderr) as (...args: unknown[]) => boolean;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) =>
    chunk === SHOW_CURSOR ? true : write(chunk, ...rest)) as typeof process.stderr.write;
}
