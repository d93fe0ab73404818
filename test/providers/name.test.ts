// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` env references are data in these tests
import { describe, expect, it } from "vitest";
import { namespacedSkillName, slugSkillName } from "../../src/core/skill-names.js";
import { goQuote } from "../../src/model/text.js";
import { deriveProviderName, PROVIDER_NAME, providerName } from "../../src/providers/name.js";

describe("deriveProviderName", () => {
  it.each([
    ["git@github.com:acme/tools.git", "tools"],
    ["https://h/x/y.git/?q=1#f", "y"],
    ["/srv/repos/shared-skills.git", "shared-skills"],
    ["https://github.com/acme/agent-skills.git", "agent-skills"],
    ["file:///srv/repos/pack", "pack"],
    ["  https://h/repo.git//  ", "repo"],
    ["host:repo.git", "repo"],
    ["https://h/", "h"],
    ["", ""],
    ["?only-query", ""],
    ["https://h/${NAME}.git", "from-env"],
    ["https://h/${MISSING:-fallback}.git", "fallback"],
  ])("%s → %j", (url, name) => {
    expect(deriveProviderName(url, { NAME: "from-env" })).toBe(name);
  });
});

describe("providerName", () => {
  it("prefers the trimmed explicit name, else the derived one", () => {
    expect(providerName({ name: "  mine ", git: { url: "https://h/x.git", ref: "main" } }, {})).toEqual({
      ok: true,
      name: "mine",
    });
    expect(providerName({ git: { url: "https://h/x.git", ref: "main" } }, {})).toEqual({
      ok: true,
      name: "x",
    });
  });

  it("explains a missing or invalid name", () => {
    expect(providerName({ git: { url: "", ref: "main" } }, {})).toEqual({
      ok: false,
      error: "requires name or a git url with a repository name",
    });
    expect(providerName({ name: "../evil", git: { url: "https://h/x.git", ref: "main" } }, {})).toEqual({
      ok: false,
      error: 'has invalid name "../evil"',
    });
    expect(providerName({ git: { url: "https://h/has space.git", ref: "main" } }, {})).toEqual({
      ok: false,
      error: 'has invalid name "has space"',
    });
  });

  it("only accepts names that are one safe path component", () => {
    for (const ok of ["a", "A.b-c_d", "9lives", "x..y"]) expect(PROVIDER_NAME.test(ok)).toBe(true);
    for (const bad of ["", ".x", "-x", "_x", "a/b", "a\\b", "..", "a:b", "a b"])
      expect(PROVIDER_NAME.test(bad)).toBe(false);
  });
});

describe("render names", () => {
  it("namespaces Codex and Claude skills as <provider>:<child>", () => {
    expect(namespacedSkillName("agent-skills", "code-reviewer")).toBe("agent-skills:code-reviewer");
  });

  it.each([
    ["Shared.Pack", "review", "shared-pack-review"],
    ["agent-skills", "code-reviewer", "agent-skills-code-reviewer"],
    ["--", "--", "skill"],
    ["Ünïcode", "x", "n-code-x"],
    ["\u0130stanbul", "x", "istanbul-x"],
    ["a", "b".repeat(70), `a-${"b".repeat(62)}`],
    ["a", `${"b".repeat(61)}-c`, `a-${"b".repeat(61)}`],
  ])("OpenCode slug(%s, %s) = %s", (provider, child, slug) => {
    expect(slugSkillName(provider, child)).toBe(slug);
    expect(slugSkillName(provider, child)).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(Buffer.byteLength(slugSkillName(provider, child))).toBeLessThanOrEqual(64);
  });
});

describe("goQuote", () => {
  it("quotes as Go's %q does", () => {
    expect(goQuote("plain")).toBe('"plain"');
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote("a\nb\r\t\0")).toBe('"a\\nb\\r\\t\\x00"');
    expect(goQuote("café 😀")).toBe('"café 😀"');
    expect(goQuote("\u00a0\u2028")).toBe('"\\u00a0\\u2028"');
  });
});
