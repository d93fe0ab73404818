/** kanon.lock's shape, shared by reading it (lock-parse.ts, loaded lazily) and writing it (lock.ts). */

export interface LockEntry {
  owner: string;
  type: string;
  url: string;
  ref: string;
  subdir: string;
  resolved_ref: string;
  content_sha256: string;
}

export interface Lock {
  version: number;
  sources: LockEntry[];
}

export const FIELDS = ["owner", "type", "url", "ref", "subdir", "resolved_ref", "content_sha256"] as const;
export const LOCK_VERSION = 1;
