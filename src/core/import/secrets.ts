/**
 * The import secret scan (reference §5.8.4): plaintext that looks like a secret is reported by path
 * and kept (the only policy is keep). References (`${VAR}`, `{env:VAR}`, `op://…`) are not secrets.
 */
import { isPlainObject } from "../../formats/values.js";
import { REFERENCE, SECRET_VALUE, secretKey } from "../secrets.js";

/** Values that are environment variable names, not values (`env_http_headers.X-Api-Key = "API_KEY"`). */
const NAMES_ENV = /(env_headers|env_http_headers|env_vars)(\.[^.]+|\[\d+\])$|_env_var$/;

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
