import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KanonError } from "../../src/model/types.js";
import { rewriteSkillName, rewriteSkillNameBytes } from "../../src/providers/frontmatter.js";

interface Golden {
  in: string;
  name: string;
  out?: string;
  goError?: string;
}

const golden: Golden[] = JSON.parse(
  readFileSync(new URL("../fixtures/providers/frontmatter-golden.json", import.meta.url), "utf8"),
);

const rewrite = (input: string, name: string): { out?: string; error?: string } => {
  try {
    return { out: rewriteSkillName(input, name) };
  } catch (e) {
    expect(e).toBeInstanceOf(KanonError);
    return { error: (e as Error).message };
  }
};

describe("rewriteSkillName: golden outputs of the Go original (yaml.v3)", () => {
  it("has a golden set worth the name", () => {
    expect(golden.length).toBeGreaterThan(500);
  });

  it.each(golden.map((g, i) => [i, g] as const))("case %i", (_i, g) => {
    const got = rewrite(g.in, g.name);
    if (g.goError !== undefined) expect(got.error, `Go failed with: ${g.goError}`).toBeDefined();
    else expect(got).toEqual({ out: g.out });
  });
});

describe("rewriteSkillName", () => {
  it("sets name, sorts keys, keeps the body byte for byte", () => {
    const input =
      "---\nname: review\ndescription: Review code.\nallowed-tools: Read\n---\n\n# Body\r\nkept  \n";
    expect(rewriteSkillName(input, "agent-skills:review")).toBe(
      "---\nallowed-tools: Read\ndescription: Review code.\nname: agent-skills:review\n---\n\n# Body\r\nkept  \n",
    );
  });

  it("adds name when the frontmatter has none, and writes an empty one as just the name", () => {
    expect(rewriteSkillName("---\ndescription: x\n---\nbody", "p:x")).toBe(
      "---\ndescription: x\nname: p:x\n---\nbody",
    );
    expect(rewriteSkillName("---\n---\n", "p:x")).toBe("---\nname: p:x\n---\n");
  });

  it("uses 4-space indentation for nested values and literal blocks", () => {
    const input = "---\nname: x\nmetadata:\n  tags:\n    - a\n    - b\n  notes: |\n    one\n    two\n---\n";
    expect(rewriteSkillName(input, "shared-pack-review")).toBe(
      "---\nmetadata:\n    notes: |\n        one\n        two\n    tags:\n        - a\n        - b\nname: shared-pack-review\n---\n",
    );
  });

  it("writes `...` as the closing line `---`", () => {
    expect(rewriteSkillName("---\nname: x\n...\nbody\n", "p:x")).toBe("---\nname: p:x\n---\nbody\n");
  });

  it("quotes what Go quotes", () => {
    const out = rewriteSkillName(
      "---\nname: x\nversion: '1.0'\nflag: 'yes'\nwhen: 2024-01-01\nsmile: '😀'\n---\n",
      "p:x",
    );
    expect(out).toBe(
      '---\nflag: "yes"\nname: p:x\nsmile: "\\U0001F600"\nversion: "1.0"\nwhen: 2024-01-01T00:00:00Z\n---\n',
    );
  });

  it("reports a missing or unterminated frontmatter with the render name", () => {
    expect(() => rewriteSkillName("# no frontmatter\n", "agent-skills:code-reviewer")).toThrow(
      'skill "agent-skills:code-reviewer" SKILL.md: missing YAML frontmatter',
    );
    expect(() => rewriteSkillName("---\nname: x\n", "p:x")).toThrow(
      'skill "p:x" SKILL.md: unterminated YAML frontmatter',
    );
    expect(() => rewriteSkillName("\uFEFF---\nname: x\n---\n", "p:x")).toThrow("missing YAML frontmatter");
  });

  it("reports YAML errors and non-mapping frontmatter", () => {
    expect(() => rewriteSkillName("---\n- a\n---\n", "p:x")).toThrow(/^skill "p:x" SKILL\.md: yaml: /);
    expect(() => rewriteSkillName("---\na: b: c\n---\n", "p:x")).toThrow(/^skill "p:x" SKILL\.md: yaml: /);
    expect(() => rewriteSkillName("---\na: 1\na: 2\n---\n", "p:x")).toThrow(/already defined/);
  });

  it("is idempotent and keeps every other key's value (property)", () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/).filter((k) => k !== "name");
    const value = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.integer(),
      fc.boolean(),
      fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 5 }), fc.string({ maxLength: 30 }), (fm, body) => {
        const yamlText = Object.entries(fm)
          .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
          .join("\n");
        const input = `---\n${yamlText}\n---\n${body}`;
        const once = rewriteSkillName(input, "p:x");
        expect(once.endsWith(`---\n${body}`)).toBe(true);
        expect(rewriteSkillName(once, "p:x")).toBe(once);
      }),
    );
  });
});

describe("rewriteSkillNameBytes", () => {
  it("rewrites UTF-8 files like the string version", () => {
    const input = "---\nname: x\ndescription: café\n---\nbody ☕\n";
    expect(Buffer.from(rewriteSkillNameBytes(Buffer.from(input), "p:x")).toString("utf8")).toBe(
      rewriteSkillName(input, "p:x"),
    );
  });

  it("keeps a body that is not UTF-8 byte for byte", () => {
    const body = Buffer.from([0x62, 0xff, 0xfe, 0x0a, 0x80]);
    const input = Buffer.concat([Buffer.from("---\nname: x\n---\n"), body]);
    const out = Buffer.from(rewriteSkillNameBytes(input, "p:x"));
    expect(out).toEqual(Buffer.concat([Buffer.from("---\nname: p:x\n---\n"), body]));
  });

  it("reports the same errors", () => {
    expect(() => rewriteSkillNameBytes(Buffer.from([0xff, 0x0a]), "p:x")).toThrow("missing YAML frontmatter");
    expect(() => rewriteSkillNameBytes(Buffer.from("---\nname: \xff\n"), "p:x")).toThrow(
      "unterminated YAML frontmatter",
    );
  });
});
