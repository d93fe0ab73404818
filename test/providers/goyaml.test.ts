import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareGoKeys,
  encodeGoYaml,
  formatGoFloat,
  type GoMap,
  type GoValue,
  parseGoTimestamp,
  resolveGoScalar,
} from "../../src/providers/goyaml.js";
import { decodeGoYamlMap } from "../../src/providers/goyaml-decode.js";

const int = (v: number | bigint) => ({ kind: "int", value: BigInt(v) });
const float = (value: number) => ({ kind: "float", value });

describe("resolveGoScalar (yaml.v3's plain scalar types)", () => {
  it.each([
    ["hello", "hello"],
    ["yes", "yes"],
    ["on", "on"],
    ["true", true],
    ["False", false],
    ["~", null],
    ["null", null],
    ["", null],
    ["1", int(1)],
    ["+1", int(1)],
    ["-1", int(-1)],
    ["0777", int(511)],
    ["0o17", int(15)],
    ["0x1F", int(31)],
    ["0b101", int(5)],
    ["1_000", int(1000)],
    ["08", float(8)],
    ["1.0", float(1)],
    [".5", float(0.5)],
    ["1e3", float(1000)],
    ["1e400", "1e400"],
    [".inf", float(Number.POSITIVE_INFINITY)],
    ["-.Inf", float(Number.NEGATIVE_INFINITY)],
    ["._5", "._5"],
    [".1_03", float(0.103)],
    ["0b-1", int(-1)],
    ["0o-7", int(-7)],
    ["-0b11", int(-3)],
    ["12:30", "12:30"],
  ])("%j", (input, want) => {
    expect(resolveGoScalar("", input)).toEqual(want);
  });

  it("keeps ints beyond int64 as uint64, then float", () => {
    expect(resolveGoScalar("", "9223372036854775807")).toEqual(int(9223372036854775807n));
    expect(resolveGoScalar("", "9223372036854775808")).toEqual({
      ...int(9223372036854775808n),
      unsigned: true,
    });
    expect(resolveGoScalar("", "18446744073709551616")).toEqual(float(2 ** 64));
  });

  it("applies explicit tags", () => {
    expect(resolveGoScalar("!!str", "123")).toBe("123");
    expect(resolveGoScalar("!!float", "3")).toEqual(float(3));
    expect(() => resolveGoScalar("!!int", "abc")).toThrow("cannot decode !!str `abc` as a !!int");
  });
});

describe("timestamps", () => {
  it.each([
    ["2024-01-01", "2024-01-01T00:00:00Z"],
    ["2024-1-2", "2024-01-02T00:00:00Z"],
    ["2001-12-14t21:59:43.10-05:00", "2001-12-14T21:59:43.1-05:00"],
    ["2001-12-14T21:59:43.1Z", "2001-12-14T21:59:43.1Z"],
    ["2001-12-14 21:59:43.10", "2001-12-14T21:59:43.1Z"],
    ["2001-12-14T21:59:43+00:00", "2001-12-14T21:59:43Z"],
    ["2001-12-14T21:59:43,5Z", "2001-12-14T21:59:43.5Z"],
  ])("%s → %s", (input, text) => {
    expect(parseGoTimestamp(input)).toEqual({ kind: "time", text });
  });

  it.each([
    "2024-02-30",
    "2024-13-01",
    "2001-12-14T21:59:43",
    "2001-12-14 21:59:43Z",
    "24-01-01",
    "2024-001-01",
  ])("%s is not one", (input) => {
    expect(parseGoTimestamp(input)).toBeNull();
  });
});

describe("formatGoFloat (strconv.FormatFloat 'g', -1)", () => {
  it.each([
    [1, "1"],
    [1.5, "1.5"],
    [123456, "123456"],
    [1234567, "1.234567e+06"],
    [1e6, "1e+06"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [1e21, "1e+21"],
    [-2.5e-10, "-2.5e-10"],
    [1e100, "1e+100"],
    [-0, "-0"],
    [Number.NaN, ".nan"],
  ])("%d", (f, text) => {
    expect(formatGoFloat(f)).toBe(text);
  });
});

describe("key order (yaml.v3 keyList)", () => {
  const sorted = (keys: string[]) => [...keys].sort(compareGoKeys);
  it("sorts numbers inside strings numerically (the order yaml.v3 wrote in the golden set)", () => {
    expect(
      sorted(["a10", "a2", "a1", "b", "B", "_x", "1", "10", "2", "z9", "z09", "x.y", "x-y", "xy", "x"]),
    ).toEqual(["_x", "1", "2", "10", "B", "a1", "a2", "a10", "b", "x", "x-y", "x.y", "xy", "z9", "z09"]);
  });
});

describe("encodeGoYaml", () => {
  it("writes block collections with Go's indentation", () => {
    const doc: GoMap = {
      kind: "map",
      entries: [
        [
          "list",
          [
            "a",
            {
              kind: "map",
              entries: [
                ["k", "v"],
                ["j", "multi\nline\n"],
              ],
            },
            ["x"],
            [],
          ],
        ],
        ["map", { kind: "map", entries: [] }],
      ],
    };
    expect(encodeGoYaml(doc, 4)).toBe(
      "list:\n    - a\n    - j: |\n        multi\n        line\n      k: v\n    - - x\n    - []\nmap: {}\n",
    );
    expect(encodeGoYaml(doc, 2)).toBe(
      "list:\n  - a\n  - j: |\n      multi\n      line\n    k: v\n  - - x\n  - []\nmap: {}\n",
    );
  });

  it("round-trips through decodeGoYamlMap (property)", () => {
    // Go does not round-trip two kinds of strings, and kanon writes its bytes (the golden outputs of
    // frontmatter.test.ts hold both): a "<<" key is written plain and reads back as a merge key, and
    // a literal that starts with a line break loses one (yaml.v3 3.0.1 writes no line break after the
    // literal's header; seed 1991611033 found it: "\n\n" read back as "\n").
    const leadingBreak = /^[\r\n]/;
    const key = fc.string({ maxLength: 6 }).filter((k) => k !== "<<" && !leadingBreak.test(k));
    const scalar = fc.oneof(
      fc
        .string({ unit: "binary", maxLength: 10 })
        .filter((s) => !/[\u0085\u2028\u2029\uFEFF]/.test(s) && !leadingBreak.test(s)),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((value) => ({ kind: "int" as const, value })),
      fc.boolean(),
      fc.constant(null),
    );
    const value = fc.letrec<{ value: GoValue; list: GoValue[]; map: GoMap }>((tie) => ({
      value: fc.oneof({ depthSize: "small" }, scalar, tie("list"), tie("map")),
      list: fc.array(tie("value"), { maxLength: 3 }),
      map: fc
        .dictionary(key, tie("value"), { maxKeys: 3 })
        .map((d): GoMap => ({ kind: "map", entries: Object.entries(d) })),
    })).value;
    const top = fc
      .dictionary(key, value, { maxKeys: 4 })
      .map((d): GoMap => ({ kind: "map", entries: Object.entries(d) as [string, GoValue][] }));
    const normal = (v: GoValue): unknown => {
      if (Array.isArray(v)) return v.map(normal);
      if (v !== null && typeof v === "object" && v.kind === "map") {
        return Object.fromEntries(v.entries.map(([k, x]) => [String(k), normal(x)]).sort());
      }
      if (v !== null && typeof v === "object" && v.kind === "int") return `int:${v.value}`;
      return v;
    };
    fc.assert(
      fc.property(top, fc.constantFrom(2, 4), (doc, indent) => {
        const text = encodeGoYaml(doc, indent);
        expect(normal(decodeGoYamlMap(text))).toEqual(normal(doc));
      }),
      { numRuns: 300 },
    );
  });
});
