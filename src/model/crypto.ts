/**
 * SHA-256 and random names from node:crypto, loaded on first use rather than at start-up: a command
 * that hashes nothing (a `diff` of a home without providers) does not load it. Loading it costs
 * 12 to 18 M instructions, about 2% of a small `diff`'s 906 M (counted as BENCH_INSTRUCTIONS=1
 * counts, Node 20.20, medians of 3).
 */
import type { Hash } from "node:crypto";

const crypto = () => process.getBuiltinModule("node:crypto");

/** A SHA-256 hash to feed in parts. */
export const sha256Hasher = (): Hash => crypto().createHash("sha256");

/**
 * The SHA-256 of `data` (a string as UTF-8) in hex, by the one-shot hash (Node ≥ 20.12): an update of
 * 15,009 files hashes each before and after, and for small files it takes half the CPU of a Hash
 * object each (15,000 files of 1.5 KB: 31 ms against 72).
 */
export const sha256Hex = (data: string | Uint8Array): string => crypto().hash("sha256", data, "hex");

/** `bytes` random bytes in hex (for temporary file names and ids). */
export const randomHex = (bytes: number): string => crypto().randomBytes(bytes).toString("hex");
