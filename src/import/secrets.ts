/**
 * The import secret scan (reference §5.8.4): plaintext that looks like a secret is reported by path
 * and kept (the only policy is keep). References (`${VAR}`, `{env:VAR}`, `op://…`) are not secrets.
 */
import { isPlainObject } from "../formats/values.js";

const SECRET_KEY_PARTS = [
  "secret",
  "password",
  "passphrase",
  "private_key",
  "credential",
  "api_key",
  "api-key",
];
const SECRET_VALUE = /^(sk-|ghp_|github_pat_|bearer |token )/i;
const REFERENCE =
  /\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}|\{env:[A-Za-z_][A-Za-z0-9_]*\}|KANON_REDACTED_SECRET_REVIEW_REQUIRED/;

/** Values that are environment variable names, not values (`env_http_headers.X-Api-Key = "API_KEY"`). */
const NAMES_ENV = /(env_headers|env_http_headers|env_vars)(\.[^.]+|\[\d+\])$|_env_var$/;

function secretKey(key: string): boolean {
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

export function secretWarnings(value: unknown, path: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown, p: string, key: string) => {
    if (typeof v === "string") {
      if (v === "" || REFERENCE.test(v) || v.startsWith("op://") || NAMES_ENV.test(p)) return;
      if (secretKey(key) || SECRET_VALUE.test(v))
        out.push(`kept possible plaintext secret at ${p} because secret policy is keep`);
    } else if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) walk(item, `${p}[${i}]`, key);
    } else if (isPlainObject(v)) {
      for (const [k, item] of Object.entries(v)) walk(item, `${p}.${k}`, k);
    }
  };
  walk(value, path, "");
  return out;
}
