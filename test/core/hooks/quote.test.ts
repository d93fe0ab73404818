import { type ExecFileSyncOptionsWithStringEncoding, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commandLine, shellQuote } from "../../../src/core/hooks/quote.js";

/**
 * How the shells run: PATH only, so that what they do depends on the line alone, not on this
 * process's variables; no stdin. Node's stdin pipe is a socket, and bash whose stdin is a socket
 * takes itself to be started by sshd and reads ~/.bashrc first (Debian's bash; without HOME, the
 * user's from the password file): here that took ~0.8 s of CPU per bash, ~12 ms without.
 */
const SHELL: ExecFileSyncOptionsWithStringEncoding = {
  encoding: "utf8",
  env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  stdio: ["ignore", "pipe", "pipe"],
};

function splitByShell(shell: string, line: string): string[] {
  // The rendered line is what Codex hands to `<shell> -c`; prefix it with a printer function.
  const out = execFileSync(
    shell,
    ["-c", `p() { for a in "$@"; do printf '%s\\0' "$a"; done; }; p ${line}`],
    SHELL,
  );
  return out === "" ? [] : out.slice(0, -1).split("\0");
}

/**
 * splitByShell for many lines in one shell process, one line of the script each (`p` prints the word
 * count, then the words): a property's examples cost one process per batch instead of one each (a
 * shell started from the test's process costs ~10 ms of CPU here, ~40% of these tests' time). A line
 * that leaked into the next one (an unclosed quote, a `;`) changes what the following lines print, so
 * the batch fails as the line alone would.
 */
function splitAllByShell(shell: string, lines: readonly string[]): string[][] {
  const printer = `p() { printf '%s\\0' "$#"; for a in "$@"; do printf '%s\\0' "$a"; done; }`;
  const script = [printer, ...lines.map((line) => `p ${line}`)].join("\n");
  const fields = execFileSync(shell, ["-c", script], SHELL).split("\0");
  const out: string[][] = [];
  for (let i = 0; i < fields.length - 1; ) {
    const n = Number(fields[i]);
    out.push(fields.slice(i + 1, i + 1 + n));
    i += 1 + n;
  }
  return out;
}

/** A property over argv lists, checked in batches of `size` per shell process. */
function roundTrips(shell: string, argv: fc.Arbitrary<string[]>, runs: number, size: number): void {
  fc.assert(
    fc.property(fc.array(argv, { minLength: size, maxLength: size }), (batch) => {
      expect(splitAllByShell(shell, batch.map(commandLine))).toEqual(batch);
    }),
    { numRuns: runs },
  );
}

const shells = ["/bin/sh", "/bin/bash", "/bin/dash"].filter((s) => existsSync(s));

describe("POSIX quoting of args into one command line", () => {
  it("quotes every element in single quotes", () => {
    expect(shellQuote("rm -rf")).toBe("'rm -rf'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("")).toBe("''");
    expect(commandLine(["/usr/local/bin/guard", "--deny", "rm -rf"])).toBe(
      "'/usr/local/bin/guard' '--deny' 'rm -rf'",
    );
  });

  it.each(shells)("round-trips hostile argv through %s word splitting", (shell) => {
    const hostile = [
      "--deny",
      "rm -rf /",
      "it's",
      '"double"',
      "$HOME",
      "`id`",
      "$(id)",
      "*",
      "?[a]",
      "line\nbreak",
      "",
      "tab\there",
      "back\\slash",
      "ünïcödé ✓",
      "'",
      "''",
      "~",
      "a;b|c&d>e<f",
    ];
    expect(splitByShell(shell, commandLine(hostile))).toEqual(hostile);
  });

  it.each(shells)("round-trips random argv through %s (property)", (shell) => {
    const arg = fc.string({
      unit: fc.constantFrom(
        "a",
        " ",
        "'",
        '"',
        "$",
        "`",
        "*",
        "?",
        "\n",
        "\\",
        "é",
        "{",
        "}",
        ";",
        "~",
        "\t",
      ),
    });
    // 60 argv lists, as when each was one run: 3 runs of 20.
    roundTrips(shell, fc.array(arg, { maxLength: 6 }), 3, 20);
  });

  it("real unicode and NUL-free binary-ish strings survive /bin/sh", () => {
    // 40 argv lists, as when each was one run: 4 runs of 10.
    const graphemes = fc.string({ unit: "grapheme" }).filter((s) => !s.includes("\0"));
    roundTrips("/bin/sh", fc.array(graphemes, { maxLength: 4 }), 4, 10);
  });
});
