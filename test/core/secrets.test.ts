// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` env references are data in these tests
/**
 * isReference, lineSecret and maskSecrets: the same answers as the single regexes they were written
 * with, in time linear in the value or line, however many references, quotes or `?` it leaves open.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replacePairs, replaceQuoted } from "../../src/core/quoted.js";
import { isReference, lineSecret, maskSecrets, secretKey } from "../../src/core/secrets.js";

// The regexes kanon matched the whole value or line with until hostile text made them quadratic.
const WHOLE_REFERENCE =
  /\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}|\$\{secret:[A-Za-z_][A-Za-z0-9_]*\}|\{env:[A-Za-z_][A-Za-z0-9_]*\}|KANON_REDACTED_SECRET_REVIEW_REQUIRED/;
const WHOLE_LINE_PAIR =
  /(?:^|[\s{,[])["']?([A-Za-z0-9_.-]+)["']?\s*[:=]\s*("(?:[^"\\]|\\.)*"|'[^']*'|\$\{(?:\$\{secret:[A-Za-z_][A-Za-z0-9_]*\}|[^}])*\}|\{env:[^}]*\}|[^\s,}\]#]+)/g;

const wholeIsReference = (value: string) =>
  WHOLE_REFERENCE.test(value) || value.startsWith("op://") || /^\$[A-Za-z_][A-Za-z0-9_]*$/.test(value);
/** A `${VAR:-default}` reference, its default running past a `${secret:NAME}` in it (model/env.ts). */
const WHOLE_ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-((?:\$\{secret:[A-Za-z_][A-Za-z0-9_]*\}|[^}])*))?\}/g;
/** The defaults of a reference's `${VAR:-default}`s, found over the whole value. */
const wholeDefaults = (value: string) =>
  [...value.matchAll(WHOLE_ENV_REF)].flatMap((m) => (m[2] === undefined ? [] : [m[2]]));

/** A secret-named key's value that is a credential, or a reference whose default is one. */
function wholeCredential(value: string): boolean {
  if (wholeIsReference(value)) return wholeDefaults(value).some(wholeCredential);
  if (value.length < 8 || /\s/.test(value)) return false;
  return !/^(true|false|null|none|changeme|example)$/i.test(value) && !/^[<[{]/.test(value);
}

/** lineSecret's key/value half, over the whole line (the pieces below never make a token shape). */
function wholeLinePairSecret(line: string): string | null {
  for (const m of line.matchAll(WHOLE_LINE_PAIR)) {
    const key = m[1]!;
    const raw = m[2]!;
    const value = /^["']/.test(raw) ? raw.slice(1, -1) : raw;
    if (secretKey(key) && wholeCredential(value)) return `a value for ${JSON.stringify(key)}`;
  }
  return null;
}

/** Values and lines made of references', keys' and quotes' pieces, and of `key: value` pairs of them. */
const pieces = fc
  .array(
    fc.constantFrom(
      ..."${}:-=\"' ,#[]\\".split(""),
      "${",
      ":-",
      "{env:",
      "secret:",
      "a",
      "B_1",
      "token",
      "api_key",
      "12345678",
      "${a:-12345678}",
      "${secret:a}",
      "op://",
      "KANON_REDACTED_SECRET_REVIEW_REQUIRED",
    ),
    { maxLength: 20 },
  )
  .map((units) => units.join(""));
const pair = fc
  .tuple(fc.constantFrom("token", '"api_key"', "a"), fc.constantFrom(":", ": ", " = "), pieces)
  .map((parts) => parts.join(""));
const lines = fc.array(fc.oneof(pieces, pair), { maxLength: 4 }).map((parts) => parts.join(" "));

describe("isReference and lineSecret", () => {
  it("answer as the single regexes over the whole value or line did (property)", () => {
    fc.assert(
      fc.property(lines, (text) => {
        expect(isReference(text)).toBe(wholeIsReference(text));
        expect(lineSecret(text, "config.yaml")).toBe(wholeLinePairSecret(text));
      }),
      { numRuns: 10_000 },
    );
  });

  it("find pairs after the line's last } and references before it", () => {
    const lines = [
      ["{a: ${X}} token: abcdefgh1", 'a value for "token"'],
      ["token: ${NOT A REF} api_key: ${OPENVALUE", 'a value for "api_key"'],
      ["token: ${NOT-A-REF}", 'a value for "token"'],
      ["token: ${NOT,A,REF}", 'a value for "token"'],
      ['token: "a}bcdefgh" x', 'a value for "token"'],
      ["token: ${A:-b} api_key: {env:OPEN", null],
      // A reference's default is a value like any other.
      ["token: ${A:-abcdefgh1}", 'a value for "token"'],
      ['api_key: "Bearer ${A:-abcdefgh1}"', 'a value for "api_key"'],
      // import's own spelling of a default it moved into the secret store
      ["      API_KEY: ${API_KEY:-${secret:API_KEY}}", null],
      ["api_key: ${A:-none}", null],
    ] as const;
    for (const [line, found] of lines) {
      expect(lineSecret(line, "c.yaml"), line).toBe(found);
      expect(wholeLinePairSecret(line), line).toBe(found);
    }
    expect(isReference("${OPEN:- ${A:-b}")).toBe(true);
  });

  it("take time linear in the text, however many references it leaves open", () => {
    // 120,000 characters each: a scan to the end of the text from every open `${` takes seconds here.
    const n = 24_000;
    const start = performance.now();
    expect(isReference("${a:-".repeat(n))).toBe(false);
    expect(isReference(`${"${a:-".repeat(n)}}`)).toBe(true);
    expect(lineSecret(" a:${".repeat(n), "c.yaml")).toBeNull();
    expect(lineSecret(" a:{env:".repeat(n / 2), "c.yaml")).toBeNull();
    const line = `{x}${" a:${".repeat(n)} token: abcdefgh1`;
    expect(lineSecret(line, "c.yaml")).toBe('a value for "token"');
    expect(performance.now() - start).toBeLessThan(1000);
  });
});

// maskSecrets as it was, with the regexes that were quadratic on `???…`, `"\"\"…`, `?tokentoken…`
// and long words; what it decides for each value (a reference's defaults too) is maskSecrets' own.
const QUOTED = String.raw`"(?:[^"\\]|\\.)*"|'[^']*'`;
const MASK_PAIR = new RegExp(String.raw`(${QUOTED}|[A-Za-z0-9_.-]+)(\s*[:=]\s*)(${QUOTED})`, "g");
const STRING = new RegExp(QUOTED, "g");
const SUSPECT_LOWER =
  /secret|pass(?:word|phrase|wd)|pwd|private_key|credential|api[_-]?key|authorization|cookie|token|sk-|gh[pousr]_|github_pat_|glpat-|xox[abprs]-|akia|aiza|bearer |basic |:\/\/[^\s"'/]*@|[?&#][^=\s"']*(?:key|sig|code|auth)/;
const URL_USERINFO = /(:\/\/[^/\s:@"']+:)([^@\s"'/]+)(@)/g;
const URL_QUERY =
  /([?&#][A-Za-z0-9_.-]*(?:token|key|secret|password|passwd|pwd|auth|sig|signature|code)[A-Za-z0-9_.-]*=)([^&#\s"']+)/gi;
const TOKEN_SHAPE =
  /^(?:sk-|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abprs]-|AKIA[0-9A-Z]{12}|AIza[0-9A-Za-z_-]{20}|(?:bearer|token|basic) \S)/i;
const NAMES_VARIABLE = /(?:^|_)env_vars?$|^env_(?:http_)?headers$/i;
function mask(value: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193) >>> 0;
  return `<secret ${(h & 0xffff).toString(16).padStart(4, "0")}>`;
}
/** A value masked whole, or a reference with its defaults masked by the same rules; null: shown as it is. */
function maskedValue(value: string, byKey: boolean): string | null {
  if (value === "") return null;
  if (!wholeIsReference(value)) return byKey || TOKEN_SHAPE.test(value) ? mask(value) : null;
  const shown = value.replace(WHOLE_ENV_REF, (m, name: string, fallback?: string) =>
    fallback === undefined ? m : `\${${name}:-${maskedValue(fallback, byKey) ?? fallback}}`,
  );
  return shown === value ? null : shown;
}
function regexMaskSecrets(line: string): string {
  if (!/['"]/.test(line) || !SUSPECT_LOWER.test(line.toLowerCase())) return line;
  const unquote = (q: string) => q.slice(1, -1);
  let out = line.replace(MASK_PAIR, (whole, rawKey: string, sep: string, quoted: string) => {
    const key = /^["']/.test(rawKey) ? unquote(rawKey) : (rawKey.split(".").filter(Boolean).pop() ?? rawKey);
    if (NAMES_VARIABLE.test(key) || /_env_var$/i.test(key)) return whole;
    const shown = maskedValue(unquote(quoted), secretKey(key));
    return shown === null ? whole : `${rawKey}${sep}${quoted[0]}${shown}${quoted[0]}`;
  });
  out = out.replace(STRING, (quoted) => {
    const shown = maskedValue(unquote(quoted), false);
    return shown === null ? quoted : `${quoted[0]}${shown}${quoted[0]}`;
  });
  return out
    .replace(URL_USERINFO, (_, a: string, secret: string, b: string) => `${a}${mask(secret)}${b}`)
    .replace(URL_QUERY, (whole, a: string, secret: string) => {
      const shown = maskedValue(secret, true);
      return shown === null ? whole : `${a}${shown}`;
    });
}

/** Pieces of JSON and TOML lines: quotes, escapes, separators, keys, token prefixes, URLs, references. */
const maskPieces = fc
  .array(
    fc.constantFrom(
      ..."?\"\\=:' &#/@,[]{}$-_.aZ9\t".split(""),
      "\u00a0",
      "\r",
      "\u2028",
      "\u212a",
      "ghp_",
      "sk-",
      "Bearer ",
      "token ",
      "AKIA0123456789AB",
      "token",
      "TOKEN",
      "api_key",
      "GITHUB_TOKEN",
      "password",
      "secret",
      "key",
      "sig",
      "code",
      "auth",
      "env_vars",
      "bearer_token_env_var",
      "https://",
      "u:p@",
      "?token=",
      "&sig=",
      "${A}",
      "${A:-x}",
      "${A:-",
      "${secret:A}",
      "}",
      "{env:A}",
      "abcdefghij0123456789",
    ),
    { maxLength: 12 },
  )
  .map((units) => units.join(""));
const maskQuoted = fc.tuple(fc.constantFrom('"', "'"), maskPieces).map(([q, text]) => `${q}${text}${q}`);
const maskPair = fc
  .tuple(
    fc.constantFrom('"token"', "api_key", "a.env.GITHUB_TOKEN", "'password'", '"url"', "env_vars", "x"),
    fc.constantFrom(":", ": ", " = ", "="),
    maskQuoted,
  )
  .map((parts) => parts.join(""));
/** URLs whose query names say key, code, signature or auth (as parts of longer names too). */
const maskUrl = fc
  .tuple(
    fc.constantFrom("https://h.example/p", "https://u:p4ss@h.example", "://h"),
    fc.array(
      fc.tuple(
        fc.constantFrom("?", "&", "#", "?x&"),
        fc.constantFrom("a.key", "code", "x_sig", "auth-y", "q", "Signature", "tokentoken", ""),
        fc.constantFrom("=", "==", ""),
        fc.constantFrom("abc", "${A}", "${A:-v}", "", "a?b", 'v\\"'),
      ),
      { maxLength: 3 },
    ),
  )
  .map(([base, query]) => `"${base}${query.map((part) => part.join("")).join("")}"`);
/** Lines made of those pieces, of quoted strings of them, of `key: "value"` pairs and of URLs. */
const maskLines = fc
  .array(fc.oneof(maskPieces, maskQuoted, maskPair, maskUrl), { maxLength: 5 })
  .chain((parts) => fc.constantFrom(", ", " ", "").map((glue) => parts.join(glue)));

describe("maskSecrets", () => {
  it("masks as the regexes it was written with did (property)", () => {
    fc.assert(
      fc.property(maskLines, (line) => {
        expect(maskSecrets(line)).toBe(regexMaskSecrets(line));
      }),
      { numRuns: 20_000 },
    );
  });

  it("finds pairs and quoted strings where the global regexes did (property)", () => {
    fc.assert(
      fc.property(maskLines, (line) => {
        const found: string[][] = [];
        const expected: string[][] = [];
        const pairs = replacePairs(line, (...parts) => {
          found.push(parts);
          return "<>";
        });
        const regexPairs = line.replace(MASK_PAIR, (...parts: string[]) => {
          expected.push(parts.slice(0, 4));
          return "<>";
        });
        expect(pairs).toBe(regexPairs);
        expect(found).toEqual(expected);
        expect(replaceQuoted(line, (q) => `<${q.length}>`)).toBe(
          line.replace(STRING, (q) => `<${q.length}>`),
        );
      }),
      { numRuns: 20_000 },
    );
  });

  it("takes time linear in the line, however many quotes, `?` or key letters it holds", () => {
    // 120,000 characters each: every one of these took seconds at 60,000, four times as long at twice that.
    const n = 120_000;
    const lines = [
      `"${"?".repeat(n)}"`,
      `"token": "${'\\"'.repeat(n / 2)}`,
      `"a" ${'"\\'.repeat(n / 2)} ghp_`,
      `"?${"token".repeat(n / 5)}"`,
      `"${"token".repeat(n / 5)}"`,
      `'x' ${"a".repeat(n)}${" ".repeat(n)}`,
    ];
    const start = performance.now();
    for (const line of lines) expect(maskSecrets(line)).toBe(line);
    expect(maskSecrets(`"k": "${'\\"'.repeat(n / 2)}" "ghp_${"?".repeat(n)}"`)).toMatch(
      /^"k": ".*" "<secret [0-9a-f]{4}>"$/,
    );
    expect(performance.now() - start).toBeLessThan(1000);
  });
});
