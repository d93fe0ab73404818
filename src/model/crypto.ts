/**
 * SHA-256 and random names from node:crypto, loaded on first use rather than at start-up: a command
 * that hashes nothing (a `diff` of a home without providers) does not load it. Loading it costs
 * about 10% of `node -e 0`'s instructions (valgrind, Node 20.20).
 */
import type { Hash } from "node:crypto";

const crypto = () => process.getBuiltinModule("node:crypto");

/** A SHA-256 hash to feed in parts. */
export const sha256Hasher = (): Hash => crypto().createHash("sha256");

/** The SHA-256 of `data` (a string as UTF-8) in hex. */
export const sha256Hex = (data: string | Uint8Array): string => sha256Hasher().update(data).digest("hex");

/** `bytes` random bytes in hex (for temporary file names and ids). */
export const randomHex = (bytes: number): string => crypto().randomBytes(bytes).toString("hex");
