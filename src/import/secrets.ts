/**
 * Plaintext secrets that import finds (reference §5.8.4, what looks like one: core/secrets.ts), by
 * `--secret-policy`:
 * - `store` (the default): each secret in an MCP server goes into this machine's secret store and
 *   kanon.yaml gets `${secret:NAME}`, which apply writes back as the value: the agents keep working,
 *   and the value never reaches the Kanon home (or its remote).
 * - `env`: kanon.yaml gets `${NAME}` instead, for the variable the user sets where the agents run.
 * - `keep`: the Go original's: the value stays, with a warning for every secret-looking value read.
 */
import { isReference, lineSecret, looksSecret, secretRef } from "../core/secrets.js";
import { deepEqual, isPlainObject } from "../formats/values.js";
import type { HookEntry, McpOverride, McpServer } from "../model/config.js";

export const SECRET_POLICIES = ["store", "env", "keep"] as const;
export type SecretPolicy = (typeof SECRET_POLICIES)[number];

/** Values that are environment variable names, not values (`env_http_headers.X-Api-Key = "API_KEY"`). */
const NAMES_ENV = /(env_headers|env_http_headers|env_vars)(\.[^.]+|\[\d+\])$|_env_var$/;

/** The `keep` policy's scan of a whole native file: every secret-looking value, by path. */
export function secretWarnings(value: unknown, path: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown, p: string, key: string) => {
    if (typeof v === "string") {
      if (NAMES_ENV.test(p)) return;
      if (looksSecret(key, v))
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

export interface MovedSecrets {
  servers: Record<string, McpServer>;
  /** New entries for the secret store (`store` policy): name → value. */
  secrets: Record<string, string>;
  warnings: string[];
}

/** `MY-SERVER` and `x-api-key` → `MY_SERVER`, `X_API_KEY`. */
const envName = (s: string) => {
  const n = s
    .toUpperCase()
    .replace(/[^A-Z0-9_]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return /^[A-Z_]/.test(n) ? n : `_${n}`;
};

/** `Bearer <token>` keeps its scheme in kanon.yaml; only the token is the secret. */
const SCHEME = /^(Bearer|Token|Basic) +(\S.*)$/i;

/**
 * The servers with every plaintext secret replaced by a reference (`store`: `${secret:NAME}`, the
 * value to be stored; `env`: `${NAME}`). Names come from the env key (`GITHUB_TOKEN`), else the
 * server and the header (`DOCS_AUTHORIZATION`) or `<SERVER>_TOKEN`; a value the store already
 * has keeps its name there, and a name taken by another value gets `_2`, `_3`.
 */
export function moveSecrets(
  servers: Record<string, McpServer>,
  policy: "store" | "env",
  stored: Readonly<Record<string, string>>,
): MovedSecrets {
  const secrets: Record<string, string> = {};
  const warnings: string[] = [];
  const taken = (n: string) => Object.hasOwn(stored, n) || Object.hasOwn(secrets, n);
  const nameFor = (base: string, value: string): string => {
    if (policy === "env") return base;
    const known = [base, ...Object.keys(stored), ...Object.keys(secrets)].find(
      (n) => stored[n] === value || secrets[n] === value,
    );
    if (known) return known;
    let name = base;
    for (let i = 2; taken(name); i++) name = `${base}_${i}`;
    return name;
  };
  const replace = (where: string, base: string, value: string): string => {
    const name = nameFor(base, value);
    if (policy === "store") {
      secrets[name] = value;
      warnings.push(
        `plaintext secret at ${where}: kanon.yaml says ${secretRef(name)}, and the value goes into this machine's secret store, never into the Kanon home`,
      );
      return secretRef(name);
    }
    warnings.push(
      `replaced the plaintext secret at ${where} with \${${name}}: set ${name} where your agents run (kanon diff shows the change)`,
    );
    return `\${${name}}`;
  };

  const fields = (server: string, s: McpOverride, where: string): McpOverride => {
    const out: McpOverride = { ...s };
    if (s.env) {
      out.env = Object.fromEntries(
        Object.entries(s.env).map(([k, v]) => [
          k,
          looksSecret(k, v) ? replace(`${where} env.${k}`, envName(k), v) : v,
        ]),
      );
    }
    if (s.headers) {
      out.headers = Object.fromEntries(
        Object.entries(s.headers).map(([h, v]) => {
          if (!looksSecret(h, v)) return [h, v];
          const scheme = SCHEME.exec(v);
          if (scheme && isReference(scheme[2]!)) return [h, v];
          const base = envName(`${server}_${scheme ? "token" : h}`);
          return [
            h,
            scheme
              ? `${scheme[1]} ${replace(`${where} headers.${h}`, base, scheme[2]!)}`
              : replace(`${where} headers.${h}`, base, v),
          ];
        }),
      );
    }
    if (s.args) {
      out.args = s.args.map((a, i) => {
        // `--token=<value>` keeps its flag; a bare value is a secret by its look only.
        const flag = /^(--?[A-Za-z][\w-]*=)(.+)$/.exec(a);
        if (flag && looksSecret(flag[1]!.replace(/^-+|=$/g, ""), flag[2]!))
          return `${flag[1]}${replace(`${where} args[${i}]`, envName(`${server}_${flag[1]!.replace(/^-+|=$/g, "")}`), flag[2]!)}`;
        return looksSecret("", a) ? replace(`${where} args[${i}]`, envName(`${server}_token`), a) : a;
      });
    }
    return out;
  };

  const out: Record<string, McpServer> = {};
  for (const name of Object.keys(servers).sort()) {
    const s = servers[name]!;
    const where = `mcp server ${JSON.stringify(name)}`;
    const base = { ...s, ...fields(name, s, where) } as McpServer;
    if (s.overrides) {
      const overrides: Record<string, McpOverride> = {};
      for (const [agent, o] of Object.entries(s.overrides)) {
        const moved = fields(name, o, `${where} overrides.${agent}`);
        // What the agent now gets the same as the server needs no override.
        const kept = Object.fromEntries(
          Object.entries(moved).filter(
            ([k, v]) => k === "unset" || !deepEqual(v, base[k as keyof McpServer]),
          ),
        ) as McpOverride;
        if (Object.keys(kept).length > 0) overrides[agent] = kept;
      }
      if (Object.keys(overrides).length > 0) base.overrides = overrides;
      else delete base.overrides;
    }
    out[name] = base;
  }
  // In kanon.yaml's order, as found.
  return { servers: Object.fromEntries(Object.keys(servers).map((n) => [n, out[n]!])), secrets, warnings };
}

/** Secrets left in hooks (references work in MCP servers only): named, so that the user can move them. */
export function hookSecretWarnings(hooks: readonly HookEntry[]): string[] {
  const out: string[] = [];
  for (const h of hooks) {
    const strings: [string, string][] = [
      ["command", h.command ?? ""],
      ["url", h.url ?? ""],
      ...(h.args ?? []).map((a, i): [string, string] => [`args[${i}]`, a]),
      ...Object.entries(h.headers ?? {}).map(([k, v]): [string, string] => [`headers.${k}`, v]),
    ];
    for (const [field, v] of strings) {
      const key = field.startsWith("headers.") ? field.slice(8) : "";
      if (looksSecret(key, v) || (v !== "" && !isReference(v) && lineSecret(v, "") !== null))
        out.push(
          `kept a plaintext secret in hook ${JSON.stringify(h.name)} ${field}: \${secret:NAME} works in MCP servers only, so move it out of the hook by hand (kanon push refuses it until then)`,
        );
    }
  }
  return out;
}
