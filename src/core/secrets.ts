/**
 * What looks like a secret in an agent's settings: by its key (`GITHUB_TOKEN`, `Authorization`,
 * `api_key`…) or by its shape (`ghp_…`, `sk-…`, `Bearer …`). References (`${VAR}`, `{env:VAR}`,
 * `op://…`) are not secrets. Import warns about such values (core/import/secrets.ts); every command
 * that shows a co-owned file's lines (diff, render, `--json`, the UI) masks them (maskSecrets).
 */

const SECRET_KEY_PARTS = [
  "secret",
  "password",
  "passphrase",
  "private_key",
  "credential",
  "api_key",
  "api-key",
];

/** A value that is a secret by its first characters (what import warns about). */
export const SECRET_VALUE = /^(sk-|ghp_|github_pat_|bearer |token )/i;

/** Token shapes masked wherever they stand in a co-owned file's line, whatever their key. */
const TOKEN_SHAPE =
  /^(?:sk-|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abprs]-|AKIA[0-9A-Z]{12}|AIza[0-9A-Za-z_-]{20}|(?:bearer|token|basic) \S)/i;

export const REFERENCE =
  /\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}|\{env:[A-Za-z_][A-Za-z0-9_]*\}|KANON_REDACTED_SECRET_REVIEW_REQUIRED/;

export function secretKey(key: string): boolean {
  const k = key.toLowerCase();
  return (
    SECRET_KEY_PARTS.some((p) => k.includes(p)) ||
    k === "authorization" ||
    k === "cookie" ||
    k.endsWith("_authorization") ||
    k.endsWith("apikey") ||
    k.endsWith("token")
  );
}

/** Whether a value is kept as it is: empty, a reference to a secret, or a name. */
const notSecret = (value: string) => value === "" || REFERENCE.test(value) || value.startsWith("op://");

/** What a masked value shows: the same secret always shows the same few hex digits, so a change is seen. */
function mask(value: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193) >>> 0;
  return `<secret ${(h & 0xffff).toString(16).padStart(4, "0")}>`;
}

/** Keys whose values name variables rather than hold them (`env_vars = ["API_TOKEN"]`, `bearer_token_env_var`). */
const NAMES_VARIABLE = /(?:^|_)env_vars?$|^env_(?:http_)?headers$/i;

/** A quoted string in JSON or TOML (`"…"` with escapes, or TOML's literal `'…'`). */
const QUOTED = String.raw`"(?:[^"\\]|\\.)*"|'[^']*'`;
/** `key: "value"` (JSON) or `key = "value"` (TOML, bare, quoted or dotted key). */
const PAIR = new RegExp(String.raw`(${QUOTED}|[A-Za-z0-9_.-]+)(\s*[:=]\s*)(${QUOTED})`, "g");
const STRING = new RegExp(QUOTED, "g");
/** Credentials inside a URL: `user:password@` and query values of secret-looking parameters. */
const URL_USERINFO = /(:\/\/[^/\s:@"']+:)([^@\s"'/]+)(@)/g;
const URL_QUERY =
  /([?&#][A-Za-z0-9_.-]*(?:token|key|secret|password|passwd|pwd|auth|sig|signature|code)[A-Za-z0-9_.-]*=)([^&#\s"']+)/gi;

/**
 * What every line with a secret in it holds (a key word, a token's first characters, a URL's
 * credentials): the lines without (nearly all of a large settings file) are passed over by one test.
 */
const SUSPECT =
  /secret|pass(?:word|phrase|wd)|pwd|private_key|credential|api[_-]?key|authorization|cookie|token|sk-|gh[pousr]_|github_pat_|glpat-|xox[abprs]-|AKIA|AIza|bearer |basic |:\/\/[^\s"'/]*@|[?&#][^=\s"']*(?:key|sig|code|auth)/i;

const unquote = (q: string) => q.slice(1, -1);
/** A TOML dotted key's last part (`mcp_servers.github.env.GITHUB_TOKEN` → `GITHUB_TOKEN`). */
const lastKeyPart = (key: string) => key.split(".").filter(Boolean).pop() ?? key;

/**
 * One line of a co-owned file (JSON, JSONC or TOML) with every secret value replaced by
 * `<secret xxxx>`: a value whose key looks secret, a string shaped like a token, and credentials in
 * a URL. Everything else — keys, layout, references — stays, so the line still reads as it is on disk.
 */
export function maskSecrets(line: string): string {
  if (!SUSPECT.test(line) || !/['"]/.test(line)) return line;
  let out = line.replace(PAIR, (whole, rawKey: string, sep: string, quoted: string) => {
    const key = /^["']/.test(rawKey) ? unquote(rawKey) : lastKeyPart(rawKey);
    const value = unquote(quoted);
    if (notSecret(value) || NAMES_VARIABLE.test(key) || /_env_var$/i.test(key)) return whole;
    if (!secretKey(key) && !TOKEN_SHAPE.test(value)) return whole;
    return `${rawKey}${sep}${quoted[0]}${mask(value)}${quoted[0]}`;
  });
  // Token-shaped strings outside a key/value pair (`args = ["--token", "ghp_…"]`).
  out = out.replace(STRING, (quoted) => {
    const value = unquote(quoted);
    return !notSecret(value) && TOKEN_SHAPE.test(value) ? `${quoted[0]}${mask(value)}${quoted[0]}` : quoted;
  });
  return out
    .replace(URL_USERINFO, (_, a: string, secret: string, b: string) => `${a}${mask(secret)}${b}`)
    .replace(URL_QUERY, (whole, a: string, secret: string) =>
      notSecret(secret) ? whole : `${a}${mask(secret)}`,
    );
}

/** maskSecrets on every line of a text. */
export function maskSecretLines(text: string): string {
  return SUSPECT.test(text) ? text.split("\n").map(maskSecrets).join("\n") : text;
}
