/**
 * Plaintext secrets that import finds (reference §5.8.4, what looks like one: core/secrets.ts), by
 * `--secret-policy`:
 * - `store` (the default): each secret in an MCP server goes into this machine's secret store and
 *   kanon.yaml gets `${secret:NAME}`, which apply writes back as the value: the agents keep working,
 *   and the value never reaches the Kanon home (or its remote).
 * - `env`: kanon.yaml gets `${NAME}` instead, for the variable the user sets where the agents run.
 * - `keep`: the Go original's: the value stays, with a warning for every secret-looking value read.
 * A reference keeps its variable and only its default moves: `${API_KEY:-sk-…}` becomes
 * `${API_KEY:-${secret:API_KEY}}` (apply writes back exactly what was read), or `${API_KEY}` (`env`).
 */
import { isReference, lineSecret, looksSecret, secretRef } from "../core/secrets.js";
import { deepEqual, isPlainObject } from "../formats/values.js";
import type { HookEntry, McpOverride, McpServer } from "../model/config.js";
import { replaceDefaults, shownRef } from "../model/env.js";

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
 * Plaintext secrets taken out of values by policy (`store`: `${secret:NAME}`, the value to be
 * stored; `env`: `${NAME}`), with what goes into the store and a warning for each.
 */
class SecretMover {
  readonly secrets: Record<string, string> = {};
  readonly warnings: string[] = [];

  constructor(
    private readonly policy: "store" | "env",
    private readonly stored: Readonly<Record<string, string>>,
  ) {}

  /**
   * `value`, found under `key`, with its secret moved: a plain value whole; a reference keeps its
   * variable, and a default that is a secret goes into the store (`${VAR:-${secret:NAME}}`, which
   * apply writes back as it was read) or, for `env`, goes (`${VAR}`: that variable is the one to set).
   * Messages name the variable, never its default.
   */
  move(where: string, base: string, key: string, value: string): string {
    if (!looksSecret(key, value)) return value;
    if (!isReference(value)) return this.replace(where, base, value);
    return replaceDefaults(value, (fallback, variable) => {
      if (!looksSecret(key, fallback)) return fallback;
      if (this.policy === "env") {
        this.warnings.push(
          `removed the plaintext default of ${shownRef(variable)} at ${where}: set ${variable} where your agents run (kanon diff shows the change)`,
        );
        return null;
      }
      const name = this.store(base, fallback);
      this.warnings.push(
        `plaintext secret in the default of ${shownRef(variable)} at ${where}: kanon.yaml says \${${variable}:-${secretRef(name)}}, and the value goes into this machine's secret store, never into the Kanon home`,
      );
      return secretRef(name);
    });
  }

  private replace(where: string, base: string, value: string): string {
    if (this.policy === "store") {
      const name = this.store(base, value);
      this.warnings.push(
        `plaintext secret at ${where}: kanon.yaml says ${secretRef(name)}, and the value goes into this machine's secret store, never into the Kanon home`,
      );
      return secretRef(name);
    }
    this.warnings.push(
      `replaced the plaintext secret at ${where} with \${${base}}: set ${base} where your agents run (kanon diff shows the change)`,
    );
    return `\${${base}}`;
  }

  /** The value's name in the store: the one it has there already, else `base` (`_2`, `_3` when taken). */
  private store(base: string, value: string): string {
    const known = [base, ...Object.keys(this.stored), ...Object.keys(this.secrets)].find(
      (n) => this.stored[n] === value || this.secrets[n] === value,
    );
    let name = known ?? base;
    const taken = (n: string) => Object.hasOwn(this.stored, n) || Object.hasOwn(this.secrets, n);
    for (let i = 2; !known && taken(name); i++) name = `${base}_${i}`;
    this.secrets[name] = value;
    return name;
  }
}

/**
 * The servers with every plaintext secret replaced by a reference (SecretMover). Names come from the
 * env key (`GITHUB_TOKEN`), else the server and the header (`DOCS_AUTHORIZATION`) or
 * `<SERVER>_TOKEN`; a value the store already has keeps its name there, and a name taken by another
 * value gets `_2`, `_3`.
 */
export function moveSecrets(
  servers: Record<string, McpServer>,
  policy: "store" | "env",
  stored: Readonly<Record<string, string>>,
): MovedSecrets {
  const mover = new SecretMover(policy, stored);
  const move = mover.move.bind(mover);
  const fields = (server: string, s: McpOverride, where: string): McpOverride => {
    const out: McpOverride = { ...s };
    if (s.env) {
      out.env = Object.fromEntries(
        Object.entries(s.env).map(([k, v]) => [k, move(`${where} env.${k}`, envName(k), k, v)]),
      );
    }
    if (s.headers) {
      out.headers = Object.fromEntries(
        Object.entries(s.headers).map(([h, v]) => {
          if (!looksSecret(h, v)) return [h, v];
          const scheme = SCHEME.exec(v);
          const base = envName(`${server}_${scheme ? "token" : h}`);
          return [
            h,
            scheme
              ? `${scheme[1]} ${move(`${where} headers.${h}`, base, h, scheme[2]!)}`
              : move(`${where} headers.${h}`, base, h, v),
          ];
        }),
      );
    }
    if (s.args) {
      out.args = s.args.map((a, i) => {
        // `--token=<value>` keeps its flag; a bare value is a secret by its look only.
        const flag = /^(--?[A-Za-z][\w-]*=)(.+)$/.exec(a);
        const name = flag ? flag[1]!.replace(/^-+|=$/g, "") : "";
        if (flag && looksSecret(name, flag[2]!))
          return `${flag[1]}${move(`${where} args[${i}]`, envName(`${server}_${name}`), name, flag[2]!)}`;
        return move(`${where} args[${i}]`, envName(`${server}_token`), "", a);
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
  const { secrets, warnings } = mover;
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
