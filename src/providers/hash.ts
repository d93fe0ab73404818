/**
 * `content_sha256` (reference §3.4), computed exactly as the Go original does so that kanon.lock files it
 * wrote verify unchanged. Every field is framed as an 8-byte big-endian length followed by its bytes.
 *
 * - A skill: sha256 over (relative path with `/`, file bytes) for each regular file in lexical walk
 *   order, `.git` directories skipped. Directories and modes are not hashed.
 * - A provider: sha256 over (child name, child hash string) for each child in name order.
 *
 * Both are written `sha256:<hex>`.
 */
import type { Hash } from "node:crypto";
import { sha256Hasher } from "../model/crypto.js";
import { compareBytes } from "../model/text.js";

function field(hash: Hash, bytes: Uint8Array): void {
  const length = Buffer.alloc(8);
  length.writeBigUInt64BE(BigInt(bytes.length));
  hash.update(length);
  hash.update(bytes);
}

export interface HashedFile {
  /** Path relative to the skill directory, `/`-separated. */
  rel: string;
  content: Uint8Array;
}

/** The hash of one skill directory, given its files in lexical walk order (as readTree returns them). */
export function hashSkillFiles(files: readonly HashedFile[]): string {
  const hash = sha256Hasher();
  for (const file of files) {
    field(hash, Buffer.from(file.rel, "utf8"));
    field(hash, file.content);
  }
  return `sha256:${hash.digest("hex")}`;
}

/** The hash of a provider from its skill children (sorted by name here). */
export function hashProvider(children: readonly { name: string; files: readonly HashedFile[] }[]): string {
  const hash = sha256Hasher();
  for (const child of [...children].sort((a, b) => compareBytes(a.name, b.name))) {
    field(hash, Buffer.from(child.name, "utf8"));
    field(hash, Buffer.from(hashSkillFiles(child.files), "utf8"));
  }
  return `sha256:${hash.digest("hex")}`;
}
