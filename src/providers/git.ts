/**
 * The only module that runs `git` (spawnGit; the Kanon home's sync commands use it too). For provider
 * repositories (runGit): no shell is involved; a URL or ref always comes after `--` or is checked
 * first so that git cannot read it as an option; prompts are off (a missing credential fails instead
 * of hanging); the `ext::` transport, which runs commands, is refused. Everything git prints is
 * redacted before it reaches an error message: credentials in a URL never appear in output.
 */
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { readBounded } from "../model/bounded-read.js";
import { isImmutableRef, queryAndFragment, queryValues, rawUserinfo } from "./source.js";

/** Variables that would point git at some other repository (e.g. when kanon runs inside a git hook). */
const REPOSITORY_ENV = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
  "GIT_IMPLICIT_WORK_TREE",
  "GIT_GRAFT_FILE",
  "GIT_SHALLOW_FILE",
  "GIT_NO_REPLACE_OBJECTS",
  "GIT_REPLACE_REF_BASE",
];

/** Go's url.QueryEscape: everything but [A-Za-z0-9-_.~] percent-encoded, space as `+`. */
function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll("%20", "+");
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const replaceAll = (text: string, secret: string, by = "redacted"): string =>
  secret === "" ? text : text.split(secret).join(by);

/**
 * Remove the secrets of `url` from git output: the whole URL becomes its redacted form, then the
 * userinfo (whole, the password and the user name, raw and percent-decoded), the raw query, each
 * query value (raw and query-escaped) and the fragment. Only credentials are hidden: a URL without
 * any stays readable, and the conventional SSH user `git` is not a secret (replacing it would mangle
 * every mention of git in the output).
 */
export function redactOutput(url: string, output: string): string {
  const shown = redactUrl(url);
  if (shown === url) return output;
  let out = replaceAll(output, url, shown);
  const userinfo = rawUserinfo(url);
  if (userinfo !== null && userinfo !== "" && userinfo !== "git") {
    const colon = userinfo.indexOf(":");
    const user = colon >= 0 ? userinfo.slice(0, colon) : userinfo;
    const password = colon >= 0 ? userinfo.slice(colon + 1) : "";
    for (const secret of [userinfo, password, user]) {
      out = replaceAll(out, secret);
      out = replaceAll(out, safeDecode(secret));
    }
  }
  const { query, fragment } = queryAndFragment(url);
  if (query) {
    out = replaceAll(out, query);
    for (const value of queryValues(query)) {
      if (value === "") continue;
      out = replaceAll(out, value);
      out = replaceAll(out, queryEscape(value));
    }
  }
  if (fragment) {
    out = replaceAll(out, fragment);
    out = replaceAll(out, safeDecode(fragment));
  }
  return out;
}

/** The URL with its user, password, query values and fragment replaced by `redacted`, for display. */
export function redactUrl(url: string): string {
  let out = url;
  const userinfo = rawUserinfo(url);
  if (userinfo !== null && userinfo !== "" && userinfo !== "git") {
    const scheme = url.indexOf("://");
    const at = scheme >= 0 ? scheme + 3 : 2;
    out = `${url.slice(0, at)}redacted${url.slice(at + userinfo.length)}`;
  }
  const hash = out.indexOf("#");
  if (hash >= 0) out = `${out.slice(0, hash + 1)}redacted`;
  const q = out.indexOf("?");
  if (q >= 0) {
    const end = out.indexOf("#", q);
    const query = out.slice(q + 1, end >= 0 ? end : undefined);
    const redacted = query
      .split("&")
      .map((pair) => {
        const eq = pair.indexOf("=");
        return eq >= 0 && eq < pair.length - 1 ? `${pair.slice(0, eq + 1)}redacted` : pair;
      })
      .join("&");
    out = `${out.slice(0, q + 1)}${redacted}${end >= 0 ? out.slice(end) : ""}`;
  }
  return out;
}

/** A failed git command: `git <verb>: <exit status>: <redacted output>`. */
export class GitError extends Error {
  override name = "GitError";
}

export interface GitRun {
  /** The expanded URL whose secrets are redacted from any output. */
  url: string;
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

/** The environment without variables that would make git work on some other repository than asked. */
export function withoutRepositoryEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of REPOSITORY_ENV) delete out[name];
  return out;
}

function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...withoutRepositoryEnv(env), GIT_TERMINAL_PROMPT: "0", GCM_INTERACTIVE: "never" };
}

export interface GitProcess {
  cwd?: string;
  /** The environment git runs with, as the caller prepared it. */
  env: NodeJS.ProcessEnv;
  /** Hides secrets in what git prints (applied to whole lines). */
  redact(text: string): string;
  /** Each piece of git's redacted output as it comes (progress lines end in \r and come as they are). */
  onOutput?(text: string, stream: "stdout" | "stderr"): void;
}

export interface GitExit {
  /** null when git succeeded; else `exit status N`, `signal: SIG…`, or why git could not start. */
  failure: string | null;
  /** git could not be started at all (then stdout and output are empty). */
  notStarted: boolean;
  /** Standard output as printed (not redacted: callers parse it). */
  stdout: string;
  /** Everything git printed (stdout and stderr as they came), redacted. */
  output: string;
}

/** Runs `git <args>` (no shell) and collects what it prints; never rejects. */
export function spawnGit(args: readonly string[], p: GitProcess): Promise<GitExit> {
  return new Promise((resolve) => {
    const child = spawn("git", [...args], {
      cwd: p.cwd,
      env: p.env,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
    const stdout: Buffer[] = [];
    const combined: string[] = [];
    // Redaction works on whole lines (a secret split across two chunks must still be found), and a
    // character split across two chunks is decoded whole.
    const forward = (stream: "stdout" | "stderr") => {
      const decoder = new StringDecoder("utf8");
      let pending = "";
      const emit = (text: string) => {
        const shown = p.redact(text);
        combined.push(shown);
        p.onOutput?.(shown, stream);
      };
      return {
        data(chunk: Buffer) {
          pending += decoder.write(chunk);
          const cut = Math.max(pending.lastIndexOf("\n"), pending.lastIndexOf("\r")) + 1;
          if (cut === 0) return;
          emit(pending.slice(0, cut));
          pending = pending.slice(cut);
        },
        end() {
          pending += decoder.end();
          if (pending) emit(pending);
          pending = "";
        },
      };
    };
    const out = forward("stdout");
    const err = forward("stderr");
    child.stdout.on("data", (b: Buffer) => {
      stdout.push(b);
      out.data(b);
    });
    child.stderr.on("data", (b: Buffer) => err.data(b));
    child.on("error", (e: NodeJS.ErrnoException) => {
      const why = e.code === "ENOENT" ? 'exec: "git": executable file not found in $PATH' : e.message;
      resolve({ failure: why, notStarted: true, stdout: "", output: "" });
    });
    child.on("close", (code, signal) => {
      out.end();
      err.end();
      resolve({
        failure: code === 0 ? null : signal ? `signal: ${signal}` : `exit status ${code}`,
        notStarted: false,
        stdout: Buffer.concat(stdout).toString("utf8"),
        output: combined.join(""),
      });
    });
  });
}

/** Run `git <args>` and return its standard output; a failure is a GitError with redacted output. */
export async function runGit(args: readonly string[], run: GitRun): Promise<string> {
  const verb = args[0] ?? "command";
  const r = await spawnGit(["-c", "protocol.ext.allow=never", ...args], {
    cwd: run.cwd,
    env: gitEnv(run.env),
    redact: (text) => redactOutput(run.url, text),
  });
  if (r.failure === null) return r.stdout;
  if (r.notStarted) throw new GitError(`git ${verb}: ${r.failure}`);
  const output = r.output.trim();
  throw new GitError(output ? `git ${verb}: ${r.failure}: ${output}` : `git ${verb}: ${r.failure}`);
}

/** Refs worth trying with a shallow fetch: names git would also accept as a fetch source. */
const SIMPLE_REF = /^[A-Za-z0-9_][A-Za-z0-9._/-]*$/;

function fastPathRef(ref: string): boolean {
  if (isImmutableRef(ref)) return true;
  return (
    SIMPLE_REF.test(ref) &&
    !ref.includes("..") &&
    !ref.includes("//") &&
    !ref.endsWith("/") &&
    !ref.endsWith(".lock")
  );
}

export interface CheckoutOptions {
  url: string;
  ref: string;
  /** Directory to create the repository in (must not exist). */
  dir: string;
  env: NodeJS.ProcessEnv;
}

/**
 * The commit a fresh repository's detached HEAD is at: the HEAD file, which holds it (a process less
 * per provider fetch than `git rev-parse HEAD`: ~80 of the test suite's 1,577 git processes); git
 * itself when the file holds anything else (another ref storage).
 */
async function detachedHead(run: GitRun & { cwd: string }): Promise<string> {
  let text = "";
  try {
    text = readBounded(join(run.cwd, ".git", "HEAD"), { limit: 256, noFollow: true }).bytes.toString("utf8");
  } catch {
    // not a file that can be read: git will know
  }
  if (/^(?:[0-9a-f]{40}|[0-9a-f]{64})\n$/.test(text)) return text.trim();
  return (await runGit(["rev-parse", "--verify", "HEAD"], run)).trim();
}

/**
 * Put a working tree of `ref` (branch, tag, full or abbreviated SHA, anything `git checkout` takes) of
 * `url` into `dir`, detached, and return the commit SHA.
 *
 * First a shallow fetch of just that ref (`git fetch --depth=1 -- <url> <ref>`): git matches the name
 * against the remote's refs with the same precedence as `git checkout` (tags, then branches), and a full
 * SHA is fetched directly. If that fails (an abbreviated SHA, `origin/x`, a server that refuses), a full
 * clone follows, where the ref is resolved locally, then as `origin/<ref>` (so non-default branches
 * work, unlike the Go original), and otherwise `git checkout` reports the error.
 */
export async function checkoutRef(opts: CheckoutOptions): Promise<string> {
  const run: GitRun = { url: opts.url, env: opts.env };
  const inRepo = { ...run, cwd: opts.dir };
  if (fastPathRef(opts.ref)) {
    try {
      await runGit(["init", "--quiet", "--", opts.dir], run);
      await runGit(["fetch", "--quiet", "--depth=1", "--no-tags", "--", opts.url, opts.ref], inRepo);
      // The commit the ref names (an annotated tag peeled); anything else fails here as in rev-parse.
      await runGit(["checkout", "--quiet", "--detach", "FETCH_HEAD^{commit}"], inRepo);
      return await detachedHead(inRepo);
    } catch {
      await rm(opts.dir, { recursive: true, force: true });
    }
  }
  await runGit(["clone", "--quiet", "--no-checkout", "--", opts.url, opts.dir], run);
  let sha = "";
  for (const candidate of [`${opts.ref}^{commit}`, `refs/remotes/origin/${opts.ref}^{commit}`]) {
    try {
      sha = (await runGit(["rev-parse", "--verify", "--quiet", candidate], inRepo)).trim();
      break;
    } catch {
      // try the next spelling
    }
  }
  if (sha === "") {
    // Let git explain (e.g. "pathspec 'x' did not match any file(s) known to git").
    await runGit(["checkout", "--quiet", "--detach", opts.ref], inRepo);
    sha = await detachedHead(inRepo);
  } else {
    await runGit(["checkout", "--quiet", "--detach", sha], inRepo);
  }
  return sha;
}
