/** OS errors worded like the Go original's (`stat <path>: no such file or directory`), which scripts match on. */
const TEXT: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  ELOOP: "too many levels of symbolic links",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device",
};

export function osErrorText(e: unknown): string {
  const err = e as NodeJS.ErrnoException & { reason?: string };
  // A file model/bounded-read.ts refused: why (the caller names the path).
  if (typeof err.reason === "string") return err.reason;
  return (err.code && TEXT[err.code]) || err.message;
}

export function statError(path: string, e: unknown): string {
  return `stat ${path}: ${osErrorText(e)}`;
}
