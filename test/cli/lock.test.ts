/** Git skill providers and kanon.lock through kanon's command line (the reference's cli/root_test items). */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTemp, createRepo, skillMd, type TestRepo } from "../providers/helpers.js";
import { sandboxPerTest } from "../support/cli.js";

let repo: TestRepo;
const s = sandboxPerTest((s) => {
  repo = createRepo({ "review/SKILL.md": skillMd("review", "version one") }, { name: "remote-review" });
  s.writeHome(
    `version: 1\nskills:\n  - git:\n      url: ${repo.url}\n      ref: main\n    targets: [claude]\n`,
  );
});
afterAll(cleanupTemp);

const { k } = s;
const lockFile = () => readFileSync(join(s.kh, "kanon.lock"), "utf8");
const claudeSkill = () => readFileSync(join(s.home, ".claude/skills/remote-review:review/SKILL.md"), "utf8");

describe("kanon lock", () => {
  it("warns about an unlocked mutable ref, pins it, and checks it", async () => {
    expect((await k("validate")).stderr).toBe(
      'warning: git skill provider "remote-review" ref "main" is mutable without a matching kanon.lock entry\n',
    );
    const lock = await k("lock");
    expect(lock).toMatchObject({
      status: 0,
      stdout: `Locked 1 git skill provider(s) in ${join(s.kh, "kanon.lock")}\n`,
    });
    const text = lockFile();
    expect(text).toContain("owner: skill.git.remote-review");
    expect(text).toContain(`url: ${repo.url}`);
    expect(text).toContain(`resolved_ref: ${repo.head()}`);
    expect(text).toMatch(/content_sha256: sha256:[0-9a-f]{64}/);
    expect((await k("validate")).stderr).toBe("");
    expect(await k("lock", "check")).toMatchObject({ status: 0, stdout: "kanon.lock is valid.\n" });
  });

  it("keeps the pin when the branch moves, renders the pinned content, and lock update advances it", async () => {
    await k("lock");
    const pinned = lockFile();
    repo.commit({ "review/SKILL.md": skillMd("review", "version two") });
    expect((await k("lock")).status).toBe(0);
    expect(lockFile()).toBe(pinned);
    const check = await k("lock", "check");
    expect(check.status).toBe(1);
    expect(check.stderr).toContain('git skill provider "remote-review" resolves to');
    rmSync(join(s.kh, ".kanon"), { recursive: true, force: true });
    expect((await k("apply", "--yes")).status).toBe(0);
    expect(claudeSkill()).toContain("version one");
    expect(claudeSkill()).toContain("name: remote-review:review");
    expect(await k("lock", "update", "--all")).toMatchObject({
      status: 0,
      stdout: `Updated ${join(s.kh, "kanon.lock")}\n`,
    });
    expect(lockFile()).toContain(`resolved_ref: ${repo.head()}`);
    expect((await k("lock", "check")).status).toBe(0);
    await k("apply", "--yes");
    expect(claudeSkill()).toContain("version two");
  });

  it("rejects lock update without names or with both names and --all", async () => {
    expect(await k("lock", "update")).toMatchObject({
      status: 1,
      stderr: "lock update requires a git skill provider name or --all\n",
    });
    expect(await k("lock", "update", "--all", "remote-review")).toMatchObject({
      status: 1,
      stderr: "use either lock update --all or named git skill providers, not both\n",
    });
    expect((await k("lock", "update", "missing")).stderr).toBe(
      'git skill provider "missing" not found in enabled config or kanon.lock\n',
    );
  });

  it("refuses literal credentials in the URL and writes no kanon.lock", async () => {
    writeFileSync(
      join(s.kh, "kanon.yaml"),
      `version: 1\nskills:\n  - name: private\n    git:\n      url: https://carol:s3cr3t-token@example.invalid/skills.git\n      ref: main\n`,
    );
    const r = await k("lock");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("literal credentials");
    expect(r.stderr).not.toContain("s3cr3t-token");
    expect(() => lockFile()).toThrow();
  });
});
