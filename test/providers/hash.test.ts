import { createHash } from "node:crypto";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { hashProvider, hashSkillFiles } from "../../src/providers/hash.js";
import { readProviderTree } from "../../src/providers/provider-tree.js";
import { cleanupTemp, tempDir, writeFiles } from "./helpers.js";

afterAll(cleanupTemp);

const bytes = (s: string) => Buffer.from(s, "utf8");

/**
 * The tiny tree below, hashed by hand: each field is an 8-byte big-endian length and the bytes, e.g.
 *   a:        00…08 "SKILL.md" 00…03 "hi\n"
 *   b:        00…08 "SKILL.md" 00…10 "---\nname: b\n---\n" 00…07 "x/y.txt" 00…01 "z"
 *   provider: 00…01 "a" 00…47 "sha256:<a>" 00…01 "b" 00…47 "sha256:<b>"
 * (computed with printf | sha256sum, and identical to the Go original's hash of the same tree).
 */
const TINY = {
  "a/SKILL.md": "hi\n",
  "b/SKILL.md": "---\nname: b\n---\n",
  "b/x/y.txt": "z",
  "README.md": "top-level files are not hashed",
  ".hidden/f": "dot entries are not hashed",
};
const TINY_A = "sha256:ab29c1f6cc12f0a0d01c25c3f63440c082ae8280806f7589ddb72619b5786fbe";
const TINY_B = "sha256:155b8b34538f5ac2ba6347513c6c072123b457dd2cb6734cd7fa957f6ba1ff0e";
const TINY_PROVIDER = "sha256:e945ad0e21240639154ca14a0ad8beb811646c192d84deaa69e22d898b33466a";

describe("content hash", () => {
  it("matches the hand-computed hash of a tiny skill", () => {
    expect(hashSkillFiles([{ rel: "SKILL.md", content: bytes("hi\n") }])).toBe(TINY_A);
    expect(
      hashSkillFiles([
        { rel: "SKILL.md", content: bytes("---\nname: b\n---\n") },
        { rel: "x/y.txt", content: bytes("z") },
      ]),
    ).toBe(TINY_B);
  });

  it("frames each field with an 8-byte big-endian length", () => {
    const manual = createHash("sha256");
    for (const field of ["SKILL.md", "hi\n"]) {
      const length = Buffer.alloc(8);
      length.writeBigUInt64BE(BigInt(Buffer.byteLength(field)));
      manual.update(length).update(field);
    }
    expect(TINY_A).toBe(`sha256:${manual.digest("hex")}`);
  });

  it("hashes a provider from its children's hashes in name order", () => {
    const a = { name: "a", files: [{ rel: "SKILL.md", content: bytes("hi\n") }] };
    const b = {
      name: "b",
      files: [
        { rel: "SKILL.md", content: bytes("---\nname: b\n---\n") },
        { rel: "x/y.txt", content: bytes("z") },
      ],
    };
    expect(hashProvider([a, b])).toBe(TINY_PROVIDER);
    expect(hashProvider([b, a])).toBe(TINY_PROVIDER);
  });

  it("reads the same hash from disk, ignoring top-level files and dot entries", async () => {
    const root = tempDir();
    writeFiles(root, TINY);
    const tree = await readProviderTree("tiny", root);
    expect(tree.children.map((c) => c.name)).toEqual(["a", "b"]);
    expect(tree.hash).toBe(TINY_PROVIDER);
  });

  it("does not hash modes or empty directories", async () => {
    const root = tempDir();
    writeFiles(root, TINY);
    const { chmodSync, mkdirSync } = await import("node:fs");
    chmodSync(`${root}/b/x/y.txt`, 0o755);
    mkdirSync(`${root}/a/empty`);
    expect((await readProviderTree("tiny", root)).hash).toBe(TINY_PROVIDER);
  });

  it("tells {a: \\0b\\0} from {a: '', b: ''} (the framing)", () => {
    const first = hashSkillFiles([
      { rel: "SKILL.md", content: bytes("---\nname: hash\n---\n") },
      { rel: "a", content: new Uint8Array([0, 98, 0]) },
    ]);
    const second = hashSkillFiles([
      { rel: "SKILL.md", content: bytes("---\nname: hash\n---\n") },
      { rel: "a", content: new Uint8Array() },
      { rel: "b", content: new Uint8Array() },
    ]);
    expect(first).not.toBe(second);
  });

  it("is injective over (path, content) lists (no two framings collide)", () => {
    const file = fc.record({
      rel: fc.string({ minLength: 1, maxLength: 4 }),
      content: fc.uint8Array({ maxLength: 4 }),
    });
    fc.assert(
      fc.property(fc.array(file, { maxLength: 3 }), fc.array(file, { maxLength: 3 }), (x, y) => {
        const key = (files: typeof x) => JSON.stringify(files.map((f) => [f.rel, [...f.content]]));
        fc.pre(key(x) !== key(y));
        expect(hashSkillFiles(x)).not.toBe(hashSkillFiles(y));
      }),
    );
  });
});
