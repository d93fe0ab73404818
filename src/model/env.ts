/**
 * `${NAME}` and `${NAME:-default}` references. kanon writes them verbatim for agents that expand
 * them (Claude, Codex), converts them for OpenCode (`{env:NAME}`), and expands them itself only where
 * it must act on the value (a git provider's URL).
 */

/**
 * A default runs to the first `}`, or past a `${secret:NAME}` in it (`${API_KEY:-${secret:API_KEY}}`:
 * the variable, else the value kanon's secret store puts there at apply).
 */
const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-((?:\$\{secret:[A-Za-z_][A-Za-z0-9_]*\}|[^}])*))?\}/g;

/**
 * The text up to its last `}`, which ends every reference: matched there only, a reference's `[^}]*`
 * always finds its `}`, so the scan is linear. Past the last `}` it would run to the end of the text
 * from every `${NAME:-` and fail (quadratic: a 360 KB hook command of `${a:-` took validate 39 s).
 */
export function upToLastBrace(text: string): string {
  return text.slice(0, text.lastIndexOf("}") + 1);
}

/** How a message shows a reference: `${NAME}`, never its default, which may be a secret (`${KEY:-sk-…}`). */
export const shownRef = (name: string) => `\${${name}}`;

export interface EnvRef {
  name: string;
  /** undefined when the reference has no `:-default`. */
  fallback: string | undefined;
}

export function envRefs(value: string): EnvRef[] {
  if (!value.includes("${")) return [];
  const refs: EnvRef[] = [];
  for (const m of upToLastBrace(value).matchAll(ENV_REF)) refs.push({ name: m[1]!, fallback: m[2] });
  return refs;
}

/** A variable's value; `${constructor}` must not find Object.prototype's. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return Object.hasOwn(env, name) ? env[name] : undefined;
}

/** Expand every reference: the variable if set and non-empty, else the default, else "". */
export function expandEnv(value: string, env: NodeJS.ProcessEnv): string {
  const head = upToLastBrace(value);
  const expanded = head.replace(ENV_REF, (_m, name: string, fallback: string | undefined) => {
    const v = envValue(env, name);
    return v !== undefined && v !== "" ? v : (fallback ?? "");
  });
  return expanded + value.slice(head.length);
}

/**
 * The text with each reference's default replaced by what `f` gives for it (and its variable's name),
 * or taken out where that is null (`${NAME}`); all else as it is.
 */
export function replaceDefaults(value: string, f: (fallback: string, name: string) => string | null): string {
  const head = upToLastBrace(value);
  const replaced = head.replace(ENV_REF, (m, name: string, fallback: string | undefined) => {
    if (fallback === undefined) return m;
    const next = f(fallback, name);
    return next === null ? `\${${name}}` : `\${${name}:-${next}}`;
  });
  return replaced + value.slice(head.length);
}
