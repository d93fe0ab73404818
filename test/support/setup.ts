/**
 * Runs in each vitest worker before its test files. `kanon ui` runs in the test's process in some
 * tests (InProcessTerminal, test/support/pty.ts), and Ink decides once, when it is first imported,
 * whether it runs under CI (a CI or CONTINUOUS_INTEGRATION variable; `.ci/run` sets CI=true): then
 * it draws nothing until it exits, unlike on a user's terminal. kanon reads only the environment
 * its Io gives it, so in a worker these two variables serve nothing but Ink's guess.
 */
delete process.env.CI;
delete process.env.CONTINUOUS_INTEGRATION;
