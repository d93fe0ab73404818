/**
 * Property tests: random unmanaged content around the managed key, in random layouts, must survive
 * any merge byte for byte; the result must parse to the intended document; merging twice must not
 * change the text again (checked by mergeChecked).
 */
import fc from "fast-check";
import { findNodeAtLocation, type Node, parseTree, visit } from "jsonc-parser";
import { type AST, parseTOML } from "toml-eslint-parser";
import { describe, expect, it } from "vitest";
import { nextLineStart, startsLine } from "../../../src/destination/edit/text.js";
import { encodeToml, encodeTomlTable } from "../../../src/formats/toml.js";
import { deepEqual, isPlainObject, type PlainObject } from "../../../src/formats/values.js";
import type { MergeSpec } from "../../../src/model/types.js";
import { mergeChecked, parseAny } from "./support.js";

// ---------------------------------------------------------------------------------------------
// JSON and JSONC

interface JsonStyle {
  unit: string;
  eol: string;
  jsonc: boolean;
  finalNewline: boolean;
  /** Containers this deep or deeper are written on one line. */
  compactDepth: number;
  /** Drives the small layout choices (comments, blank lines, spaces), read in turn. */
  noise: number[];
}

const jsonStyle = fc.record({
  unit: fc.constantFrom("  ", "    ", "\t"),
  eol: fc.constantFrom("\n", "\r\n"),
  jsonc: fc.boolean(),
  finalNewline: fc.boolean(),
  compactDepth: fc.integer({ min: 1, max: 4 }),
  noise: fc.array(fc.nat(9), { minLength: 1, maxLength: 24 }),
});

const name = fc.oneof(
  fc.constantFrom("github", "docs", "a", "b", "x y", "é", "\u{1F600}", 'q"t', "mcp"),
  fc.string({ maxLength: 4 }),
);
/** "__proto__" keys are covered by a unit test; jsonc-parser's own parse (the oracle here) mishandles them. */
const withoutProtoKey = (value: unknown): boolean =>
  Array.isArray(value)
    ? value.every(withoutProtoKey)
    : !isPlainObject(value) ||
      Object.keys(value).every((key) => key !== "__proto__" && withoutProtoKey(value[key]));
const jsonValue = fc.jsonValue({ maxDepth: 3 }).filter(withoutProtoKey);

/** Prints JSON(C) with the style's random layout; everything it writes is valid for the format. */
function printJson(value: unknown, style: JsonStyle, depth = 0, indent = ""): string {
  let turn = depth * 7;
  const pick = () => style.noise[turn++ % style.noise.length]!;
  const entries: [string | undefined, unknown][] = Array.isArray(value)
    ? value.map((item) => [undefined, item])
    : isPlainObject(value)
      ? Object.entries(value)
      : [];
  if (!Array.isArray(value) && !isPlainObject(value)) return JSON.stringify(value);
  const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  const item = ([key, member]: [string | undefined, unknown], inner: string) =>
    `${key === undefined ? "" : `${JSON.stringify(key)}${pick() < 3 ? ":" : ": "}`}${printJson(member, style, depth + 1, inner)}`;
  if (entries.length === 0) return pick() < 2 ? `${open} ${close}` : `${open}${close}`;
  if (depth >= style.compactDepth) {
    const separator = pick() < 4 ? "," : ", ";
    return `${open}${entries.map((entry) => item(entry, indent)).join(separator)}${close}`;
  }
  const inner = indent + style.unit;
  const lines = entries.map((entry, i) => {
    let before = "";
    if (style.jsonc && pick() < 2) before += `${inner}// note ${i}${style.eol}`;
    if (pick() === 9) before += style.eol;
    const last = i === entries.length - 1;
    const comma = !last || (style.jsonc && pick() < 5) ? "," : "";
    const after =
      style.jsonc && pick() === 3 ? " /* after */" : style.jsonc && pick() === 4 ? " // after" : "";
    return `${before}${inner}${item(entry, inner)}${comma}${after}${style.eol}`;
  });
  return `${open}${style.eol}${lines.join("")}${indent}${close}`;
}

function documentText(members: [string, unknown][], style: JsonStyle): string {
  const text = printJson(Object.fromEntries(members), style);
  return style.finalNewline ? `${text}${style.eol}` : text;
}

function comments(text: string, outside: [number, number][]): string[] {
  const found: string[] = [];
  visit(
    text,
    {
      onComment: (offset, length) => {
        if (!outside.some(([start, end]) => offset >= start && offset < end))
          found.push(text.slice(offset, offset + length));
      },
    },
    { allowTrailingComma: true },
  );
  return found;
}

function tree(text: string): Node {
  return parseTree(text, [], { allowTrailingComma: true })!;
}

const unmanagedMembers = (managedKey: string) =>
  fc
    .uniqueArray(fc.tuple(name, jsonValue), { selector: ([key]) => key, maxLength: 6 })
    .map((members) => members.filter(([key]) => key !== managedKey && key !== "__proto__"));

describe("JSON/JSONC merge properties", () => {
  it("keeps every byte outside the managed entries, whatever the layout (entries kind)", () => {
    const spec: MergeSpec = { kind: "entries", format: "jsonc", key: "mcpServers" };
    fc.assert(
      fc.property(
        jsonStyle,
        unmanagedMembers("mcpServers"),
        fc.nat(6),
        fc.dictionary(name, jsonValue, { maxKeys: 4 }),
        fc.dictionary(name, jsonValue, { maxKeys: 3 }),
        (style, others, position, existingEntries, desiredEntries) => {
          const members: [string, unknown][] = [...others];
          members.splice(Math.min(position, members.length), 0, ["mcpServers", existingEntries]);
          const input = documentText(members, style);
          const output = mergeChecked(input, spec, { mcpServers: desiredEntries });

          // Outside the mcpServers value, nothing moves.
          const valueIn = findNodeAtLocation(tree(input), ["mcpServers"])!;
          const valueOut = findNodeAtLocation(tree(output), ["mcpServers"])!;
          expect(output.slice(0, valueOut.offset)).toBe(input.slice(0, valueIn.offset));
          expect(output.slice(valueOut.offset + valueOut.length)).toBe(
            input.slice(valueIn.offset + valueIn.length),
          );

          // Inside it, entries kanon does not name keep their exact text, and all comments outside
          // the named entries stay, in order.
          const named = (text: string) =>
            Object.keys(desiredEntries)
              .map((entry) => findNodeAtLocation(tree(text), ["mcpServers", entry])?.parent)
              .filter((node): node is Node => node !== undefined)
              .map((node): [number, number] => [node.offset, node.offset + node.length]);
          for (const entry of Object.keys(existingEntries)) {
            if (Object.hasOwn(desiredEntries, entry)) continue;
            const before = findNodeAtLocation(tree(input), ["mcpServers", entry])!.parent!;
            const after = findNodeAtLocation(tree(output), ["mcpServers", entry])!.parent!;
            expect(output.slice(after.offset, after.offset + after.length)).toBe(
              input.slice(before.offset, before.offset + before.length),
            );
          }
          expect(comments(output, named(output))).toEqual(comments(input, named(input)));
        },
      ),
    );
  });

  it("keeps every byte outside the managed value (value kind)", () => {
    const spec: MergeSpec = { kind: "value", format: "json", key: "hooks" };
    fc.assert(
      fc.property(
        jsonStyle,
        unmanagedMembers("hooks"),
        fc.nat(6),
        jsonValue,
        jsonValue,
        (style, others, position, existing, desired) => {
          const members: [string, unknown][] = [...others];
          members.splice(Math.min(position, members.length), 0, ["hooks", existing]);
          const input = documentText(members, style);
          const output = mergeChecked(input, spec, { hooks: desired });
          const valueIn = findNodeAtLocation(tree(input), ["hooks"])!;
          const valueOut = findNodeAtLocation(tree(output), ["hooks"])!;
          expect(output.slice(0, valueOut.offset)).toBe(input.slice(0, valueIn.offset));
          expect(output.slice(valueOut.offset + valueOut.length)).toBe(
            input.slice(valueIn.offset + valueIn.length),
          );
          if (deepEqual(existing, desired)) expect(output).toBe(input);
        },
      ),
    );
  });

  it("adds a missing managed key after the last member and changes nothing else", () => {
    const spec: MergeSpec = { kind: "entries", format: "jsonc", key: "mcpServers" };
    fc.assert(
      fc.property(
        jsonStyle,
        unmanagedMembers("mcpServers").filter((members) => members.length > 0),
        fc.dictionary(name, jsonValue, { maxKeys: 3 }),
        (style, others, desiredEntries) => {
          const input = documentText(others, style);
          const output = mergeChecked(input, spec, { mcpServers: desiredEntries });
          const root = tree(input);
          const anchor = root.children![root.children!.length - 1]!;
          const anchorEnd = anchor.offset + anchor.length;
          const added = findNodeAtLocation(tree(output), ["mcpServers"])!.parent!;
          const addedEnd = added.offset + added.length;
          // Either the new member sits on lines of its own (with a comma added to the anchor when it
          // had none), or it directly follows the anchor as `, "mcpServers": …`.
          const ownLines = startsLine(output, added.offset)
            ? output.slice(0, output.lastIndexOf("\n", added.offset - 1) + 1) +
              output.slice(nextLineStart(output, output.charAt(addedEnd) === "," ? addedEnd + 1 : addedEnd))
            : undefined;
          const candidates = [
            ownLines,
            ownLines?.slice(0, anchorEnd) === `${input.slice(0, anchorEnd)}` &&
            ownLines.charAt(anchorEnd) === ","
              ? ownLines.slice(0, anchorEnd) + ownLines.slice(anchorEnd + 1)
              : undefined,
            output.slice(0, anchorEnd) + output.slice(addedEnd),
          ];
          expect(candidates).toContain(input);
        },
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// TOML

interface TomlBlock {
  /** Comment lines before the header. */
  leading: string;
  /** The header and the lines of its block; for a server, also its sub-table. */
  body: string;
  /** Blank lines and comments after it. */
  trailing: string;
  kind: "other" | "server" | "managed" | "bare";
}

const bareKey = fc.stringMatching(/^[a-z_][a-z0-9_-]{0,5}$/);
const tomlKey = fc.oneof(bareKey, fc.constantFrom('"x y"', "'a.b'", '"it\'s"'));
const tomlString = fc.string({ maxLength: 8 }).filter((s) => !s.includes("\u007f"));
const tomlScalar = fc.oneof(
  tomlString.map((s) => JSON.stringify(s)),
  // biome-ignore lint/suspicious/noControlCharactersInRegex: literal strings cannot hold control characters
  tomlString.filter((s) => !/['\u0000-\u001f]/.test(s)).map((s) => `'${s}'`),
  fc.integer().map(String),
  fc.boolean().map(String),
);
const tomlValue = fc.oneof(
  tomlScalar,
  fc.array(tomlScalar, { maxLength: 3 }).map((items) => `[${items.join(", ")}]`),
  fc.array(tomlScalar, { minLength: 1, maxLength: 3 }).map((items) => `[\n  ${items.join(",\n  ")},\n]`),
);
const keyValues = fc.uniqueArray(fc.tuple(tomlKey, tomlValue, fc.boolean()), {
  selector: ([key]) => key,
  maxLength: 3,
});
// A server's own keys must not clash with its [….env] sub-table.
const serverKeyValues = keyValues.map((pairs) => pairs.filter(([key]) => key !== "env"));
const trivia = fc.constantFrom("", "\n", "\n\n", "# note\n", "\n# about the next table\n");

function kvLines(pairs: [string, string, boolean][]): string {
  return pairs.map(([key, value, comment]) => `${key} = ${value}${comment ? "   # why" : ""}\n`).join("");
}

const serverBody = (server: string) =>
  fc
    .tuple(serverKeyValues, fc.option(keyValues, { nil: undefined }), fc.constantFrom("", "\n", "# env\n"))
    .map(
      ([pairs, env, between]) =>
        `[mcp_servers.${server}]\n${kvLines(pairs)}${env ? `${between}[mcp_servers.${server}.env]\n${kvLines(env)}` : ""}`,
    );

const block = (kind: TomlBlock["kind"], body: fc.Arbitrary<string>) =>
  fc.record({
    leading: fc.constantFrom("", "# comment\n"),
    body,
    trailing: trivia,
    kind: fc.constant(kind),
  });

const otherTables = fc.uniqueArray(
  fc.oneof(
    bareKey.map((k) => `[profiles.${k}]\n`),
    bareKey.map((k) => `[projects."/home/dev/${k}"]\n`),
    bareKey.map((k) => `[hooks.state."user:${k}:0"]\n`),
  ),
  { maxLength: 3 },
);

const tomlDocument = fc
  .record({
    root: fc.uniqueArray(
      fc.tuple(fc.constantFrom("model", "approval_policy", "x_y", '"quoted key"'), tomlValue, fc.boolean()),
      {
        selector: ([key]) => key,
        maxLength: 3,
      },
    ),
    rootTrailing: trivia,
    others: otherTables.chain((headers) =>
      fc.tuple(
        ...headers.map((header) =>
          block(
            "other",
            keyValues.map((pairs) => `${header}${kvLines(pairs)}`),
          ),
        ),
      ),
    ),
    servers: fc
      .uniqueArray(fc.constantFrom("docs", "sqlite", "playwright", "'remote.api'"), { maxLength: 3 })
      .chain((names) => fc.tuple(...names.map((server) => block("server", serverBody(server))))),
    managed: fc.option(block("managed", serverBody("kanon")), { nil: undefined }),
    bare: fc.option(block("bare", fc.constant("[mcp_servers]\n")), { nil: undefined }),
    eol: fc.constantFrom("\n", "\r\n"),
    finalNewline: fc.boolean(),
  })
  .chain((doc) => {
    const blocks: TomlBlock[] = [...doc.others, ...doc.servers];
    if (doc.managed) blocks.push(doc.managed);
    if (doc.bare) blocks.push(doc.bare);
    return fc
      .shuffledSubarray(blocks, { minLength: blocks.length })
      .map((order) => ({ ...doc, blocks: order }));
  });

const server = fc.record(
  {
    command: tomlString,
    args: fc.array(tomlString, { maxLength: 3 }),
    startup_timeout_sec: fc.nat(60),
    env: fc.dictionary(fc.stringMatching(/^[A-Z_]{1,6}$/), tomlString, { maxKeys: 2 }),
    tools: fc.dictionary(bareKey, fc.record({ approval: fc.constantFrom("auto", "prompt") }), { maxKeys: 2 }),
  },
  { requiredKeys: ["command"] },
);

function assemble(
  pieces: { text: string; managed?: boolean }[],
  eol: string,
  finalNewline: boolean,
): { text: string; managedStart: number; managedEnd: number } {
  let text = "";
  let managedStart = -1;
  let managedEnd = -1;
  for (const piece of pieces) {
    const converted = piece.text.replaceAll("\n", eol);
    if (piece.managed) managedStart = text.length;
    text += converted;
    if (piece.managed) managedEnd = text.length;
  }
  if (!finalNewline && text.endsWith(eol)) {
    text = text.slice(0, -eol.length);
    managedEnd = Math.min(managedEnd, text.length);
  }
  return { text, managedStart, managedEnd };
}

describe("TOML merge properties", () => {
  it("changes only the managed server's own lines, or adds it after the last mcp_servers table", () => {
    const spec: MergeSpec = { kind: "entries", format: "toml", key: "mcp_servers" };
    fc.assert(
      fc.property(tomlDocument, server, (doc, desired) => {
        const pieces: { text: string; managed?: boolean }[] = [
          { text: kvLines(doc.root) + doc.rootTrailing },
        ];
        for (const b of doc.blocks) {
          pieces.push(
            { text: b.leading },
            { text: b.body, managed: b.kind === "managed" },
            { text: b.trailing },
          );
        }
        const { text: input, managedStart, managedEnd } = assemble(pieces, doc.eol, doc.finalNewline);
        const output = mergeChecked(input, spec, { mcp_servers: { kanon: desired } });
        // A text without any line break cannot show its line-ending style; "\n" is used then.
        const eol = input.includes("\n") ? doc.eol : "\n";

        const current = (parseAny(input, "toml").mcp_servers as PlainObject | undefined)?.kanon;
        let expected: string;
        if (doc.managed && deepEqual(current, desired)) {
          expected = input;
        } else if (doc.managed) {
          // Only the managed server's own lines change (mergeChecked checks that they hold `desired`).
          expect(output.startsWith(input.slice(0, managedStart))).toBe(true);
          expect(output.endsWith(input.slice(managedEnd))).toBe(true);
          return;
        } else {
          expected = expectedAddition({ ...doc, eol }, input, desired);
        }
        expect(output).toBe(expected);
      }),
    );
  });
});

/** Where a new server goes: after the last mcp_servers table, else at the end with a [mcp_servers] header. */
function expectedAddition(
  doc: {
    root: [string, string, boolean][];
    rootTrailing: string;
    blocks: TomlBlock[];
    eol: string;
    finalNewline: boolean;
  },
  input: string,
  desired: PlainObject,
): string {
  const last = doc.blocks.findLastIndex((b) => b.kind === "server" || b.kind === "bare");
  const eol = doc.eol;
  if (input.trim() === "") return encodeToml({ mcp_servers: { kanon: desired } });
  if (last < 0) {
    const block = encodeToml({ mcp_servers: { kanon: desired } }).replaceAll("\n", eol);
    if (!input.endsWith("\n")) return `${input}${eol}${eol}${block.slice(0, -eol.length)}`;
    return /(^|\n)[ \t]*\r?\n$/.test(input) ? input + block : input + eol + block;
  }
  const pieces: { text: string; managed?: boolean }[] = [{ text: kvLines(doc.root) + doc.rootTrailing }];
  for (const [i, b] of doc.blocks.entries()) {
    pieces.push({ text: b.leading }, { text: b.body, managed: i === last }, { text: b.trailing });
  }
  const { managedEnd: anchorEnd } = assemble(pieces, eol, doc.finalNewline);
  const blank = doc.blocks[last]!.kind === "bare" ? "" : eol;
  const block = encodeTomlTable(["mcp_servers", "kanon"], desired).replaceAll("\n", eol);
  const insertion =
    anchorEnd === input.length && !input.endsWith("\n")
      ? `${eol}${blank}${block.slice(0, -eol.length)}`
      : blank + block;
  return input.slice(0, anchorEnd) + insertion + input.slice(anchorEnd);
}

// ---------------------------------------------------------------------------------------------
// TOML: one server, in every form a person may write it, edited key by key

type EntryForm = "tables" | "env-inline" | "env-dotted" | "inline" | "dotted" | "root-dotted";

interface EntryStyle {
  form: EntryForm;
  /** Rotates the order the server's keys are written in. */
  rotate: number;
  /** `=` as written: ` = `, `=` or wider. */
  equals: string;
  /** Drives quoting, array layout and comments, read in turn. */
  noise: number[];
}

const entryStyle = fc.record({
  form: fc.constantFrom<EntryForm>("tables", "env-inline", "env-dotted", "inline", "dotted", "root-dotted"),
  rotate: fc.nat(5),
  equals: fc.constantFrom(" = ", "=", "   =  "),
  noise: fc.array(fc.nat(9), { minLength: 1, maxLength: 16 }),
});

const entryValue = fc.record(
  {
    command: tomlString,
    args: fc.array(tomlString, { maxLength: 3 }),
    env: fc.dictionary(fc.stringMatching(/^[A-Z][A-Z_]{0,5}$/), tomlString, { maxKeys: 3 }),
    startup_timeout_sec: fc.nat(120),
    enabled_tools: fc.array(bareKey, { maxLength: 2 }),
  },
  { requiredKeys: ["command"] },
);

/** Prints one server as `style` says; every form is valid TOML for the same value. */
function printEntry(server: PlainObject, style: EntryStyle): { root: string; body: string } {
  let turn = 0;
  const pick = () => style.noise[turn++ % style.noise.length]!;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: literal strings cannot hold control characters
  const literal = /['\u0000-\u001f\u007f]/;
  const str = (s: string) => (pick() < 5 || literal.test(s) ? JSON.stringify(s) : `'${s}'`);
  const value = (v: unknown, inline = false): string => {
    if (typeof v === "string") return str(v);
    if (typeof v === "number") return String(v);
    if (Array.isArray(v)) {
      if (v.length > 0 && !inline && pick() < 3)
        return `[\n  ${v.map((x) => value(x, true)).join(",\n  ")},\n]`;
      return `[${v.map((x) => value(x, true)).join(", ")}]`;
    }
    const members = Object.entries(v as PlainObject).map(([k, x]) => `${k} = ${value(x, true)}`);
    return members.length === 0 ? "{}" : `{ ${members.join(", ")} }`;
  };
  const comment = () => (pick() === 7 ? "   # why" : "");
  const line = (key: string, v: unknown) => `${key}${style.equals}${value(v)}${comment()}\n`;
  const keys = Object.keys(server);
  const ordered = [...keys.slice(style.rotate % keys.length), ...keys.slice(0, style.rotate % keys.length)];
  const scalars = ordered.filter((k) => k !== "env");
  const env = server.env as PlainObject | undefined;
  const dottedEnv = (prefix: string) =>
    env === undefined
      ? ""
      : Object.keys(env).length === 0
        ? line(`${prefix}env`, {})
        : Object.entries(env)
            .map(([k, v]) => line(`${prefix}env.${k}`, v))
            .join("");
  const header = "[mcp_servers.s]\n";
  switch (style.form) {
    case "tables": {
      const members = Object.entries(env ?? {}).map(([k, v]) => line(k, v));
      const sub = env === undefined ? "" : `\n[mcp_servers.s.env]\n${members.join("")}`;
      return { root: "", body: `${header}${scalars.map((k) => line(k, server[k])).join("")}${sub}` };
    }
    case "env-inline":
      return { root: "", body: header + ordered.map((k) => line(k, server[k])).join("") };
    case "env-dotted":
      return { root: "", body: header + scalars.map((k) => line(k, server[k])).join("") + dottedEnv("") };
    case "inline":
      return { root: "", body: `[mcp_servers]\ns = ${value(server, true)}${comment()}\n` };
    case "dotted":
      return {
        root: "",
        body: `[mcp_servers]\n${scalars.map((k) => line(`s.${k}`, server[k])).join("")}${dottedEnv("s.")}`,
      };
    case "root-dotted":
      return {
        root:
          scalars.map((k) => line(`mcp_servers.s.${k}`, server[k])).join("") + dottedEnv("mcp_servers.s."),
        body: "",
      };
  }
}

/** The text of every key/value's value that is not a table, by its full key path. */
function valueTexts(text: string): Map<string, { text: string; start: number; end: number }> {
  const program = parseTOML(text, { tomlVersion: "1.1" });
  const out = new Map<string, { text: string; start: number; end: number }>();
  const path = (key: AST.TOMLKey) => key.keys.map((k) => (k.type === "TOMLBare" ? k.name : k.value));
  const visit = (prefix: string[], kv: AST.TOMLKeyValue) => {
    const at = [...prefix, ...path(kv.key)];
    if (kv.value.type === "TOMLInlineTable") for (const member of kv.value.body) visit(at, member);
    else {
      const [start, end] = kv.value.range;
      out.set(JSON.stringify(at), { text: text.slice(start, end), start, end });
    }
  };
  for (const item of program.body[0].body) {
    if (item.type === "TOMLKeyValue") visit([], item);
    else for (const kv of item.body) visit(path(item.key), kv);
  }
  return out;
}

/** A leaf of the server: a key other than env, or one env member. */
function leaves(server: PlainObject): string[][] {
  const env = (server.env ?? {}) as PlainObject;
  return [
    ...Object.keys(server)
      .filter((k) => k !== "env")
      .map((k) => [k]),
    ...Object.keys(env).map((k) => ["env", k]),
  ];
}

function changed(v: unknown): unknown {
  if (typeof v === "string") return `${v}x`;
  if (typeof v === "number") return v + 1;
  return [...(v as unknown[]), "z"];
}

function withLeaf(server: PlainObject, at: string[], v: unknown): PlainObject {
  const out = structuredClone(server);
  if (at.length === 2 && out.env === undefined) out.env = {};
  const holder = (at.length === 2 ? out.env : out) as PlainObject;
  const key = at[at.length - 1]!;
  if (v === undefined) delete holder[key];
  else holder[key] = v;
  return out;
}

describe("TOML entries, edited key by key", () => {
  const spec: MergeSpec = { kind: "entries", format: "toml", key: "mcp_servers" };
  const document = (server: PlainObject, style: EntryStyle) => {
    const { root, body } = printEntry(server, style);
    return `# mine\nmodel = "o3"\n${root}\n${body}\n[mcp_servers.other]\ncommand = "o"  # keep\n\n[profiles.fast]\nmodel = "o4-mini"\n`;
  };

  it("gives the very same text for the same values, in every layout", () => {
    fc.assert(
      fc.property(entryValue, entryStyle, (server, style) => {
        const input = document(server, style);
        expect(mergeChecked(input, spec, { mcp_servers: { s: server } })).toBe(input);
      }),
    );
  });

  it("changes only the bytes of the one value that changes", () => {
    fc.assert(
      fc.property(entryValue, entryStyle, fc.nat(), (server, style, which) => {
        const input = document(server, style);
        const all = leaves(server);
        const at = all[which % all.length]!;
        const before = at.reduce<unknown>((v, k) => (v as PlainObject)[k], server);
        const desired = withLeaf(server, at, changed(before));
        const output = mergeChecked(input, spec, { mcp_servers: { s: desired } });
        const old = valueTexts(input).get(JSON.stringify(["mcp_servers", "s", ...at]))!;
        expect(output.slice(0, old.start)).toBe(input.slice(0, old.start));
        expect(output.slice(output.length - (input.length - old.end))).toBe(input.slice(old.end));
      }),
    );
  });

  it("adds or removes one key without touching the bytes of any other value", () => {
    const extra: [string[], unknown][] = [
      [["startup_timeout_sec"], 15],
      [["enabled_tools"], ["t"]],
      [["env", "NEW"], "v"],
      [["env_vars"], ["TOKEN"]],
    ];
    fc.assert(
      fc.property(entryValue, entryStyle, fc.nat(), fc.boolean(), (server, style, which, add) => {
        const input = document(server, style);
        const removable = leaves(server).filter((at) => at[0] !== "command");
        const absent = extra.filter(
          ([at]) => at.reduce<unknown>((v, k) => (v as PlainObject)?.[k], server) === undefined,
        );
        let at: string[];
        let desired: PlainObject;
        if ((add || removable.length === 0) && absent.length > 0) {
          const [path, value] = absent[which % absent.length]!;
          at = path;
          desired = withLeaf(server, path, value);
        } else if (removable.length > 0) {
          at = removable[which % removable.length]!;
          desired = withLeaf(server, at, undefined);
        } else return;
        const output = mergeChecked(input, spec, { mcp_servers: { s: desired } });
        const after = valueTexts(output);
        for (const [key, value] of valueTexts(input)) {
          if (key === JSON.stringify(["mcp_servers", "s", ...at])) continue;
          expect(after.get(key)?.text).toBe(value.text);
        }
        expect(output.startsWith('# mine\nmodel = "o3"\n')).toBe(true);
        expect(
          output.endsWith(
            '[mcp_servers.other]\ncommand = "o"  # keep\n\n[profiles.fast]\nmodel = "o4-mini"\n',
          ),
        ).toBe(true);
      }),
    );
  });
});
