/**
 * The names of kanon's temporary files: `.settings.json.kanon-<pid>-<random>.tmp` beside the file
 * that they become by a rename. The pid tells an interrupted run's litter from a running one's.
 */
import { basename, dirname, join } from "node:path";
import { randomHex } from "../model/crypto.js";

const TEMP_NAME = /^\..*\.kanon-(\d+)-[0-9a-f]{12}\.tmp$/;

/**
 * The temporary file (or, for the apply history, directory) that becomes `destination` by a rename.
 * The destination's name is shortened so that the temporary name stays within the 255-byte limit.
 */
export function tempPathFor(destination: string): string {
  const name = `.${basename(destination).slice(0, 64)}.kanon-${process.pid}-${randomHex(6)}.tmp`;
  return join(dirname(destination), name);
}

/** The pid of the kanon process a temporary file's name belongs to, or null for any other name. */
export function tempOwner(name: string): number | null {
  const m = TEMP_NAME.exec(name);
  return m ? Number(m[1]) : null;
}
