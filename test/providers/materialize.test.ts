// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` env references are data in these tests
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { SkillEntry } from "../../src/model/config.js";
import { KanonError } from "../../src/model/types.js";
import type { Lock } from "../../src/providers/lock-types.js";
import { installTree, materializeProviders, resolveProvider } from "../../src/providers/materialize.js";
import { cacheRoot, enabledProviders } from "../../src/providers/source.js";
import {
  cleanupTemp,
  config,
  createRepo,
  fileText,
  skillMd,
  tempDir,
  testEnv,
  writeFiles,
} from "./helpers.js";

afterAll(cleanupTemp);

/** Cache entries (temp dirs included) under <home>/.kanon/cache/sources. */
const cacheEntries = (home: string): string[] =>
  existsSync(cacheRoot(home)) ? readdirSync(cacheRoot(home)).sort() : [];

const materialize = (home: string, skills: SkillEntry[], env: NodeJS.ProcessEnv, lock: Lock | null = null) =>
  materializeProviders(home, config(skills), lock, env);

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KanonError);
  return (error as Error).message;
}

describe("materializeProviders", () => {
  it("renders included children of a subdir with their extra files, and works offline from the cache", async () => {
    const repo = createRepo({
      "packs/review/SKILL.md": skillMd("review"),
      "packs/review/notes.txt": "remote note\n",
      "packs/lint/SKILL.md": skillMd("lint"),
    });
    const home = tempDir();
    const skills = [
      { name: "shared", git: { url: repo.url, ref: repo.head(), subdir: "packs" }, include: ["review"] },
    ];
    const [provider] = await materialize(home, skills, repo.env);
    expect(provider).toMatchObject({ name: "shared", entryIndex: 0, targets: undefined });
    expect(provider!.children.map((c) => c.name)).toEqual(["review"]);
    const files = provider!.children[0]!.files;
    expect(files.map((f) => f.rel)).toEqual(["SKILL.md", "notes.txt"]);
    expect(fileText(files, "SKILL.md")).toBe(skillMd("review"));
    expect(fileText(files, "notes.txt")).toBe("remote note\n");

    rmSync(repo.bare, { recursive: true });
    const again = await materialize(home, skills, repo.env);
    expect(again).toEqual([provider]);
  });

  it("derives the provider name from the URL and ignores files at the provider root", async () => {
    const repo = createRepo(
      {
        "packs/review/SKILL.md": skillMd("review"),
        "packs/lint/SKILL.md": skillMd("lint"),
        "packs/README.md": "skill directory docs\n",
        "packs/.github/SKILL.md": "dot entries are not skills\n",
      },
      { name: "shared-skills" },
    );
    const home = tempDir();
    const [provider] = await materialize(
      home,
      [{ git: { url: repo.url, ref: "main", subdir: "packs" } }],
      repo.env,
    );
    expect(provider!.name).toBe("shared-skills");
    expect(provider!.children.map((c) => c.name)).toEqual(["lint", "review"]);
  });

  it("selects children: exclude without include in name order, include in its own order minus exclude", async () => {
    const repo = createRepo({ "a/SKILL.md": "a", "b/SKILL.md": "b", "c/SKILL.md": "c" });
    const home = tempDir();
    const names = async (entry: Partial<SkillEntry>) =>
      (
        await materialize(home, [{ name: "p", git: { url: repo.url, ref: "main" }, ...entry }], repo.env)
      )[0]!.children.map((c) => c.name);
    expect(await names({})).toEqual(["a", "b", "c"]);
    expect(await names({ exclude: ["b"] })).toEqual(["a", "c"]);
    expect(await names({ include: ["c", "a", "b"], exclude: ["a"] })).toEqual(["c", "b"]);
    expect(await failure(names({ include: ["zz"] }))).toBe(
      'git skill provider "p" references unknown included skill "zz"',
    );
    expect(await failure(names({ exclude: ["zz"] }))).toBe(
      'git skill provider "p" references unknown excluded skill "zz"',
    );
  });

  it("keeps file modes", async () => {
    const repo = createRepo({ "tool/SKILL.md": "t", "tool/run.sh": "#!/bin/sh\n" });
    repo.git("update-index", "--chmod=+x", "tool/run.sh");
    repo.git("commit", "--quiet", "-m", "exec");
    repo.git("push", "--quiet", "origin", "HEAD");
    const [provider] = await materialize(
      tempDir(),
      [{ name: "p", git: { url: repo.url, ref: "main" } }],
      repo.env,
    );
    const run = provider!.children[0]!.files.find((f) => f.rel === "run.sh")!;
    expect(run.mode & 0o111).not.toBe(0);
  });

  it("follows branches, tags and SHAs", async () => {
    const repo = createRepo({ "s/SKILL.md": "one\n" });
    const first = repo.head();
    repo.tag("v1");
    repo.commit({ "s/SKILL.md": "two\n" });
    repo.branch("next");
    repo.commit({ "s/SKILL.md": "next\n" });
    const home = tempDir();
    const text = async (ref: string) =>
      fileText(
        (await materialize(home, [{ name: "p", git: { url: repo.url, ref } }], repo.env))[0]!.children[0]!
          .files,
        "SKILL.md",
      );
    expect(await text("main")).toBe("two\n");
    expect(await text("next")).toBe("next\n");
    expect(await text("v1")).toBe("one\n");
    expect(await text(first)).toBe("one\n");
  });

  it("never refreshes an unlocked mutable ref once cached (pin with kanon lock)", async () => {
    const repo = createRepo({ "s/SKILL.md": "one\n" });
    const home = tempDir();
    const skills = [{ name: "p", git: { url: repo.url, ref: "main" } }];
    await materialize(home, skills, repo.env);
    repo.commit({ "s/SKILL.md": "two\n" });
    const [p] = await materialize(home, skills, repo.env);
    expect(fileText(p!.children[0]!.files, "SKILL.md")).toBe("one\n");
  });

  it("shares the cache between providers with the same source", async () => {
    const repo = createRepo({ "s/SKILL.md": "x" });
    const home = tempDir();
    const out = await materialize(
      home,
      [
        { name: "one", git: { url: repo.url, ref: "main" } },
        { name: "two", git: { url: repo.url, ref: "main" } },
      ],
      repo.env,
    );
    expect(out.map((p) => p.name)).toEqual(["one", "two"]);
    expect(cacheEntries(home)).toHaveLength(1);
  });

  it("does not keep .git in the cache of a root provider", async () => {
    const repo = createRepo({ "root/SKILL.md": skillMd("root") });
    const home = tempDir();
    await materialize(home, [{ name: "root", git: { url: repo.url, ref: repo.head() } }], repo.env);
    const [entry] = cacheEntries(home);
    expect(existsSync(join(cacheRoot(home), entry!, ".git"))).toBe(false);
    expect(existsSync(join(cacheRoot(home), entry!, "root", "SKILL.md"))).toBe(true);
  });

  it("skips providers that are disabled or not wanted", async () => {
    const home = tempDir();
    const env = testEnv();
    const missing = `file://${join(tempDir(), "nowhere.git")}`;
    const out = await materializeProviders(
      home,
      config([
        { name: "off", enabled: false, git: { url: missing, ref: "main" } },
        { name: "claude-only", targets: ["claude"], git: { url: missing, ref: "main" } },
      ]),
      null,
      env,
      { wanted: (targets) => !targets || targets.includes("codex") },
    );
    expect(out).toEqual([]);
    expect(cacheEntries(home)).toEqual([]);
  });

  it("shows progress only through the sink it is given", async () => {
    const repo = createRepo({ "s/SKILL.md": "x" });
    const lines: string[] = [];
    await materializeProviders(
      tempDir(),
      config([{ name: "p", git: { url: repo.url, ref: "main" } }]),
      null,
      repo.env,
      {
        progress: (line) => lines.push(line),
      },
    );
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`git skill provider "p": fetching ${repo.url} at main`);
    expect(lines[1]).toMatch(/^git skill provider "p": checked out [0-9a-f]{40}$/);
  });

  it("shows the declared URL in progress, never what its variables expand to", async () => {
    const repo = createRepo({ "s/SKILL.md": "x" });
    const env = { ...repo.env, REPO_PATH: repo.bare.slice(1) };
    const lines: string[] = [];
    await materializeProviders(
      tempDir(),
      config([{ name: "p", git: { url: "file:///${REPO_PATH}", ref: "main" } }]),
      null,
      env,
      {
        progress: (line) => lines.push(line),
      },
    );
    expect(lines[0]).toBe('git skill provider "p": fetching file:///${REPO_PATH} at main');
  });
});

describe("provider trees that are not accepted", () => {
  const expectNothingCached = (home: string) => {
    expect(cacheEntries(home)).toEqual([]);
  };

  it("a repository without skill directories", async () => {
    const repo = createRepo({ "README.md": "not a skill\n" });
    const home = tempDir();
    expect(
      await failure(
        materialize(home, [{ name: "missing", git: { url: repo.url, ref: repo.head() } }], repo.env),
      ),
    ).toBe('git skill provider "missing" contains no skill directories');
    expectNothingCached(home);
  });

  it("a child without SKILL.md", async () => {
    const repo = createRepo({ "packs/review/SKILL.md": "r", "packs/broken/README.md": "not a skill\n" });
    const home = tempDir();
    const message = await failure(
      materialize(home, [{ name: "bundle", git: { url: repo.url, ref: "main", subdir: "packs" } }], repo.env),
    );
    expect(message).toMatch(
      /^git skill provider "bundle" child "broken": skill "broken" source missing SKILL\.md: lstat .*SKILL\.md: no such file or directory$/,
    );
    expectNothingCached(home);
  });

  it("a symlinked subdir", async () => {
    const repo = createRepo({ "actual/skill/SKILL.md": "a", linked: { symlink: "actual" } });
    const home = tempDir();
    expect(
      await failure(
        materialize(
          home,
          [{ name: "linked", git: { url: repo.url, ref: "main", subdir: "linked" } }],
          repo.env,
        ),
      ),
    ).toBe('git skill provider "linked" source subdir "linked" is not a directory');
    expectNothingCached(home);
  });

  it("a subdir reached through a symlinked parent (it could lead out of the repository)", async () => {
    const outside = tempDir();
    writeFiles(outside, { "skills/stolen/SKILL.md": "outside the repository" });
    const repo = createRepo({ "real/x/SKILL.md": "x", link: { symlink: outside } });
    const home = tempDir();
    expect(
      await failure(
        materialize(
          home,
          [{ name: "p", git: { url: repo.url, ref: "main", subdir: "link/skills" } }],
          repo.env,
        ),
      ),
    ).toBe('git skill provider "p" source subdir "link/skills" is not a directory');
    expect(existsSync(join(outside, "skills/stolen/SKILL.md"))).toBe(true);
    expectNothingCached(home);
  });

  it("a missing subdir", async () => {
    const repo = createRepo({ "x/SKILL.md": "x" });
    const home = tempDir();
    expect(
      await failure(
        materialize(home, [{ name: "p", git: { url: repo.url, ref: "main", subdir: "nope" } }], repo.env),
      ),
    ).toMatch(/^git skill provider "p" source subdir "nope": no such file or directory$/);
    expectNothingCached(home);
  });

  it("a symlinked file pointing outside the tree", async () => {
    const outside = join(tempDir(), "secret.txt");
    writeFileSync(outside, "secret\n");
    const repo = createRepo({ "skills/skill/SKILL.md": "s", "skills/skill/notes.txt": { symlink: outside } });
    const home = tempDir();
    expect(
      await failure(
        materialize(
          home,
          [{ name: "skill", git: { url: repo.url, ref: "main", subdir: "skills" } }],
          repo.env,
        ),
      ),
    ).toBe('git skill provider "skill" child "skill": skill "skill" source contains symlink "notes.txt"');
    expectNothingCached(home);
  });

  it("symlinks deeper in a child, as SKILL.md, or as a child", async () => {
    const home = tempDir();
    const cases: [Record<string, string | { symlink: string }>, string][] = [
      [
        { "s/SKILL.md": "s", "s/scripts/run": { symlink: "/etc/passwd" } },
        'git skill provider "p" child "s": skill "s" source contains symlink "scripts/run"',
      ],
      [
        { "s/real.md": "s", "s/SKILL.md": { symlink: "real.md" } },
        'git skill provider "p" child "s": skill "s" source contains symlink "SKILL.md"',
      ],
      [{ "s/SKILL.md": "s", evil: { symlink: "/" } }, 'git skill provider "p" contains symlink "evil"'],
    ];
    for (const [files, message] of cases) {
      const repo = createRepo(files);
      expect(
        await failure(materialize(home, [{ name: "p", git: { url: repo.url, ref: "main" } }], repo.env)),
      ).toBe(message);
    }
    expectNothingCached(home);
  });

  it("a child whose name is not one path component on every platform", async () => {
    const repo = createRepo({ "a\\..\\b/SKILL.md": "x" });
    const home = tempDir();
    expect(
      await failure(materialize(home, [{ name: "p", git: { url: repo.url, ref: "main" } }], repo.env)),
    ).toBe('git skill provider "p" has invalid skill directory name "a\\\\..\\\\b"');
    expectNothingCached(home);
  });

  it("a ref or URL git could read as an option, before git runs", async () => {
    const home = tempDir();
    const env = testEnv({ OPT: "--upload-pack=touch pwned" });
    expect(
      await failure(
        materialize(home, [{ name: "p", git: { url: "https://h/x.git", ref: "--output=x" } }], env),
      ),
    ).toBe('git skill provider "p" source has invalid ref "--output=x"');
    expect(await failure(materialize(home, [{ name: "p", git: { url: "${OPT}", ref: "main" } }], env))).toBe(
      'git skill provider "p" source has invalid url: must not start with "-"',
    );
    expect(
      await failure(materialize(home, [{ name: "p", git: { url: "${UNSET}", ref: "main" } }], env)),
    ).toBe('git skill provider "p" source requires url');
    expectNothingCached(home);
  });

  it("a failed fetch leaves no cache entry and no temp directory", async () => {
    const repo = createRepo({ "s/SKILL.md": "x" });
    const home = tempDir();
    const message = await failure(
      materialize(home, [{ name: "p", git: { url: repo.url, ref: "no-such-branch" } }], repo.env),
    );
    expect(message).toMatch(/^git skill provider "p" source: git checkout: exit status \d+: /);
    expectNothingCached(home);
  });

  it("never shows URL credentials in errors", async () => {
    const home = tempDir();
    const env = testEnv({ TOKEN: "s3cr3t-token" });
    const message = await failure(
      materialize(
        home,
        [{ name: "p", git: { url: "https://carol:${TOKEN}@127.0.0.1:1/x.git?key=${TOKEN}", ref: "main" } }],
        env,
      ),
    );
    expect(message).toMatch(/^git skill provider "p" source: git clone: exit status 128: /);
    expect(message).not.toContain("s3cr3t-token");
    expect(message).not.toContain("carol");
    expectNothingCached(home);
  });
});

describe("locked providers", () => {
  const setup = async () => {
    const repo = createRepo({ "packs/s/SKILL.md": "version one\n" });
    const home = tempDir();
    const skills: SkillEntry[] = [{ name: "p", git: { url: repo.url, ref: "main", subdir: "packs" } }];
    const [provider] = enabledProviders(config(skills), repo.env);
    const resolved = await resolveProvider(home, provider!, repo.env);
    const lock: Lock = {
      version: 1,
      sources: [
        {
          owner: "skill.git.p",
          type: "git",
          url: repo.url,
          ref: "main",
          subdir: "packs",
          resolved_ref: resolved.resolved,
          content_sha256: resolved.hash,
        },
      ],
    };
    return { repo, home, skills, lock };
  };
  const text = (out: Awaited<ReturnType<typeof materializeProviders>>) =>
    fileText(out[0]!.children[0]!.files, "SKILL.md");

  it("render the locked commit after the branch moves and the cache is deleted", async () => {
    const { repo, home, skills, lock } = await setup();
    repo.commit({ "packs/s/SKILL.md": "version two\n" });
    rmSync(join(home, ".kanon"), { recursive: true });
    expect(text(await materialize(home, skills, repo.env, lock))).toBe("version one\n");
    expect(text(await materialize(home, skills, repo.env, null))).toBe("version two\n");
  });

  it("refuse a tampered cache", async () => {
    const { repo, home, skills, lock } = await setup();
    const [entry] = cacheEntries(home);
    writeFileSync(join(cacheRoot(home), entry!, "s", "SKILL.md"), "tampered\n");
    expect(await failure(materialize(home, skills, repo.env, lock))).toMatch(
      /^git skill provider "p" cache hash mismatch: got sha256:[0-9a-f]{64}, want sha256:[0-9a-f]{64}$/,
    );
  });

  it("refuse fetched content that does not match the pin", async () => {
    const { repo, home, skills, lock } = await setup();
    rmSync(join(home, ".kanon"), { recursive: true });
    const wrongHash = {
      ...lock,
      sources: [{ ...lock.sources[0]!, content_sha256: `sha256:${"0".repeat(64)}` }],
    };
    expect(await failure(materialize(home, skills, repo.env, wrongHash))).toMatch(
      /^git skill provider "p" hash mismatch: got sha256:[0-9a-f]{64}, want sha256:0{64}$/,
    );
    expect(cacheEntries(home)).toEqual([]);
  });

  it("report an entry that no longer matches kanon.yaml", async () => {
    const { repo, home, lock } = await setup();
    const cases: [SkillEntry, string][] = [
      [
        { name: "p", git: { url: repo.url, ref: "dev", subdir: "packs" } },
        'kanon.lock entry "skill.git.p" ref is "main", but kanon.yaml has "dev"; run kanon lock',
      ],
      [
        { name: "p", git: { url: `${repo.url}/`, ref: "main", subdir: "packs" } },
        'kanon.lock entry "skill.git.p" url is stale; run kanon lock',
      ],
      [
        { name: "p", git: { url: repo.url, ref: "main" } },
        'kanon.lock entry "skill.git.p" subdir is "packs", but kanon.yaml has ""; run kanon lock',
      ],
    ];
    for (const [entry, message] of cases)
      expect(await failure(materialize(home, [entry], repo.env, lock))).toBe(message);
    // A cleaned subdir still matches.
    const ok = await materialize(
      home,
      [{ name: "p", git: { url: repo.url, ref: "main", subdir: "./packs/" } }],
      repo.env,
      lock,
    );
    expect(text(ok)).toBe("version one\n");
  });
});

describe("installTree", () => {
  it("names the provider when the cache cannot be written", async () => {
    const root = tempDir();
    expect(await failure(installTree("named", join(root, "missing"), join(root, "cache")))).toMatch(
      /^git skill provider "named" source cache: rename /,
    );
  });

  it("keeps an existing cache entry that won a race", async () => {
    const root = tempDir();
    const cache = join(root, "cache");
    const source = join(root, "source");
    writeFiles(cache, { "winner/SKILL.md": "winner\n" });
    writeFiles(source, { "loser/SKILL.md": "loser\n" });
    await installTree("race", source, cache);
    expect(readdirSync(cache)).toEqual(["winner"]);
  });

  it("replaces an entry when asked, moving the old one aside", async () => {
    const root = tempDir();
    const cache = join(root, "cache");
    const source = join(root, "source");
    writeFiles(cache, { "old/SKILL.md": "old\n" });
    writeFiles(source, { "new/SKILL.md": "new\n" });
    mkdirSync(join(root, "tmp"));
    await installTree("p", source, cache, { replace: true, aside: join(root, "tmp", "previous") });
    expect(readdirSync(cache)).toEqual(["new"]);
    expect(statSync(join(root, "tmp", "previous", "old")).isDirectory()).toBe(true);
  });
});
