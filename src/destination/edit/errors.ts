/** The one-line errors a co-owned merge can end with; the destination file is never written then. */
import { KanonError } from "../../model/types.js";

export function cannotParse(path: string, detail: string): KanonError {
  return new KanonError(`cannot parse ${path} for merge: ${detail}`);
}

export function notAnObject(path: string, key: string): KanonError {
  return new KanonError(`cannot merge ${path}: ${key} is not an object`);
}

export function topLevelNotObject(path: string): KanonError {
  return new KanonError(`cannot merge ${path}: top level is not an object`);
}

/** A merge whose result kanon must not write (it could not read it back). */
export function cannotWrite(path: string, detail: string): KanonError {
  return new KanonError(`cannot write ${path}: ${detail}`);
}

export function cannotEdit(path: string, detail: string): KanonError {
  return new KanonError(`cannot merge ${path}: ${detail}`);
}

/**
 * Defence in depth: the edited text must parse back to exactly the intended document. A mismatch
 * is a bug in the editor; failing beats writing a subtly wrong config.
 */
export function verified(result: string, path: string, holdsIntended: () => boolean): string {
  let ok = false;
  try {
    ok = holdsIntended();
  } catch {
    ok = false;
  }
  if (!ok)
    throw cannotEdit(
      path,
      "the edited text would not hold the intended settings (a kanon bug; please report it)",
    );
  return result;
}
