/**
 * JSON text as the Go tool writes it (`json.MarshalIndent(v, prefix, "  ")` with HTML escaping off,
 * plus a final newline), so that files kanon creates match it byte for byte.
 */
import { isPlainObject, sortedKeys } from "./values.js";

export interface JsonLayout {
  /** Written before every line after the first: the indentation of the line the value starts on. */
  prefix?: string;
  /** One level of indentation (default two spaces). */
  unit?: string;
  /** Line ending (default "\n"). */
  eol?: string;
  /** Write the value on one line with these separators, as inside a compact one-line object. */
  inline?: { colon: string; comma: string };
}

/** A whole JSON file: the value, then "\n". Lines after the first start with `indent`. */
export function encodeJson(value: unknown, indent = ""): string {
  return `${encodeJsonValue(value, { prefix: indent })}\n`;
}

/** One JSON value without a final newline, for splicing into an existing document. */
export function encodeJsonValue(value: unknown, layout: JsonLayout = {}): string {
  const out: string[] = [];
  const eol = layout.eol ?? "\n";
  write(out, value, {
    unit: layout.unit ?? "  ",
    inline: layout.inline,
    newline: eol + (layout.prefix ?? ""),
  });
  return out.join("");
}

interface WriteState {
  unit: string;
  inline: { colon: string; comma: string } | undefined;
  /** Line ending plus the indentation of the current nesting level. */
  newline: string;
  /** The state inside a container at this level, and what goes between its items: made on first use. */
  inner?: WriteState;
  separator?: string;
}

function inside(state: WriteState): WriteState {
  if (!state.inner) {
    state.inner = state.inline
      ? state
      : { unit: state.unit, inline: undefined, newline: state.newline + state.unit };
    state.separator = state.inline ? state.inline.comma : `,${state.inner.newline}`;
  }
  return state.inner;
}

// Plain loops, no closure or state object per container: a large home's hook files hold tens of
// thousands of values.
function write(out: string[], value: unknown, state: WriteState): void {
  if (value === null) {
    out.push("null");
  } else if (typeof value === "string") {
    out.push(encodeJsonString(value));
  } else if (typeof value === "number") {
    out.push(encodeJsonNumber(value));
  } else if (typeof value === "boolean") {
    out.push(value ? "true" : "false");
  } else if (typeof value === "bigint") {
    out.push(value.toString());
  } else if (value instanceof Date) {
    out.push(encodeJsonString(value.toISOString()));
  } else if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push("[]");
      return;
    }
    const inner = inside(state);
    out.push(state.inline ? "[" : `[${inner.newline}`);
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(state.separator!);
      write(out, value[i] ?? null, inner);
    }
    out.push(state.inline ? "]" : `${state.newline}]`);
  } else if (isPlainObject(value)) {
    const inner = inside(state);
    const colon = state.inline?.colon ?? ": ";
    let first = true;
    for (const key of sortedKeys(value)) {
      const item = value[key];
      if (item === undefined) continue;
      out.push(
        first ? (state.inline ? "{" : `{${inner.newline}`) : state.separator!,
        encodeJsonString(key),
        colon,
      );
      first = false;
      write(out, item, inner);
    }
    out.push(first ? "{}" : state.inline ? "}" : `${state.newline}}`);
  } else {
    throw new TypeError(`cannot encode ${typeof value} as JSON`);
  }
}

/** Go's float64 text: shortest round-trip digits, exponent below 1e-6 and from 1e21, like JavaScript. */
export function encodeJsonNumber(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`cannot encode ${value} as JSON`);
  return Object.is(value, -0) ? "-0" : String(value);
}

// Characters Go escapes: quote, backslash, controls, U+2028/U+2029, and surrogates (to catch lone ones).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;
const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

/** A JSON string literal as Go writes it without HTML escaping (`<`, `>`, `&` stay literal). */
export function encodeJsonString(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return `"${text}"`;
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    const code = text.charCodeAt(i);
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) {
      out += short;
    } else if (code < 0x20) {
      out += `\\u00${code.toString(16).padStart(2, "0")}`;
    } else if (code === 0x2028 || code === 0x2029) {
      out += `\\u${code.toString(16)}`;
    } else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      out += text.slice(i, i + 2);
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      // A lone surrogate is invalid UTF-8 for Go, which writes the replacement character escape.
      out += "\\ufffd";
    } else {
      out += ch;
    }
  }
  return `${out}"`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
