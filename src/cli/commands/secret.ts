/**
 * `kanon secret set|list|rm`: the values kanon.yaml names as `${secret:NAME}`, kept on this machine
 * only (destination/secrets.ts). A value is read from stdin or a prompt that does not echo it, and is
 * never printed: `list` gives names only.
 */
import {
  checkSecretName,
  readSecretStore,
  secretStorePath,
  writeSecretStore,
} from "../../destination/secrets.js";
import { KanonError } from "../../model/types.js";
import { err, type Io, out, warn } from "../context.js";

const storeOf = (io: Io) => {
  const store = readSecretStore(secretStorePath(io.env, io.userHome));
  warn(io, store.warnings);
  return store;
};

export async function secretSetCommand(name: string, io: Io): Promise<void> {
  checkSecretName(name);
  const store = storeOf(io);
  const value =
    io.stdin.isTTY === true
      ? await hiddenPrompt(io, `Value for ${name} (not shown): `)
      : await readAll(io.stdin);
  // One final newline is the end of what was typed or piped (`echo "$T" | kanon secret set T`).
  const secret = value.replace(/\r?\n$/, "");
  if (secret === "") throw new KanonError(`no value given for secret ${name}; nothing was stored`);
  const replaced = Object.hasOwn(store.secrets, name);
  writeSecretStore(store.path, { ...store.secrets, [name]: secret });
  out(
    io,
    `${replaced ? "Replaced" : "Stored"} secret ${name} in ${store.path} (kanon.yaml refers to it as \${secret:${name}}).\n`,
  );
}

export async function secretListCommand(io: Io): Promise<void> {
  const store = storeOf(io);
  const names = Object.keys(store.secrets).sort();
  if (names.length === 0) {
    out(io, `No secrets stored on this machine (kanon secret set NAME adds one to ${store.path}).\n`);
    return;
  }
  out(io, `${names.join("\n")}\n`);
}

export async function secretRmCommand(name: string, io: Io): Promise<void> {
  checkSecretName(name);
  const store = storeOf(io);
  if (!Object.hasOwn(store.secrets, name))
    throw new KanonError(`no secret ${name} on this machine (kanon secret list names them)`);
  const { [name]: _, ...rest } = store.secrets;
  writeSecretStore(store.path, rest);
  out(io, `Removed secret ${name} from ${store.path}.\n`);
}

/** All of stdin (a pipe or a file). */
function readAll(stdin: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    stdin.setEncoding("utf8");
    stdin.on("data", (chunk: string) => {
      text += chunk;
    });
    stdin.on("end", () => resolve(text));
    stdin.on("error", reject);
    stdin.resume();
  });
}

/** One line typed on the terminal with echo off; ctrl+c or ctrl+d stores nothing. */
function hiddenPrompt(io: Io, question: string): Promise<string> {
  const stdin = io.stdin;
  // Echo goes off before the question shows: what is typed (or pasted) right after it never echoes.
  stdin.setRawMode?.(true);
  err(io, question);
  return new Promise((resolve, reject) => {
    let value = "";
    const done = (error?: KanonError) => {
      stdin.off("data", onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      err(io, "\n");
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003" || ch === "\u0004") return done(new KanonError("cancelled; nothing was stored"));
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else if (ch >= " ") value += ch;
      }
    };
    stdin.on("data", onData);
    stdin.resume();
  });
}
