import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeJson, encodeJsonString, encodeJsonValue } from "../../src/formats/json.js";
import { compareBytes } from "../../src/model/text.js";

describe("encodeJson (Go json.MarshalIndent, no HTML escaping, final newline)", () => {
  it("writes a Claude hooks document byte for byte", () => {
    const doc = {
      hooks: {
        PostToolUse: [
          {
            matcher: "Bash",
            hooks: [{ type: "command", command: "tee -a 2>>/tmp/claude-log", timeout: 30, async: true }],
          },
        ],
      },
    };
    expect(encodeJson(doc)).toBe(
      [
        "{",
        '  "hooks": {',
        '    "PostToolUse": [',
        "      {",
        '        "hooks": [',
        "          {",
        '            "async": true,',
        '            "command": "tee -a 2>>/tmp/claude-log",',
        '            "timeout": 30,',
        '            "type": "command"',
        "          }",
        "        ],",
        '        "matcher": "Bash"',
        "      }",
        "    ]",
        "  }",
        "}",
        "",
      ].join("\n"),
    );
  });

  it("writes empty containers, null and nested arrays like Go", () => {
    expect(encodeJson({ a: [], b: {}, c: null, d: [[1, 2], []], e: false })).toBe(
      '{\n  "a": [],\n  "b": {},\n  "c": null,\n  "d": [\n    [\n      1,\n      2\n    ],\n    []\n  ],\n  "e": false\n}\n',
    );
    expect(encodeJson([])).toBe("[]\n");
    expect(encodeJson("x")).toBe('"x"\n');
  });

  it("leaves out undefined members and writes undefined array items as null", () => {
    expect(encodeJson({ a: undefined, b: [undefined, 1] })).toBe('{\n  "b": [\n    null,\n    1\n  ]\n}\n');
  });

  it("sorts keys by UTF-8 bytes, not UTF-16 code units", () => {
    const keys = ["b", "\u{1F600}", "\uFFFD", "a", "B", "é", ""];
    expect(keys.slice().sort(compareBytes)).toEqual(["", "B", "a", "b", "é", "\uFFFD", "\u{1F600}"]);
    const object = Object.fromEntries(keys.map((key, i) => [key, i]));
    expect(encodeJson(object)).toBe(
      '{\n  "": 6,\n  "B": 4,\n  "a": 3,\n  "b": 0,\n  "é": 5,\n  "\uFFFD": 2,\n  "\u{1F600}": 1\n}\n',
    );
  });

  it("escapes strings as Go does", () => {
    expect(encodeJsonString("2>>/tmp/log <b> & 'x'")).toBe(`"2>>/tmp/log <b> & 'x'"`);
    expect(encodeJsonString("a\u2028b\u2029c")).toBe('"a\\u2028b\\u2029c"');
    expect(encodeJsonString('"\\\n\r\t\b\f')).toBe('"\\"\\\\\\n\\r\\t\\b\\f"');
    expect(encodeJsonString("\u0000\u0001\u001f\u007f")).toBe('"\\u0000\\u0001\\u001f\u007f"');
    expect(encodeJsonString("é\u{1F600}")).toBe('"é\u{1F600}"');
    // A lone surrogate is invalid UTF-8, which Go replaces.
    expect(encodeJsonString("a\uD800b")).toBe('"a\\ufffdb"');
  });

  it("writes numbers in Go's shortest form", () => {
    const numbers = [0, -0, 1, -17, 100, 1.5, 0.1, 1e20, 1e21, 1.5e-7, 0.000001, 123456789.125, 5e-324];
    expect(encodeJsonValue(numbers, { inline: { colon: ":", comma: "," } })).toBe(
      "[0,-0,1,-17,100,1.5,0.1,100000000000000000000,1e+21,1.5e-7,0.000001,123456789.125,5e-324]",
    );
    expect(() => encodeJson(Number.NaN)).toThrow(TypeError);
  });

  it("renders a nested value at a starting indentation for splicing", () => {
    const value = { command: "x", args: ["a"] };
    expect(encodeJson(value, "    ")).toBe(
      '{\n      "args": [\n        "a"\n      ],\n      "command": "x"\n    }\n',
    );
    expect(encodeJsonValue(value, { prefix: "\t", unit: "\t", eol: "\r\n" })).toBe(
      '{\r\n\t\t"args": [\r\n\t\t\t"a"\r\n\t\t],\r\n\t\t"command": "x"\r\n\t}',
    );
    expect(encodeJsonValue(value, { inline: { colon: ": ", comma: ", " } })).toBe(
      '{"args": ["a"], "command": "x"}',
    );
  });

  it("is JSON.stringify's text with keys sorted, for any value and layout (where Go and JSON agree)", () => {
    // Keys that are not array indexes (JSON.stringify would put those first) and strings without the
    // characters Go escapes differently; -0 is written as Go writes it.
    const text = fc.string({ unit: fc.constantFrom(...'aZ09 _-"\\/\n\té€😀') });
    const key = text.map((k) => `k${k}`);
    const value = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        text,
        fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("value"), { maxLength: 4 }),
        fc.dictionary(key, tie("value"), { maxKeys: 4 }),
      ),
    })).value;
    const sorted = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sorted)
        : v !== null && typeof v === "object"
          ? Object.fromEntries(
              Object.keys(v)
                .sort(compareBytes)
                .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
            )
          : v;
    fc.assert(
      fc.property(value, fc.constantFrom("", "  ", "\t"), (v, prefix) => {
        const expected = JSON.stringify(sorted(v), null, 2);
        expect(encodeJson(v, prefix)).toBe(`${expected.replaceAll("\n", `\n${prefix}`)}\n`);
        expect(encodeJsonValue(v, { unit: "\t", eol: "\r\n" })).toBe(
          JSON.stringify(sorted(v), null, "\t").replaceAll("\n", "\r\n"),
        );
        expect(encodeJsonValue(v, { inline: { colon: ":", comma: "," } })).toBe(JSON.stringify(sorted(v)));
      }),
      { numRuns: 500 },
    );
  });
});
