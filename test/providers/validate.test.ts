// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` env references are data in these tests
import { describe, expect, it } from "vitest";
import { AGENT_IDS } from "../../src/agents/index.js";
import type { KanonConfig } from "../../src/model/config.js";
import { mutableRefWarnings } from "../../src/providers/lock.js";
import type { Lock } from "../../src/providers/lock-types.js";
import { gitSkillEntryErrors, gitUrlEnvErrors } from "../../src/providers/validate.js";
import { config } from "./helpers.js";

/** The git part of validation, as source/validate.ts runs it: enabled entries in order, then URL env refs. */
function validateGitSkills(
  config: KanonConfig,
  env: NodeJS.ProcessEnv,
  agentIds: readonly string[] = AGENT_IDS,
): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const entry of config.skills) {
    if (entry.enabled === false || !entry.git) continue;
    out.push(...gitSkillEntryErrors(entry, env, seen, agentIds));
  }
  out.push(...gitUrlEnvErrors(config, env));
  return out;
}

const URL_ = "https://example.invalid/repo.git";
const SHA = "4366c5c746da3d298727d6f3823281e00a97aba2";

describe("validateGitSkills", () => {
  it("reports the upstream validation cases", () => {
    const errors = validateGitSkills(
      config([
        {
          git: { url: "", ref: "", subdir: "../bad" },
          include: ["review", "review", "skip"],
          exclude: ["skip", ""],
        },
        { name: "bad", git: { url: URL_, ref: "abc123" } },
        { name: "bad", git: { url: URL_, ref: "abc123" } },
      ]),
      {},
    );
    expect(errors).toEqual([
      "git skill provider requires name or a git url with a repository name",
      "git skill provider requires url",
      "git skill provider requires ref",
      'git skill provider has invalid subdir "../bad": must not escape the repository',
      'git skill provider include has duplicate skill "review"',
      'git skill provider cannot both include and exclude skill "skip"',
      "git skill provider exclude cannot contain an empty skill name",
      'git skill provider "bad" is duplicated',
    ]);
  });

  it("reports every entry rule in the reference's order", () => {
    const errors = validateGitSkills(
      config([
        {
          name: "pack",
          path: "skills/pack",
          targets: ["codex", "vim"],
          git: { url: URL_, ref: "-x", subdir: "/abs" },
          include: ["a", ""],
          exclude: ["b", "b"],
        },
        { name: "Bad Name!", git: { url: URL_, ref: "main\n" } },
      ]),
      {},
    );
    expect(errors).toEqual([
      "git skill provider cannot be used with path",
      'git skill provider "pack" has unsupported target "vim"',
      'git skill provider "pack" has invalid ref "-x"',
      'git skill provider "pack" has invalid subdir "/abs": must be relative',
      'git skill provider "pack" include cannot contain an empty skill name',
      'git skill provider "pack" exclude has duplicate skill "b"',
      'git skill provider "Bad Name!" has invalid name "Bad Name!"',
      'git skill provider "Bad Name!" has invalid ref "main\\n"',
    ]);
  });

  it("finds two providers with the same derived name", () => {
    const errors = validateGitSkills(
      config([
        { git: { url: "https://a.example/acme/skills.git", ref: "main" } },
        { git: { url: "git@b.example:other/skills.git", ref: "v1" } },
      ]),
      {},
    );
    expect(errors).toEqual(['git skill provider "skills" is duplicated']);
  });

  it("skips disabled entries and local entries", () => {
    expect(
      validateGitSkills(
        config([
          { enabled: false, git: { url: "", ref: "" } },
          { name: "local", include: ["x"] },
          { name: "ok", git: { url: URL_, ref: "main", subdir: "./skills/" } },
        ]),
        {},
      ),
    ).toEqual([]);
  });

  it("refuses URLs git could read as an option, and names that could leave the provider", () => {
    const errors = validateGitSkills(
      config([
        {
          name: "p",
          git: { url: "--upload-pack=touch pwned", ref: "main", subdir: "a/.git" },
          include: ["../x", "a/b"],
        },
        { name: "q", git: { url: "${OPT}", ref: "main" }, exclude: ["..", "x\\y"] },
      ]),
      { OPT: "-oProxyCommand=evil" },
    );
    expect(errors).toEqual([
      'git skill provider "p" has invalid url: must not start with "-"',
      'git skill provider "p" has invalid subdir "a/.git": must not be inside .git',
      'git skill provider "p" include has invalid skill name "../x"',
      'git skill provider "p" include has invalid skill name "a/b"',
      'git skill provider "q" has invalid url: must not start with "-"',
      'git skill provider "q" exclude has invalid skill name ".."',
      'git skill provider "q" exclude has invalid skill name "x\\\\y"',
    ]);
  });

  it("requires the variables a git URL references (kanon expands them itself)", () => {
    const cfg = config([
      {
        name: "remote",
        git: { url: "https://example.invalid/${KANON_TEST_MISSING_TOKEN}/repo.git", ref: SHA },
      },
      { name: "fine", git: { url: "https://${HOST:-example.invalid}/repo.git", ref: SHA } },
      { name: "off", enabled: false, git: { url: "https://${ALSO_MISSING}/repo.git", ref: SHA } },
    ]);
    expect(validateGitSkills(cfg, {})).toEqual([
      "config.skills[0].git.url references unset environment variable KANON_TEST_MISSING_TOKEN",
    ]);
    expect(validateGitSkills(cfg, { KANON_TEST_MISSING_TOKEN: "" })).toHaveLength(1);
    expect(validateGitSkills(cfg, { KANON_TEST_MISSING_TOKEN: "set" })).toEqual([]);
  });
});

describe("mutableRefWarnings", () => {
  const entry = (over: Partial<Lock["sources"][number]> = {}) => ({
    owner: "skill.git.pack",
    type: "git",
    url: URL_,
    ref: "main",
    subdir: "skills",
    resolved_ref: SHA,
    content_sha256: "sha256:00",
    ...over,
  });
  const cfg = (ref: string, subdir = "skills/") =>
    config([{ name: "pack", git: { url: URL_, ref, subdir } }]);

  it("warns about a branch or tag without a lock entry", () => {
    expect(mutableRefWarnings(cfg("main"), null, {})).toEqual([
      'git skill provider "pack" ref "main" is mutable without a matching kanon.lock entry',
    ]);
    expect(mutableRefWarnings(cfg("v1.2"), { version: 1, sources: [] }, {})).toHaveLength(1);
  });

  it("is quiet for a full SHA or a matching entry", () => {
    expect(mutableRefWarnings(cfg(SHA), null, {})).toEqual([]);
    expect(mutableRefWarnings(cfg(`${SHA}${"a".repeat(24)}`), null, {})).toEqual([]);
    expect(mutableRefWarnings(cfg("main"), { version: 1, sources: [entry()] }, {})).toEqual([]);
  });

  it("warns when the entry no longer matches", () => {
    expect(
      mutableRefWarnings(cfg("main"), { version: 1, sources: [entry({ ref: "dev" })] }, {}),
    ).toHaveLength(1);
    expect(mutableRefWarnings(cfg("main", "other"), { version: 1, sources: [entry()] }, {})).toHaveLength(1);
    expect(mutableRefWarnings(cfg("abc123"), null, {})).toHaveLength(1);
  });
});
