/**
 * The machine's secret store: the values kanon.yaml names as `${secret:NAME}`, kept per machine in
 * the state directory beside the ownership records (never in the Kanon home, so never pushed), in one
 * private file:
 *
 *   $XDG_STATE_HOME/kanon/secrets.json   {"version": 1, "secrets": {NAME: value}}   mode 0600, folder 0700
 *
 * Written atomically (a temporary file beside it, created 0600, then renamed). A store that is
 * group- or world-readable is made private again with a warning the next time kanon writes it.
 */
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { isPlainObject } from "../formats/values.js";
import { READ_LIMIT, ReadRefused, readBounded } from "../model/bounded-read.js";
import { osErrorText } from "../model/fs-errors.js";
import { KanonError } from "../model/types.js";
import { stateBase } from "./state.js";
import { tempPathFor } from "./temp-name.js";

const STORE_VERSION = 1;

/** A secret name: what `${secret:NAME}` may name (an environment variable's shape). */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface SecretStore {
  path: string;
  secrets: Record<string, string>;
  /** Said once per run when the file is readable by others. */
  warnings: string[];
}

export function secretStorePath(env: NodeJS.ProcessEnv, userHome: string): string {
  return join(stateBase(env, userHome), "secrets.json");
}

export function checkSecretName(name: string): void {
  if (!SECRET_NAME.test(name))
    throw new KanonError(
      `secret name ${JSON.stringify(name)} is not valid: use letters, digits and _ (not first a digit), e.g. GITHUB_TOKEN`,
    );
}

/** The store at `path`; empty when there is none yet. A file kanon cannot read is an error naming it. */
export function readSecretStore(path: string): SecretStore {
  let text: string;
  let mode: number;
  try {
    const file = readBounded(path, { limit: READ_LIMIT.state });
    mode = file.mode;
    text = file.bytes.toString("utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { path, secrets: {}, warnings: [] };
    if (e instanceof ReadRefused) throw e;
    throw new KanonError(`read ${path}: ${osErrorText(e)}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = null;
  }
  if (!isPlainObject(doc) || doc.version !== STORE_VERSION || !isPlainObject(doc.secrets))
    throw new KanonError(
      `${path} is not a kanon secret store (version ${STORE_VERSION}); move it away to start a new one`,
    );
  const secrets: Record<string, string> = {};
  for (const [name, value] of Object.entries(doc.secrets))
    if (typeof value === "string" && SECRET_NAME.test(name)) secrets[name] = value;
  const warnings =
    (mode & 0o077) !== 0
      ? [
          `${path} is readable by other users (mode 0${mode.toString(8)}); chmod 600 it (kanon does so the next time it writes it)`,
        ]
      : [];
  return { path, secrets, warnings };
}

/** Adds `secrets` to the store at `path`; says so in one line (null when there were none). */
export function addSecrets(path: string, secrets: Readonly<Record<string, string>>): string | null {
  if (Object.keys(secrets).length === 0) return null;
  const store = readSecretStore(path);
  writeSecretStore(path, { ...store.secrets, ...secrets });
  return `Stored ${Object.keys(secrets).length} secret(s) in ${path} (kanon secret list names them).`;
}

/** Writes the store: 0600 in a 0700 folder, all or nothing. */
export function writeSecretStore(path: string, secrets: Record<string, string>): void {
  const dir = join(path, "..");
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new KanonError(`cannot create ${dir}: ${osErrorText(e)}`);
  }
  const sorted = Object.fromEntries(
    Object.keys(secrets)
      .sort()
      .map((k) => [k, secrets[k]!]),
  );
  const bytes = Buffer.from(`${JSON.stringify({ version: STORE_VERSION, secrets: sorted }, null, 2)}\n`);
  const temp = tempPathFor(path);
  try {
    const fd = openSync(temp, "wx", 0o600);
    try {
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // The umask cannot widen 0600, but a file created by another tool might be wider: be sure.
    chmodSync(temp, 0o600);
    renameSync(temp, path);
  } catch (e) {
    rmSync(temp, { force: true });
    throw new KanonError(`cannot write ${path}: ${osErrorText(e)}`);
  }
}
