// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` env references are data in these tests
/**
 * `${NAME}` and `${NAME:-default}` references: found and expanded exactly as one regex over the whole
 * text finds them, in time linear in the text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { envRefs, expandEnv, replaceDefaults } from "../../src/model/env.js";

/**
 * The regex kanon matched the whole text with until a hostile command made it quadratic (a default
 * runs past a `${secret:NAME}` in it).
 */
const WHOLE_TEXT_REF =
  /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-((?:\$\{secret:[A-Za-z_][A-Za-z0-9_]*\}|[^}])*))?\}/g;

/** Text made of references' pieces: closed, open, nested, with and without defaults. */
const pieces = fc
  .array(
    fc.constantFrom(
      "$",
      "{",
      "}",
      "${",
      ":-",
      ":",
      "-",
      "a",
      "B_1",
      "9",
      " ",
      "x}",
      "\n",
      "secret:",
      "${secret:a}",
    ),
    {
      maxLength: 30,
    },
  )
  .map((units) => units.join(""));

describe("envRefs and expandEnv", () => {
  it("find what one regex over the whole text finds (property)", () => {
    const env = { a: "A", B_1: "", x: "X" };
    fc.assert(
      fc.property(pieces, (text) => {
        expect(envRefs(text)).toEqual(
          [...text.matchAll(WHOLE_TEXT_REF)].map((m) => ({ name: m[1], fallback: m[2] })),
        );
        expect(expandEnv(text, env)).toBe(
          text.replace(WHOLE_TEXT_REF, (_m, name: string, fallback?: string) =>
            env[name as keyof typeof env] ? env[name as keyof typeof env] : (fallback ?? ""),
          ),
        );
      }),
      { numRuns: 5000 },
    );
  });

  it("take time linear in the text, however many `${NAME:-` it leaves open", () => {
    // 120,000 characters each: a scan to the end of the text from every `${a:-` takes seconds here.
    const open = "${a:-".repeat(24_000);
    const closedThenOpen = `\${a:-x}${"${a:-".repeat(24_000)}`;
    const start = performance.now();
    expect(envRefs(open)).toEqual([]);
    expect(envRefs(closedThenOpen)).toEqual([{ name: "a", fallback: "x" }]);
    expect(expandEnv(closedThenOpen, {})).toBe(`x${"${a:-".repeat(24_000)}`);
    // Defaults that hold secret references, each left open but the last.
    const secrets = `\${a:-${"${secret:s}".repeat(10_000)}`;
    expect(envRefs(secrets)).toEqual([{ name: "a", fallback: `${"${secret:s}".repeat(9_999)}\${secret:s` }]);
    expect(envRefs("${a:-${secret:s}".repeat(10_000))).toHaveLength(1);
    expect(envRefs(`${"${a:-${secret:s}".repeat(10_000)}}`)).toHaveLength(1);
    expect(performance.now() - start).toBeLessThan(1000);
  });

  it("end a default past a ${secret:NAME} in it, which apply fills in after the variable", () => {
    const value = "${API_KEY:-${secret:API_KEY}}";
    expect(envRefs(value)).toEqual([{ name: "API_KEY", fallback: "${secret:API_KEY}" }]);
    expect(expandEnv(value, {})).toBe("${secret:API_KEY}");
    expect(expandEnv(value, { API_KEY: "set" })).toBe("set");
    expect(
      replaceDefaults(`${value} \${B:-b}`, (fallback, name) => (name === "B" ? null : `<${fallback}>`)),
    ).toBe("${API_KEY:-<${secret:API_KEY}>} ${B}");
  });
});
