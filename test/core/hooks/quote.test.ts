import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commandLine, shellQuote } from "../../../src/core/hooks/quote.js";

function splitByShell(shell: string, line: string): string[] {
  // The rendered line is what Codex hands to `<shell> -c`; prefix it with a printer function.
  const out = execFileSync(shell, ["-c", `p() { for a in "$@"; do printf '%s\\0' "$a"; done; }; p ${line}`], {
    encoding: "utf8",
  });
  return out === "" ? [] : out.slice(0, -1).split("\0");
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
    fc.assert(
      fc.property(fc.array(arg, { maxLength: 6 }), (argv) => {
        expect(splitByShell(shell, commandLine(argv))).toEqual(argv);
      }),
      { numRuns: 60 },
    );
  });

  it("real unicode and NUL-free binary-ish strings survive /bin/sh", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: "grapheme" }).filter((s) => !s.includes("\0")),
          { maxLength: 4 },
        ),
        (argv) => {
          expect(splitByShell("/bin/sh", commandLine(argv))).toEqual(argv);
        },
      ),
      { numRuns: 40 },
    );
  });
});
