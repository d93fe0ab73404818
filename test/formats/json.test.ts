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
});
