import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkoutRef, GitError, redactOutput, redactUrl, runGit, spawnGit } from "../../src/providers/git.js";
import { cleanupTemp, copyRepo, createRepo, tempDir, testEnv } from "./helpers.js";

afterAll(cleanupTemp);

describe("redactOutput", () => {
  it("removes the user, the password and the full URL", () => {
    const repo = "https://carol:s3cr3t-token@example.invalid/repo.git";
    const output = `fatal: unable to access ${repo} for carol:s3cr3t-token`;
    const got = redactOutput(repo, output);
    for (const leak of ["carol", "s3cr3t-token", repo]) expect(got).not.toContain(leak);
    expect(got).toContain("redacted");
    expect(got).toContain("example.invalid");
  });

  it("removes query values, raw and query-escaped", () => {
    const secret = "s3cr3t/query-token";
    const repo = `https://example.invalid/repo.git?token=${secret}`;
    const output = `fatal: unable to access ${repo} token=${secret} escaped=${encodeURIComponent(secret)}`;
    const got = redactOutput(repo, output);
    for (const leak of [secret, encodeURIComponent(secret), repo]) expect(got).not.toContain(leak);
    expect(got).toContain("redacted");
  });

  it("removes percent-encoded credentials and the fragment", () => {
    const repo = "https://user%40corp:p%40ss@example.invalid/r.git#frag-secret";
    const got = redactOutput(repo, "user@corp p@ss user%40corp:p%40ss frag-secret");
    for (const leak of ["user@corp", "p@ss", "frag-secret"]) expect(got).not.toContain(leak);
  });

  it("leaves the conventional ssh user alone", () => {
    expect(redactOutput("ssh://git@example.invalid/r.git", "fatal: git said no")).toBe("fatal: git said no");
  });
});

describe("redactUrl", () => {
  it.each([
    ["https://carol:s3cr3t@example.invalid/repo.git", "https://redacted@example.invalid/repo.git"],
    ["https://example.invalid/r.git?token=abc&x=&y", "https://example.invalid/r.git?token=redacted&x=&y"],
    ["https://example.invalid/r.git#frag", "https://example.invalid/r.git#redacted"],
    ["git@github.com:acme/tools.git", "git@github.com:acme/tools.git"],
    ["https://h@h.example/r.git", "https://redacted@h.example/r.git"],
    ["//tok@h.example/r.git", "//redacted@h.example/r.git"],
    ["ssh://git@h.example/r.git", "ssh://git@h.example/r.git"],
    ["file:///srv/skills.git", "file:///srv/skills.git"],
  ])("%s", (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });
});

describe("runGit", () => {
  it("fails with the verb, exit status and redacted output", async () => {
    const env = testEnv();
    const url = "https://carol:s3cr3t@127.0.0.1:1/repo.git";
    const error = await runGit(["ls-remote", "--", url], { url, env }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    const message = (error as Error).message;
    expect(message).toMatch(/^git ls-remote: exit status 128: /);
    expect(message).not.toContain("s3cr3t");
    expect(message).not.toContain("carol");
  });

  it("ignores a GIT_DIR pointing at another repository", async () => {
    const other = createRepo({ "x/SKILL.md": "x" });
    const env = testEnv({ GIT_DIR: join(other.work, ".git") });
    const dir = join(tempDir(), "r");
    await runGit(["init", "--quiet", "--", dir], { url: "", env });
    expect(existsSync(join(dir, ".git"))).toBe(true);
  });
});

describe("spawnGit", () => {
  it("streams whole lines, redacted, and keeps a character split across chunks whole", async () => {
    // A file long enough to come in several chunks, with a secret and non-ASCII text in it.
    const message = `a${"é".repeat(70_000)}\ntoken-s3cr3t ${"ü".repeat(70_000)}\n`;
    const repo = createRepo({ "x/SKILL.md": message });
    const streamed: string[] = [];
    const r = await spawnGit(["-C", repo.work, "show", "HEAD:x/SKILL.md"], {
      env: testEnv(),
      redact: (text) => text.replaceAll("token-s3cr3t", "redacted"),
      onOutput: (text, stream) => {
        streamed.push(`${stream}:${text.length}`);
      },
    });
    expect(r.failure).toBeNull();
    expect(r.notStarted).toBe(false);
    expect(r.stdout).toBe(message);
    expect(r.output).toBe(message.replace("token-s3cr3t", "redacted"));
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed.every((s) => s.startsWith("stdout:"))).toBe(true);
  });

  it("says why git could not start, and never rejects", async () => {
    const r = await spawnGit(["version"], { env: { PATH: "/nonexistent" }, redact: (t) => t });
    expect(r).toEqual({
      failure: 'exec: "git": executable file not found in $PATH',
      notStarted: true,
      stdout: "",
      output: "",
    });
  });
});

describe("checkoutRef", () => {
  // Built once for the file; each test gets a copy of its own.
  let built: ReturnType<typeof build> | undefined;
  const setup = () => {
    built ??= build();
    return { ...built, repo: copyRepo(built.repo) };
  };
  const build = () => {
    const repo = createRepo({ "a/SKILL.md": "v1\n" });
    const first = repo.head();
    repo.tag("v1");
    repo.tag("annotated", "an annotated tag");
    const second = repo.commit({ "a/SKILL.md": "v2\n" });
    repo.branch("feature");
    const feature = repo.commit({ "a/SKILL.md": "feature\n" });
    repo.checkout("main");
    return { repo, first, second, feature };
  };
  const content = (dir: string) => readFileSync(join(dir, "a/SKILL.md"), "utf8");

  it("checks out the default branch, a non-default branch, tags and SHAs", async () => {
    const { repo, first, second, feature } = setup();
    const cases: [string, string, string][] = [
      ["main", second, "v2\n"],
      ["feature", feature, "feature\n"],
      ["v1", first, "v1\n"],
      ["annotated", first, "v1\n"],
      [first, first, "v1\n"],
      [first.slice(0, 10), first, "v1\n"],
      ["HEAD", second, "v2\n"],
      ["refs/heads/feature", feature, "feature\n"],
      ["origin/feature", feature, "feature\n"],
      ["main~1", first, "v1\n"],
    ];
    for (const [ref, sha, text] of cases) {
      const dir = join(tempDir(), "repo");
      expect(await checkoutRef({ url: repo.url, ref, dir, env: repo.env }), ref).toBe(sha);
      expect(content(dir), ref).toBe(text);
    }
  });

  it("fetches shallow for a branch, tag or full SHA; other refs fall back to a full clone", async () => {
    const { repo, first } = setup();
    const shallow = async (ref: string) => {
      const dir = join(tempDir(), "repo");
      await checkoutRef({ url: repo.url, ref, dir, env: repo.env });
      const out = execFileSync("git", ["rev-parse", "--is-shallow-repository"], {
        cwd: dir,
        env: repo.env,
        encoding: "utf8",
      });
      return out.trim() === "true";
    };
    expect(await shallow("main")).toBe(true);
    expect(await shallow("feature")).toBe(true);
    expect(await shallow("v1")).toBe(true);
    expect(await shallow(first)).toBe(true);
    expect(await shallow("main~1")).toBe(false);
    expect(await shallow(first.slice(0, 8))).toBe(false);
  });

  it("reports a ref that does not exist with git's own message", async () => {
    const { repo } = setup();
    const dir = join(tempDir(), "repo");
    // As `git checkout --detach nope` words it in a fresh clone (this is the Go original's error too).
    await expect(checkoutRef({ url: repo.url, ref: "nope", dir, env: repo.env })).rejects.toThrow(
      /^git checkout: exit status \d+: .*'nope'/,
    );
  });

  it("asks git for the commit when the HEAD file does not hold it (another ref storage)", async () => {
    const { repo, second } = setup();
    // A template whose post-checkout hook leaves HEAD a symlink to the file that holds the commit:
    // git still reads it, kanon's look at the file does not.
    const template = tempDir();
    mkdirSync(join(template, "hooks"));
    writeFileSync(
      join(template, "hooks/post-checkout"),
      "#!/bin/sh\nmv .git/HEAD .git/DETACHED && ln -s DETACHED .git/HEAD\n",
      { mode: 0o755 },
    );
    const dir = join(tempDir(), "repo");
    const env = { ...repo.env, GIT_TEMPLATE_DIR: template };
    expect(await checkoutRef({ url: repo.url, ref: "main", dir, env })).toBe(second);
    expect(lstatSync(join(dir, ".git/HEAD")).isSymbolicLink()).toBe(true);
  });

  it("reports a tag that names a tree, not a commit, with git's own message", async () => {
    const { repo } = setup();
    writeFileSync(join(repo.bare, "refs/tags/tree"), `${repo.git("rev-parse", "HEAD^{tree}")}\n`);
    const dir = join(tempDir(), "repo");
    await expect(checkoutRef({ url: repo.url, ref: "tree", dir, env: repo.env })).rejects.toThrow(
      /^git checkout: exit status \d+: fatal: Cannot switch branch to a non-commit 'tree'$/,
    );
  });

  it("reports an unreachable repository", async () => {
    const dir = join(tempDir(), "repo");
    const url = `file://${join(tempDir(), "missing.git")}`;
    await expect(checkoutRef({ url, ref: "main", dir, env: testEnv() })).rejects.toThrow(
      /^git clone: exit status 128: /,
    );
  });
});

describe("redaction hides credentials only", () => {
  it("leaves a URL without credentials readable", () => {
    const url = "https://example.invalid/acme/skills.git";
    const output = `fatal: repository '${url}/' not found`;
    expect(redactOutput(url, output)).toBe(output);
  });

  it("shows a URL with credentials in its redacted form", () => {
    const url = "https://carol:s3cr3t@example.invalid/repo.git";
    expect(redactOutput(url, `fatal: repository '${url}/' not found`)).toBe(
      "fatal: repository 'https://redacted@example.invalid/repo.git/' not found",
    );
  });
});
