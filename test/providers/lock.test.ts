// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` env references are data in these tests
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { SkillEntry } from "../../src/model/config.js";
import { KanonError } from "../../src/model/types.js";
import {
  checkLock,
  computeUpdate,
  formatLock,
  lock,
  lockErrors,
  updateLock,
  writeLock,
} from "../../src/providers/lock.js";
import { loadLock } from "../../src/providers/lock-file.js";
import { parseLock } from "../../src/providers/lock-parse.js";
import type { Lock, LockEntry } from "../../src/providers/lock-types.js";
import { cacheRoot, hasLiteralCredentials } from "../../src/providers/source.js";
import { cleanupTemp, config, createRepo, skillMd, type TestRepo, tempDir, testEnv } from "./helpers.js";

afterAll(cleanupTemp);

const lockFile = (home: string) => join(home, "kanon.lock");
const readLock = (home: string) => readFileSync(lockFile(home), "utf8");

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KanonError);
  return (error as Error).message;
}

function remote(name: string, content = name): { repo: TestRepo; entry: SkillEntry } {
  const repo = createRepo({ [`${name}/SKILL.md`]: skillMd(name, content) }, { name });
  return { repo, entry: { name, git: { url: repo.url, ref: "main" } } };
}

const entryFor = (l: Lock | null, owner: string) => l?.sources.find((e) => e.owner === owner);

describe("kanon lock", () => {
  it("pins each provider and writes the Go original's format", async () => {
    const { repo, entry } = remote("remote-review");
    const home = tempDir();
    const message = await lock(home, config([entry]), repo.env);
    expect(message).toBe(`Locked 1 git skill provider(s) in ${lockFile(home)}`);
    const written = await loadLock(home);
    const e = entryFor(written, "skill.git.remote-review")!;
    expect(e.url).toBe(repo.url);
    expect(e.ref).toBe("main");
    expect(e.resolved_ref).toBe(repo.head());
    expect(e.resolved_ref).not.toBe(e.ref);
    expect(e.content_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(readLock(home)).toBe(
      [
        "version: 1",
        "sources:",
        "  - owner: skill.git.remote-review",
        "    type: git",
        `    url: ${repo.url}`,
        "    ref: main",
        '    subdir: ""',
        `    resolved_ref: ${e.resolved_ref}`,
        `    content_sha256: ${e.content_sha256}`,
        "",
      ].join("\n"),
    );
    expect(await checkLock(home, config([entry]), repo.env, { requireLocked: true })).toBe(
      "kanon.lock is valid.",
    );
    expect(readdirSync(home).filter((n) => n !== ".kanon")).toEqual(["kanon.lock"]);
  });

  it("writes an empty lock when there is no provider", async () => {
    const home = tempDir();
    expect(await lock(home, config([]), testEnv())).toBe(
      `Locked 0 git skill provider(s) in ${lockFile(home)}`,
    );
    expect(readLock(home)).toBe("version: 1\nsources: []\n");
  });

  it("keeps the pin after the branch moves; lock update --all advances it", async () => {
    const { repo, entry } = remote("remote-review", "version one");
    const home = tempDir();
    const cfg = config([entry]);
    await lock(home, cfg, repo.env);
    const first = readLock(home);
    const pinned = repo.head();

    const moved = repo.commit({ "remote-review/SKILL.md": skillMd("remote-review", "version two") });
    await lock(home, cfg, repo.env);
    expect(readLock(home)).toBe(first);

    const errors = await lockErrors(home, cfg, repo.env, { requireLocked: true });
    expect(errors).toEqual([
      `git skill provider "remote-review" resolves to ${moved}, but kanon.lock pins ${pinned}`,
      expect.stringMatching(
        /^git skill provider "remote-review" content hash is sha256:\w+, but kanon.lock pins sha256:\w+$/,
      ),
    ]);
    expect(await failure(checkLock(home, cfg, repo.env, { requireLocked: true }))).toBe(errors.join("\n"));

    expect(await updateLock(home, cfg, repo.env, "all")).toBe(`Updated ${lockFile(home)}`);
    expect(entryFor(await loadLock(home), "skill.git.remote-review")!.resolved_ref).toBe(moved);
    expect(await checkLock(home, cfg, repo.env, { requireLocked: true })).toBe("kanon.lock is valid.");
  });

  it("re-resolves an entry whose source changed, and drops stale entries", async () => {
    const a = remote("alpha");
    const b = remote("beta");
    const home = tempDir();
    await lock(home, config([a.entry, b.entry]), a.repo.env);
    a.repo.branch("dev");
    const dev = a.repo.commit({ "alpha/SKILL.md": skillMd("alpha", "dev") });
    await lock(home, config([{ ...a.entry, git: { url: a.repo.url, ref: "dev" } }]), a.repo.env);
    const written = await loadLock(home);
    expect(written!.sources.map((e) => [e.owner, e.ref, e.resolved_ref])).toEqual([
      ["skill.git.alpha", "dev", dev],
    ]);
  });

  it("refuses literal credentials in the URL and writes nothing", async () => {
    const home = tempDir();
    const cfg = config([
      { name: "p", git: { url: "https://carol:s3cr3t@example.invalid/p.git", ref: "main" } },
    ]);
    expect(await failure(lock(home, cfg, testEnv()))).toBe(
      'git skill provider "p" url: contains literal credentials; use environment references instead',
    );
    expect(existsSync(lockFile(home))).toBe(false);
  });

  it("refuses literal credentials even for an entry it would keep", async () => {
    const home = tempDir();
    const url = "https://example.invalid/p.git?token=literal";
    await writeLock(home, {
      version: 1,
      sources: [
        {
          owner: "skill.git.p",
          type: "git",
          url,
          ref: "main",
          subdir: "",
          resolved_ref: "abc",
          content_sha256: "sha256:abc",
        },
      ],
    });
    expect(await failure(lock(home, config([{ name: "p", git: { url, ref: "main" } }]), testEnv()))).toMatch(
      /literal credentials/,
    );
  });
});

describe("kanon lock update <names>", () => {
  it("writes a complete lock when one provider is named", async () => {
    const one = remote("one");
    const two = remote("two");
    const home = tempDir();
    await updateLock(home, config([one.entry, two.entry]), one.repo.env, ["one"]);
    expect((await loadLock(home))!.sources.map((e) => e.owner)).toEqual(["skill.git.one", "skill.git.two"]);
  });

  it("advances only the named provider", async () => {
    const one = remote("one");
    const two = remote("two");
    const home = tempDir();
    const cfg = config([one.entry, two.entry]);
    await lock(home, cfg, one.repo.env);
    const oneMoved = one.repo.commit({ "one/SKILL.md": "moved" });
    const twoPinned = two.repo.head();
    two.repo.commit({ "two/SKILL.md": "moved" });
    await updateLock(home, cfg, one.repo.env, ["one"]);
    const written = await loadLock(home);
    expect(entryFor(written, "skill.git.one")!.resolved_ref).toBe(oneMoved);
    expect(entryFor(written, "skill.git.two")!.resolved_ref).toBe(twoPinned);
  });

  it("accepts the name of a removed provider and drops it (lock check is then valid)", async () => {
    const one = remote("remote-review");
    const two = remote("two");
    const home = tempDir();
    await lock(home, config([one.entry, two.entry]), one.repo.env);
    const cfg = config([two.entry]);
    await updateLock(home, cfg, one.repo.env, ["remote-review"]);
    expect((await loadLock(home))!.sources.map((e) => e.owner)).toEqual(["skill.git.two"]);
    expect(await checkLock(home, cfg, one.repo.env, { requireLocked: true })).toBe("kanon.lock is valid.");

    await updateLock(home, config([]), one.repo.env, ["two"]);
    expect(readLock(home)).toBe("version: 1\nsources: []\n");
    expect(await checkLock(home, config([]), one.repo.env, { requireLocked: true })).toBe(
      "kanon.lock is valid.",
    );
  });

  it("accepts the legacy name git.foo for owner skill.git.foo", async () => {
    const home = tempDir();
    await writeLock(home, {
      version: 1,
      sources: [
        {
          owner: "skill.git.foo",
          type: "git",
          url: "https://example.invalid/repo.git",
          ref: "main",
          subdir: "",
          resolved_ref: "abc123",
          content_sha256: "sha256:abc123",
        },
      ],
    });
    const next = await computeUpdate(home, config([]), testEnv(), ["git.foo"]);
    expect(next.sources).toEqual([]);
  });

  it("rejects an unknown name, no name, and an ambiguous name", async () => {
    const home = tempDir();
    expect(await failure(updateLock(home, config([]), testEnv(), ["missing"]))).toBe(
      'git skill provider "missing" not found in enabled config or kanon.lock',
    );
    expect(await failure(updateLock(home, config([]), testEnv(), []))).toBe(
      "lock update requires a git skill provider name or --all",
    );
    const twice = config([
      { name: "x", git: { url: "https://example.invalid/a.git", ref: "main" } },
      { name: "x", git: { url: "https://example.invalid/b.git", ref: "main" } },
    ]);
    expect(await failure(updateLock(home, twice, testEnv(), ["x"]))).toBe(
      'git skill provider name "x" is ambiguous',
    );
    expect(existsSync(lockFile(home))).toBe(false);
  });

  it("locks and updates a provider whose skills live in a subdir", async () => {
    const repo = createRepo({
      "packs/review/SKILL.md": skillMd("review"),
      "packs/lint/SKILL.md": skillMd("lint"),
    });
    const home = tempDir();
    const cfg = config([{ name: "bundle", git: { url: repo.url, ref: repo.head(), subdir: "./packs/" } }]);
    await lock(home, cfg, repo.env);
    const e = entryFor(await loadLock(home), "skill.git.bundle")!;
    expect(e.subdir).toBe("packs");
    expect(e.content_sha256).toMatch(/^sha256:/);
    await updateLock(home, cfg, repo.env, ["bundle"]);
    expect(entryFor(await loadLock(home), "skill.git.bundle")).toEqual(e);
  });
});

describe("kanon lock check", () => {
  it("requires a lock for providers, unless not required", async () => {
    const { repo, entry } = remote("p");
    const home = tempDir();
    expect(await failure(checkLock(home, config([entry]), repo.env, { requireLocked: true }))).toBe(
      `${lockFile(home)} is required for git skill providers; run kanon lock`,
    );
    expect(await checkLock(home, config([entry]), repo.env, { requireLocked: false })).toBe(
      "kanon.lock is valid.",
    );
    expect(await checkLock(home, config([]), repo.env, { requireLocked: true })).toBe("kanon.lock is valid.");
  });

  it("reports missing, stale and changed entries, each naming the provider or entry", async () => {
    const a = remote("alpha");
    const b = remote("beta");
    const home = tempDir();
    await lock(home, config([a.entry]), a.repo.env);
    const text = readLock(home).replace(
      "sources:\n",
      'sources:\n  - owner: skill.remote-review\n    type: git\n    url: https://example.invalid/r.git\n    ref: main\n    subdir: ""\n    resolved_ref: abc123\n    content_sha256: sha256:abc123\n',
    );
    writeFileSync(lockFile(home), text);
    const cfg = config([{ ...a.entry, git: { url: a.repo.url, ref: "dev" } }, b.entry]);
    expect(await lockErrors(home, cfg, a.repo.env, { requireLocked: true })).toEqual([
      'kanon.lock has stale entry "skill.remote-review"',
      'kanon.lock entry "skill.git.alpha" ref is "main", but kanon.yaml has "dev"; run kanon lock',
      'git skill provider "beta" is missing from kanon.lock',
    ]);
    expect(await lockErrors(home, cfg, a.repo.env, { requireLocked: false })).toEqual([
      'kanon.lock has stale entry "skill.remote-review"',
      'kanon.lock entry "skill.git.alpha" ref is "main", but kanon.yaml has "dev"; run kanon lock',
    ]);
  });

  it("fails on a tampered cache", async () => {
    const { repo, entry } = remote("p");
    const home = tempDir();
    await lock(home, config([entry]), repo.env);
    const [cached] = readdirSync(cacheRoot(home));
    writeFileSync(join(cacheRoot(home), cached!, "p", "SKILL.md"), "tampered\n");
    const errors = await lockErrors(home, config([entry]), repo.env, { requireLocked: true });
    expect(errors).toEqual([
      expect.stringMatching(/^git skill provider "p" cache hash mismatch: got sha256:\w+, want sha256:\w+$/),
    ]);
  });

  it("fails when the remote no longer has the pinned content", async () => {
    const { repo, entry } = remote("p");
    const home = tempDir();
    await lock(home, config([entry]), repo.env);
    rmSync(join(home, ".kanon"), { recursive: true });
    rmSync(repo.bare, { recursive: true });
    const [error] = await lockErrors(home, config([entry]), repo.env, { requireLocked: true });
    expect(error).toMatch(/^git skill provider "p" source: git clone: exit status 128: /);
  });

  it("reports an invalid kanon.lock with every load error", async () => {
    const home = tempDir();
    writeFileSync(
      lockFile(home),
      [
        "version: 1",
        "sources:",
        "  - owner: skill.git.a",
        "    type: svn",
        "  - owner: skill.git.a",
        "    type: git",
        "    url: u",
        "    ref: r",
        "    subdir: ../x",
        "    resolved_ref: abc",
        "    content_sha256: md5:x",
        "  - owner: ''",
        "",
      ].join("\n"),
    );
    const message = await failure(checkLock(home, config([]), testEnv(), { requireLocked: true }));
    expect(message.split("\n")).toEqual([
      'kanon.lock source "skill.git.a" has unsupported type "svn"',
      'kanon.lock source "skill.git.a" requires url',
      'kanon.lock source "skill.git.a" requires ref',
      'kanon.lock source "skill.git.a" requires resolved_ref',
      'kanon.lock source "skill.git.a" requires content_sha256',
      'kanon.lock has duplicate source owner "skill.git.a"',
      'kanon.lock source "skill.git.a" requires content_sha256',
      'kanon.lock source "skill.git.a" has invalid subdir "../x": must not escape the repository',
      "kanon.lock source owner cannot be empty",
      'kanon.lock source "" has unsupported type ""',
      'kanon.lock source "" requires url',
      'kanon.lock source "" requires ref',
      'kanon.lock source "" requires resolved_ref',
      'kanon.lock source "" requires content_sha256',
    ]);
    writeFileSync(lockFile(home), "sources: []\n");
    expect(await failure(loadLock(home))).toBe("unsupported kanon.lock version 0");
    writeFileSync(lockFile(home), "version: 2\nsources: []\n");
    expect(await failure(loadLock(home))).toBe("unsupported kanon.lock version 2");
    writeFileSync(lockFile(home), "version: [1]\n");
    expect(await failure(loadLock(home))).toBe("kanon.lock: version must be an integer");
    writeFileSync(lockFile(home), "version: 1\nsources: {a: b}\n");
    expect(await failure(loadLock(home))).toBe("kanon.lock: sources must be a list");
    writeFileSync(lockFile(home), "version: 1\n  bad: [\n");
    expect(await failure(loadLock(home))).toMatch(/^kanon\.lock: yaml: /);
  });
});

describe("a kanon.lock written by the Go original", () => {
  // The tiny tree of hash.test.ts, whose content hash was computed by hand.
  const TINY = {
    "a/SKILL.md": "hi\n",
    "b/SKILL.md": "---\nname: b\n---\n",
    "b/x/y.txt": "z",
    "README.md": "top-level files are not hashed",
  };
  const TINY_PROVIDER = "sha256:e945ad0e21240639154ca14a0ad8beb811646c192d84deaa69e22d898b33466a";

  it("verifies unchanged and is kept byte for byte", async () => {
    const repo = createRepo(TINY, { name: "tiny" });
    const home = tempDir();
    const text = [
      "version: 1",
      "sources:",
      "  - owner: skill.git.tiny",
      "    type: git",
      `    url: ${repo.url}`,
      "    ref: main",
      '    subdir: ""',
      `    resolved_ref: ${repo.head()}`,
      `    content_sha256: ${TINY_PROVIDER}`,
      "",
    ].join("\n");
    writeFileSync(lockFile(home), text);
    const cfg = config([{ git: { url: repo.url, ref: "main" } }]);
    expect(await checkLock(home, cfg, repo.env, { requireLocked: true })).toBe("kanon.lock is valid.");
    await lock(home, cfg, repo.env);
    expect(readLock(home)).toBe(text);
    expect(formatLock(parseLock(text))).toBe(text);
  });
});

describe("lock file parsing and writing", () => {
  const entry = (owner: string, url = "u"): LockEntry => ({
    owner,
    type: "git",
    url,
    ref: "r",
    subdir: "",
    resolved_ref: "x",
    content_sha256: "sha256:x",
  });

  it("reads what the Go original reads: unknown keys ignored, any scalar as a string, null as empty", () => {
    const parsed = parseLock(
      "version: 1\nextra: ignored\nsources:\n  - owner: skill.git.a\n    ref: 1.0\n    url: ~\n    note: x\n    resolved_ref: 0123\n",
    );
    expect(parsed).toEqual({
      version: 1,
      sources: [
        { ...entry("skill.git.a", ""), ref: "1.0", resolved_ref: "0123", type: "", content_sha256: "" },
      ],
    });
    expect(parseLock("")).toEqual({ version: 0, sources: [] });
  });

  it("writes entries sorted by owner then url, quoting as yaml.v3 does", async () => {
    const home = tempDir();
    await writeLock(home, {
      version: 7,
      sources: [entry("skill.git.b"), entry("skill.git.a", "yes"), entry("skill.git.c", "1")],
    });
    const text = readLock(home);
    expect(text.startsWith("version: 1\n")).toBe(true);
    expect([...text.matchAll(/owner: (\S+)/g)].map((m) => m[1])).toEqual([
      "skill.git.a",
      "skill.git.b",
      "skill.git.c",
    ]);
    expect(text).toContain('url: "yes"');
    expect(text).toContain('url: "1"');
    expect(readdirSync(home)).toEqual(["kanon.lock"]);
  });

  it("refuses to write an invalid lock", async () => {
    const home = tempDir();
    expect(
      await failure(writeLock(home, { version: 1, sources: [entry("skill.git.a"), entry("skill.git.a")] })),
    ).toBe('kanon.lock has duplicate source owner "skill.git.a"');
    expect(existsSync(lockFile(home))).toBe(false);
  });
});

describe("literal credentials in a provider URL", () => {
  it.each([
    ["https://${KANON_TEST_USER}:${KANON_TEST_TOKEN}@example.com/repo.git", false],
    ["https://${KANON_TEST_USER}:literal-secret@example.com/repo.git", true],
    ["https://literal-user@example.com/repo.git", true],
    ["https://example.com/repo.git?token=literal-secret", true],
    ["https://example.com/repo.git?token=${KANON_TEST_TOKEN}", false],
    ["https://example.com/repo.git?token=${KANON_TEST_TOKEN:-literal-secret}", true],
    ["https://example.com/repo.git#literal-secret", true],
    ["https://example.com/repo.git#${FRAGMENT}", false],
    ["https://${HOST}/repo.git?token=literal", true],
    ["https://%6C%69t:@example.com/r.git", true],
    ["https://example.com/repo.git?flag&empty=", false],
    ["git@github.com:acme/tools.git", false],
    ["file:///srv/skills.git", false],
  ])("%s → %s", (url, literal) => {
    expect(hasLiteralCredentials(url)).toBe(literal);
  });
});
