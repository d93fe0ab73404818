/**
 * One native MCP entry read back into a neutral server (reference §5.8.4), through the agent's field
 * table (`import.mcpEntry` in its manifest): which keys it has, what each holds, which neutral field
 * it fills. Every agent's entries go through this one reader, so they fail alike and say so alike.
 */
import { isPlainObject, isStringList } from "../formats/values.js";
import type { McpServer, McpTool } from "../model/config.js";
import type { McpEntryRead, McpField, McpRead } from "../model/manifest.js";
import { wordList } from "../model/text.js";

/** How an entry spells an environment reference, as patterns and as a conversion to `${NAME}`. */
interface RefSyntax {
  /** The value is one reference, with nothing around it (and no default). */
  whole: RegExp;
  /** `Bearer <reference>`. */
  bearer: RegExp;
  /** The value with every reference in kanon.yaml's `${NAME}`. */
  neutral(value: string): string;
}

const NAME = "([A-Za-z_][A-Za-z0-9_]*)";
const REF_SYNTAX: Record<NonNullable<McpEntryRead["envRef"]>, RefSyntax> = {
  "${NAME}": {
    whole: new RegExp(`^\\$\\{${NAME}\\}$`),
    bearer: new RegExp(`^Bearer \\$\\{${NAME}\\}$`),
    neutral: (v) => v,
  },
  // The inverse of the render's `${NAME}` → `{env:NAME}` (OpenCode).
  "{env:NAME}": {
    whole: new RegExp(`^\\{env:${NAME}\\}$`),
    bearer: new RegExp(`^Bearer \\{env:${NAME}\\}$`),
    neutral: (v) => v.replace(new RegExp(`\\{env:${NAME}\\}`, "g"), "$${$1}"),
  },
};

const leftRaw = (agent: string, name: string, why: string) =>
  `left MCP server ${JSON.stringify(name)} raw for ${agent} because ${why}`;

function isStringMap(v: unknown): v is Record<string, string> {
  return isPlainObject(v) && Object.values(v).every((x) => typeof x === "string");
}

/** `"a", "b" or "c"` */
const oneOf = (values: string[]) =>
  wordList(
    values.map((v) => JSON.stringify(v)),
    "or",
  );

/**
 * The neutral server in `entry`, with a warning for each key the table does not have or whose value
 * is not what it holds; no server when the entry is not an object or has neither a command nor a url
 * (a server kanon cannot render).
 */
export function readMcpEntry(agent: string, table: McpEntryRead, name: string, entry: unknown): McpRead {
  if (!isPlainObject(entry))
    return { server: null, keys: [], warnings: [leftRaw(agent, name, "it is not an object")] };
  const refs = REF_SYNTAX[table.envRef ?? "${NAME}"];
  const warnings: string[] = [];
  const keys: string[] = [];
  const s: McpServer = {};
  for (const [key, v] of Object.entries(entry)) {
    const field = Object.hasOwn(table.fields, key) ? table.fields[key] : undefined;
    const not = field ? readField(s, field, v, refs) : "";
    if (not === null) keys.push(key);
    else
      warnings.push(
        `skipped unsupported ${agent} mcp server ${JSON.stringify(name)} field ${JSON.stringify(key)}${not && ` because it is not ${not}`}`,
      );
  }
  if (!s.command && !s.url)
    return { server: null, keys: [], warnings: [leftRaw(agent, name, "it has no command or url")] };
  if (table.omitImpliedType && s.type === (s.url ? "http" : "stdio")) delete s.type;
  return { server: s, keys, warnings };
}

/** Sets what `v` holds on `s`; null when it did, else what it should have been (`a string`). */
function readField(s: McpServer, f: McpField, v: unknown, refs: RefSyntax): string | null {
  switch (f.kind) {
    case "string":
      if (typeof v !== "string") return "a string";
      s[f.to] = v;
      return null;
    case "strings":
      if (!isStringList(v)) return "a list of strings";
      s[f.to] = [...v];
      return null;
    case "env":
      if (!isStringMap(v)) return "a map of strings";
      s.env = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, refs.neutral(x)]));
      return null;
    case "headers": {
      if (!isStringMap(v)) return "a map of strings";
      // A later headers key replaces the literal headers of an earlier one (reference §5.8.4).
      const literal: Record<string, string> = {};
      const fromEnv: Record<string, string> = { ...s.env_headers };
      for (const [header, value] of Object.entries(v)) {
        const authorization =
          f.bearer === "any case" ? header.toLowerCase() === "authorization" : header === f.bearer;
        const token = authorization ? refs.bearer.exec(value) : null;
        const ref = f.envRefs ? refs.whole.exec(value) : null;
        if (token) s.bearer_token_env_var = token[1]!;
        else if (ref) fromEnv[header] = ref[1]!;
        else literal[header] = refs.neutral(value);
      }
      if (Object.keys(literal).length > 0) s.headers = literal;
      else delete s.headers;
      if (Object.keys(fromEnv).length > 0) s.env_headers = fromEnv;
      return null;
    }
    case "env headers":
      if (!isStringMap(v)) return "a map of strings";
      s.env_headers = { ...s.env_headers, ...v };
      return null;
    case "seconds":
      if (!(typeof v === "number" && Number.isInteger(v) && v >= 0)) return "a whole number of seconds";
      s[f.to] = v;
      return null;
    case "milliseconds":
      if (f.round === "up") {
        if (!(typeof v === "number" && v >= 0)) return "a number of milliseconds";
        s[f.to] = Math.ceil(v / 1000);
      } else {
        if (!(typeof v === "number" && Number.isInteger(v) && v > 0 && v % 1000 === 0))
          return "a whole number of seconds in milliseconds";
        s[f.to] = v / 1000;
      }
      return null;
    case "boolean":
      if (typeof v !== "boolean") return "true or false";
      s[f.to] = v;
      return null;
    case "transport": {
      if (f.values === "any") {
        if (typeof v !== "string") return "a string";
        s.type = v;
        return null;
      }
      if (typeof v !== "string" || !Object.hasOwn(f.values, v)) return oneOf(Object.keys(f.values));
      const type = f.values[v];
      if (type) s.type = type;
      return null;
    }
    case "command list":
      if (typeof v === "string") s.command = v;
      else if (isStringList(v) && v.length > 0) {
        s.command = v[0]!;
        if (v.length > 1) s.args = v.slice(1);
      } else return "a command list";
      return null;
    case "tools": {
      const tools = readTools(v);
      if (!tools) return "a table of tools";
      s.tools = tools;
      return null;
    }
  }
}

function readTools(v: unknown): Record<string, McpTool> | null {
  if (!isPlainObject(v)) return null;
  const out: Record<string, McpTool> = {};
  for (const [tool, t] of Object.entries(v)) {
    if (!isPlainObject(t)) return null;
    const entry: McpTool = {};
    for (const field of ["description", "approval", "approval_prompt"] as const) {
      const x = t[field];
      if (x === undefined) continue;
      if (typeof x !== "string") return null;
      if (x !== "") entry[field] = x;
    }
    // The key Codex reads (tools.<t>.approval_mode) comes back as the neutral approval.
    const mode = t.approval_mode;
    if (mode !== undefined) {
      if (typeof mode !== "string") return null;
      if (mode !== "") entry.approval = mode;
    }
    out[tool] = entry;
  }
  return out;
}
