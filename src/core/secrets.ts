/**
 * What looks like a plaintext secret, and what never is: one set of rules for import (which moves
 * such values into the machine's secret store), `kanon push` (which refuses to send one) and apply
 * (which keeps the files holding one private), and the masking of every co-owned file's lines that
 * diff, render, `--json` and the UI show (maskSecrets). References are never secrets: `${VAR}`,
 * `{env:VAR}`, `$VAR`, `op://…`, and kanon's own `${secret:NAME}`, which names a value in the secret store.
 * A reference's default is a value like any other (`${API_KEY:-sk-…}`), judged by the same rules.
 */

import { envRefs, replaceDefaults, upToLastBrace } from "../model/env.js";
import { replacePairs, replaceQuoted } from "./quoted.js";

/** kanon.yaml's reference to a value in this machine's secret store: `${secret:GITHUB_TOKEN}`. */
export const SECRET_REF = /\$\{secret:([A-Za-z_][A-Za-z0-9_]*)\}/g;

export const secretRef = (name: string) => `\${secret:${name}}`;

/** The secret names a string refers to, in order (repeats kept). */
export function secretRefs(value: string): string[] {
  if (!value.includes("${secret:")) return [];
  return [...value.matchAll(SECRET_REF)].map((m) => m[1]!);
}

const SECRET_KEY_PARTS = [
  "secret",
  "password",
  "passphrase",
  "private_key",
  "credential",
  "api_key",
  "api-key",
];

/** A key whose value is a secret (reference §5.8.4): `GITHUB_TOKEN`, `Authorization`, `api_key`. */
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

/** A value that is a secret by its look (reference §5.8.4). */
const SECRET_VALUE = /^(sk-|ghp_|github_pat_|bearer |token )/i;

/** `${VAR}`, `${VAR:-default}`, `${secret:NAME}` or `{env:VAR}`, each ending in `}`. */
const BRACED_REFERENCE =
  /\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}|\$\{secret:[A-Za-z_][A-Za-z0-9_]*\}|\{env:[A-Za-z_][A-Za-z0-9_]*\}/;

/** A value that stands for a secret kept elsewhere, never the secret itself. */
export function isReference(value: string): boolean {
  return (
    // Looked for up to the last `}` only, in time linear in the value (model/env.ts upToLastBrace).
    BRACED_REFERENCE.test(upToLastBrace(value)) ||
    value.includes("KANON_REDACTED_SECRET_REVIEW_REQUIRED") ||
    value.startsWith("op://") ||
    /^\$[A-Za-z_][A-Za-z0-9_]*$/.test(value)
  );
}

/** Whether `value`, found under `key`, is a plaintext secret, or holds one as a reference's default. */
export function looksSecret(key: string, value: string): boolean {
  if (value === "") return false;
  if (isReference(value))
    return envRefs(value).some((r) => r.fallback !== undefined && looksSecret(key, r.fallback));
  return secretKey(key) || SECRET_VALUE.test(value);
}

/** Token shapes that are secrets wherever they appear (push scans every line for them). */
const TOKEN_SHAPES: { shape: RegExp; what: string }[] = [
  { shape: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/, what: "a GitHub token" },
  { shape: /\bgithub_pat_[A-Za-z0-9_]{20,}/, what: "a GitHub token" },
  { shape: /\bglpat-[A-Za-z0-9_-]{20,}/, what: "a GitLab token" },
  { shape: /\bsk-[A-Za-z0-9_-]{20,}/, what: "an API key" },
  { shape: /\bxox[abposr]-[A-Za-z0-9-]{10,}/, what: "a Slack token" },
  { shape: /\bAKIA[0-9A-Z]{16}\b/, what: "an AWS access key" },
  { shape: /-----BEGIN [A-Z ]*PRIVATE KEY-----/, what: "a private key" },
  { shape: /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/, what: "a bearer token" },
];

/** Where a value starts in a line of YAML, JSON or TOML: after `key: `, `"key": ` or `key = `. */
const PAIR_KEY = /(?:^|[\s{,[])["']?([A-Za-z0-9_.-]+)["']?\s*[:=]\s*/g;
/** The value there: quoted, a `${…}` (its default may hold a `${secret:NAME}`) or `{env:…}` reference, or a bare word. */
const PAIR_VALUE =
  /"(?:[^"\\]|\\.)*"|'[^']*'|\$\{(?:\$\{secret:[A-Za-z_][A-Za-z0-9_]*\}|[^}])*\}|\{env:[^}]*\}|[^\s,}\]#]+/y;
/** The same past the line's last `}`, where no reference can be closed. */
const OPEN_VALUE = /"(?:[^"\\]|\\.)*"|'[^']*'|[^\s,}\]#]+/y;

/**
 * The `key: value`, `"key": "value"` and `key = "value"` pairs of a line: each key, and its value as
 * written. In time linear in the line: one regex for all would look for a reference's `}` from
 * every `key: ${` to the end of a line that has none left (quadratic).
 */
function* pairs(line: string): Generator<{ key: string; raw: string }> {
  const lastBrace = line.lastIndexOf("}");
  const keys = new RegExp(PAIR_KEY);
  for (let m = keys.exec(line); m !== null; m = keys.exec(line)) {
    const value = keys.lastIndex > lastBrace ? OPEN_VALUE : PAIR_VALUE;
    value.lastIndex = keys.lastIndex;
    const raw = value.exec(line)?.[0];
    // No value here: look for the next key from the next character, as one regex would.
    keys.lastIndex = raw === undefined ? m.index + 1 : value.lastIndex;
    if (raw !== undefined) yield { key: m[1]!, raw };
  }
}

/** Files whose `key: value` lines are settings (instruction and skill texts are prose). */
const SETTINGS_FILE = /\.(ya?ml|json|jsonc|toml|env|ini|conf)$|(^|\/)\.env[^/]*$/i;

/**
 * What kind of plaintext secret a line holds, or null: a known token shape anywhere, or in a settings
 * file a secret-named key with a literal value. Never the value itself, so that callers cannot print it.
 */
export function lineSecret(line: string, file: string): string | null {
  for (const { shape, what } of TOKEN_SHAPES) {
    const m = shape.exec(line);
    if (m && !isReference(m[0].replace(/^Bearer\s+/, ""))) return what;
  }
  if (!SETTINGS_FILE.test(file)) return null;
  for (const { key, raw } of pairs(line)) {
    if (!secretKey(key)) continue;
    const value = /^["']/.test(raw) ? raw.slice(1, -1) : raw;
    if (credential(value)) return `a value for ${JSON.stringify(key)}`;
  }
  return null;
}

/** A secret-named key's value that is a credential, or a reference whose default is one. */
function credential(value: string): boolean {
  if (isReference(value))
    return envRefs(value).some((r) => r.fallback !== undefined && credential(r.fallback));
  // Short words and flags (`token: none`, `api_key: true`) are not credentials.
  if (value.length < 8 || /\s/.test(value)) return false;
  return !/^(true|false|null|none|changeme|example)$/i.test(value) && !/^[<[{]/.test(value);
}

/** A `${secret:NAME}` that this machine's store does not have, and where kanon.yaml uses it. */
export interface MissingSecret {
  name: string;
  server: string;
}

/**
 * The servers with every `${secret:NAME}` replaced by the value `lookup` gives (overrides too): what
 * apply writes into the agents' files. The values used are returned (name → value) so that the
 * caller can keep the files that hold them private and keep the values out of its output.
 */
export function substituteSecrets<S extends object>(
  servers: Record<string, S>,
  lookup: (name: string) => string | undefined,
): { servers: Record<string, S>; used: Map<string, string>; missing: MissingSecret[] } {
  const used = new Map<string, string>();
  const missing: MissingSecret[] = [];
  const walk = (v: unknown, server: string): unknown => {
    if (typeof v === "string") {
      if (!v.includes("${secret:")) return v;
      return v.replace(SECRET_REF, (ref, name: string) => {
        const value = lookup(name);
        if (value === undefined) {
          if (!missing.some((m) => m.name === name && m.server === server)) missing.push({ name, server });
          return ref;
        }
        used.set(name, value);
        return value;
      });
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, server));
    if (v !== null && typeof v === "object")
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, server)]));
    return v;
  };
  const out: Record<string, S> = {};
  for (const [name, s] of Object.entries(servers)) out[name] = walk(s, name) as S;
  return { servers: out, used, missing };
}

/** Whether any string of `value` names a secret (a home without one never reads the store). */
export function usesSecrets(value: unknown): boolean {
  return JSON.stringify(value).includes("${secret:");
}

// Masking: what diff, render and the UI show of a co-owned file's lines.

/** Token shapes masked wherever they stand in a co-owned file's line, whatever their key. */
const TOKEN_SHAPE =
  /^(?:sk-|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abprs]-|AKIA[0-9A-Z]{12}|AIza[0-9A-Za-z_-]{20}|(?:bearer|token|basic) \S)/i;

/** What a masked value shows: the same secret always shows the same few hex digits, so a change is seen. */
function mask(value: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193) >>> 0;
  return `<secret ${(h & 0xffff).toString(16).padStart(4, "0")}>`;
}

/**
 * A value as masking shows it, or null when it shows as it is: a secret (by its key, `byKey`, or by
 * its token shape) masked whole; a reference as it is, but for its defaults, each masked by the same
 * rules (`${API_KEY:-<secret 1a2b>}`).
 */
function masked(value: string, byKey: boolean): string | null {
  if (value === "") return null;
  if (!isReference(value)) return byKey || TOKEN_SHAPE.test(value) ? mask(value) : null;
  const shown = replaceDefaults(value, (fallback) => masked(fallback, byKey) ?? fallback);
  return shown === value ? null : shown;
}

/** Keys whose values name variables rather than hold them (`env_vars = ["API_TOKEN"]`, `bearer_token_env_var`). */
const NAMES_VARIABLE = /(?:^|_)env_vars?$|^env_(?:http_)?headers$/i;

/** Credentials inside a URL: `user:password@` and query values of secret-looking parameters. */
const URL_USERINFO = /(:\/\/[^/\s:@"']+:)([^@\s"'/]+)(@)/g;
/**
 * The parameter's name is looked at once, in a lookahead: as `[…]*(?:token|…)[…]*=` the name was
 * read to its end again from every `token` in it (`?tokentoken…` was quadratic).
 */
const URL_QUERY =
  /([?&#](?=[A-Za-z0-9_.-]*?(?:token|key|secret|password|passwd|pwd|auth|sig|signature|code))[A-Za-z0-9_.-]*=)([^&#\s"']+)/gi;

/**
 * What every line with a secret in it holds (a key word, a token's first characters, a URL's
 * credentials), in any case: the lines without (nearly all of a large settings file) are passed over
 * by one test. The text is lower-cased and tested case-sensitively (any more it lets through, such as
 * a Kelvin sign lower-cased to `k`, the patterns below decide): V8 compiles this long alternation,
 * once for its interpreter and once to machine code in every run, at a fraction of the cost of its
 * `/i` form. Measured on a `diff` of the example home (valgrind, median of 5, Node 20.20):
 * about 3 M fewer instructions (232 -> 229 M). A query's name is read from its last `?`, `&` or `#`
 * only (the same lines match): from each of them it was read again to the end of a run of `?`.
 */
const SUSPECT_LOWER =
  /secret|pass(?:word|phrase|wd)|pwd|private_key|credential|api[_-]?key|authorization|cookie|token|sk-|gh[pousr]_|github_pat_|glpat-|xox[abprs]-|akia|aiza|bearer |basic |:\/\/[^\s"'/]*@|[?&#][^=\s"'?&#]*(?:key|sig|code|auth)/;
const suspect = (text: string) => SUSPECT_LOWER.test(text.toLowerCase());

const unquote = (q: string) => q.slice(1, -1);
/** A TOML dotted key's last part (`mcp_servers.github.env.GITHUB_TOKEN` → `GITHUB_TOKEN`). */
const lastKeyPart = (key: string) => key.split(".").filter(Boolean).pop() ?? key;

/**
 * One line of a co-owned file (JSON, JSONC or TOML) with every secret value replaced by
 * `<secret xxxx>`: a value whose key looks secret, a string shaped like a token, and credentials in
 * a URL. Everything else — keys, layout, references — stays, so the line still reads as it is on disk.
 */
export function maskSecrets(line: string): string {
  if (!/['"]/.test(line) || !suspect(line)) return line;
  // `key: "value"` (JSON) or `key = "value"` (TOML, bare, quoted or dotted key).
  let out = replacePairs(line, (whole, rawKey, sep, quoted) => {
    const key = /^["']/.test(rawKey) ? unquote(rawKey) : lastKeyPart(rawKey);
    if (NAMES_VARIABLE.test(key) || /_env_var$/i.test(key)) return whole;
    const shown = masked(unquote(quoted), secretKey(key));
    return shown === null ? whole : `${rawKey}${sep}${quoted[0]}${shown}${quoted[0]}`;
  });
  // Token-shaped strings outside a key/value pair (`args = ["--token", "ghp_…"]`).
  out = replaceQuoted(out, (quoted) => {
    const shown = masked(unquote(quoted), false);
    return shown === null ? quoted : `${quoted[0]}${shown}${quoted[0]}`;
  });
  return out
    .replace(URL_USERINFO, (_, a: string, secret: string, b: string) => `${a}${mask(secret)}${b}`)
    .replace(URL_QUERY, (whole, a: string, secret: string) => {
      const shown = masked(secret, true);
      return shown === null ? whole : `${a}${shown}`;
    });
}

/** maskSecrets on every line of a text. */
export function maskSecretLines(text: string): string {
  return suspect(text) ? text.split("\n").map(maskSecrets).join("\n") : text;
}
