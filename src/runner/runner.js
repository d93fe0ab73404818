// kanon's hook runner. It runs one hook with the neutral envelope: it turns the agent's own stdin into
// one JSON object with the same keys in every agent, runs the hook's command with it, and hands the
// reply (plain text, or {context, decision, reason}) to the agent through that agent's own channel
// for the event, cut to the hook's bound. kanon writes this file at apply time with the tables below
// filled in from its agent manifests; the agents' hook files run it as
//
//   <node> <this file> <agent> <event> <hook> --max <chars> --timeout <s> [--block] [--async]
//          (--sh <command line> | -- <command> <args...> | --builtin <handler>)
//
// It never stands in the agent's way: a command that fails, crashes, prints invalid JSON, is missing
// or runs out of time leaves one line in the log under kanon's state directory and the agent goes
// on (exit 0). Only a hook with --block blocks, with exit 2 and the reason on stderr, where the event
// can block. It imports Node built-ins only and loads nothing else, so it starts about as fast as
// node itself; the command line holds no kanon version, so an upgrade changes no hook's command.
// Speed: stdin, stdout and stderr are read and written with fs calls on their file descriptors
// (process.stdin/stdout on a pipe load Node's net and stream modules: about 25 ms on a busy 2-core
// machine), and child_process and kanon's continuity code load only when needed (figures where they load).
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// kanon:runner-begin
const AGENTS = {};
const STATE_DIR = "";
// kanon:runner-end

// kanon:continuity-begin
/** kanon's continuity code (src/continuity/builtin.ts), bundled in when kanon writes this file. */
const loadContinuity = (_require) => null;
// kanon:continuity-end
let continuity;
/**
 * The continuity code, run the first time a continuity built-in needs it: run at start-up it cost
 * every other hook 6.7 M instructions on Node 20 and 10.5 M on Node 22 (valgrind), 3-4 ms of CPU. Its
 * bundle `require`s Node's built-ins, and this ES module's `require` for them is getBuiltinModule.
 */
const CONTINUITY = () => {
  continuity ??= loadContinuity((id) => process.getBuiltinModule(id));
  return continuity;
};

const ENVELOPE_VERSION = 1;
/** The command's stdout kept (in UTF-16 units): far above any bound, below what could hurt memory. */
const STDOUT_CAP = 16 * 1024 * 1024;
const STDERR_CAP = 64 * 1024;
const KILL_GRACE_MS = 300;
const CLOSE_GRACE_MS = 100;
const LOG_CAP = 256 * 1024;
/** Context kept for the next prompt of a session that never had one is removed after a week. */
const CARRY_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
const WINDOWS = process.platform === "win32";

// ---- the command line ----------------------------------------------------------------------------

/** The runner's arguments; throws on a command line kanon did not write. */
export function parseArgs(argv) {
  const [agent, event, name, ...rest] = argv;
  if (!agent || !event || name === undefined) throw new Error("usage: <agent> <event> <hook> [options]");
  const o = { agent, event, name, max: 4800, timeout: 600, block: false, async: false };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === "--max") o.max = Number(rest[++i]);
    else if (a === "--timeout") o.timeout = Number(rest[++i]);
    else if (a === "--block") o.block = true;
    else if (a === "--async") o.async = true;
    else if (a === "--builtin") o.builtin = rest[++i];
    else if (a === "--sh") o.sh = rest[++i];
    else if (a === "--") {
      o.argv = rest.slice(i + 1);
      break;
    } else throw new Error(`unknown argument ${JSON.stringify(a)}`);
  }
  if (!(o.max >= 1) || !(o.timeout > 0)) throw new Error("--max and --timeout must be positive");
  if ([o.builtin, o.sh, o.argv].filter((x) => x !== undefined).length !== 1 || o.argv?.length === 0)
    throw new Error("one of --sh, -- <argv> or --builtin is needed");
  return o;
}

// ---- the envelope --------------------------------------------------------------------------------

const own = (p, key) =>
  key !== undefined && p !== null && typeof p === "object" && Object.hasOwn(p, key) ? p[key] : undefined;
const text = (v) => (typeof v === "string" ? v : null);

/**
 * A prompt as text: a string, or content parts (`[{type: "text", text}]`) joined by newlines, without
 * what the agent put before it (the table's promptPrefix).
 */
function promptText(value, table) {
  let prompt = null;
  if (typeof value === "string") prompt = value;
  else if (table?.promptParts && Array.isArray(value))
    prompt = value
      .filter((p) => p?.type === "text" && typeof p.text === "string")
      .map((p) => p.text)
      .join("\n");
  return prompt !== null && table?.promptPrefix ? prompt.replace(new RegExp(table.promptPrefix), "") : prompt;
}

/** The neutral envelope for one hook call: every key present, missing facts null. */
export function buildEnvelope(agent, event, native, table, cwd) {
  const f = table?.fields ?? {};
  const at = (key) => own(native, f[key]);
  const toolName = at("tool_name");
  const hasTool = f.tool_name !== undefined && toolName !== undefined;
  return {
    envelope: ENVELOPE_VERSION,
    event,
    agent,
    session_id: text(at("session_id")),
    cwd: text(at("cwd")) ?? cwd,
    transcript_path: text(at("transcript_path")),
    prompt: promptText(at("prompt"), table),
    tool: hasTool
      ? {
          name: typeof toolName === "string" ? (own(table.tools, toolName) ?? toolName) : null,
          input: at("tool_input") ?? null,
          output: at("tool_output") ?? null,
        }
      : null,
    source: text(at("source")),
    trigger: text(at("trigger")),
    reason: text(at("reason")),
    native: native === undefined ? null : native,
  };
}

// ---- the bound -----------------------------------------------------------------------------------

function codePoints(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** What the agent's ceiling counts of `s`: UTF-16 code units, or tokens of UTF-8 bytes / 4. */
function ceilingCount(s, unit) {
  return unit === "bytes/4" ? Math.ceil(Buffer.byteLength(s, "utf8") / 4) : s.length;
}

const closingLine = (cut) => `[kanon: ${cut} more characters cut]`;

/**
 * `s` cut to at most `max` code points and under the agent's `ceiling` (`{max, unit}` or null): the
 * longest prefix of whole lines that fits with one closing line saying how many characters were cut,
 * or "" when not even that line fits. Text that fits is returned as it is.
 */
export function bound(s, max, ceiling) {
  const fits = (t) => codePoints(t) <= max && (!ceiling || ceilingCount(t, ceiling.unit) <= ceiling.max);
  if (fits(s)) return s;
  const total = codePoints(s);
  // The closing line is longest when everything is cut: reserve that much, then fill whole lines.
  const reserve = closingLine(total);
  let end = 0;
  let kept = 0;
  for (;;) {
    const nl = s.indexOf("\n", end);
    if (nl < 0) break;
    const next = s.slice(0, nl + 1);
    if (!fits(next + reserve)) break;
    end = nl + 1;
    kept = codePoints(next);
  }
  const out = s.slice(0, end) + closingLine(total - kept);
  return fits(out) ? out : "";
}

// ---- running the command -------------------------------------------------------------------------

/** The runner's own deadline: before the agent's, so that the agent always gets an answer. */
export function deadlineMs(timeoutSec) {
  const ms = timeoutSec * 1000;
  return Math.max(1, ms - Math.min(1000, ms / 5));
}

function killGroup(child, signal) {
  try {
    if (WINDOWS) child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Runs the hook's command with `input` on stdin, in `cwd` with `env`; resolves with what it did, never
 * rejects.
 */
export async function runCommand(o, input, ms, { cwd, env }) {
  // Loaded here, not at the top: a built-in handler does without it. Importing it at the top cost a
  // built-in handler 3.7 M instructions on Node 20 and 6.6 M on Node 22 (valgrind; 116 M in all on
  // Node 22), 5-7 ms of CPU on a loaded 2-core machine.
  const { spawn } = await import("node:child_process");
  return new Promise((resolve) => {
    const r = { code: null, signal: null, stdout: "", stdoutTotal: 0, stderr: "", timedOut: false };
    const options = { cwd, env, stdio: ["pipe", "pipe", "pipe"], detached: !WINDOWS, windowsHide: true };
    let child;
    try {
      if (o.argv) child = spawn(o.argv[0], o.argv.slice(1), options);
      else if (WINDOWS) child = spawn(o.sh, { ...options, shell: true });
      else child = spawn("/bin/sh", ["-c", o.sh], options);
    } catch (error) {
      resolve({ ...r, error });
      return;
    }
    let done = false;
    let grace;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(grace);
      resolve(r);
    };
    const timer = setTimeout(() => {
      r.timedOut = true;
      killGroup(child, "SIGTERM");
      setTimeout(() => {
        killGroup(child, "SIGKILL");
        finish();
      }, KILL_GRACE_MS).unref();
    }, ms);
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (d) => {
      r.stdoutTotal += d.length;
      if (r.stdout.length < STDOUT_CAP) r.stdout += d;
    });
    child.stderr.on("data", (d) => {
      if (r.stderr.length < STDERR_CAP) r.stderr += d;
    });
    child.on("error", (error) => {
      r.error = error;
      finish();
    });
    child.on("exit", (code, signal) => {
      r.code = code;
      r.signal = signal;
      // A grandchild that keeps stdout open must not hold the hook past its own exit.
      grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, CLOSE_GRACE_MS);
    });
    child.on("close", finish);
    child.stdin.on("error", () => {
      // EPIPE: the command did not read its input.
    });
    child.stdin.end(input);
  });
}

/** The first key of a JSON reply that is not `context`, `decision` or `reason` as they must be. */
function replyProblem(reply) {
  if (reply === null || typeof reply !== "object" || Array.isArray(reply)) return "reply";
  const other = Object.keys(reply).find((k) => k !== "context" && k !== "decision" && k !== "reason");
  if (other !== undefined) return other;
  if (reply.context !== undefined && typeof reply.context !== "string") return "context";
  if (reply.reason !== undefined && typeof reply.reason !== "string") return "reason";
  if (reply.decision !== undefined && reply.decision !== "block" && reply.decision !== "allow")
    return "decision";
  return null;
}

/**
 * What the command said: `{context, decision, reason}`, or `{problem}` when it failed (the agent goes
 * on; the problem is logged). Plain text is context; output that starts with `{` must be one JSON
 * object with those keys.
 */
export function interpret(o, r) {
  if (r.error) return { problem: `could not start: ${r.error.code ?? r.error.message}` };
  if (r.timedOut) return { problem: `timed out after ${deadlineMs(o.timeout) / 1000} s and was stopped` };
  if (r.signal) return { problem: `was killed by ${r.signal}` };
  if (r.code === 2) {
    if (o.block) return { decision: "block", reason: r.stderr.trim() };
    return { problem: "exited 2, which blocks only with blocking: true" };
  }
  if (r.code !== 0) return { problem: `exited ${r.code}` };
  if (r.stdout.length < r.stdoutTotal) return { problem: `printed more than ${STDOUT_CAP} characters` };
  const out = r.stdout.replace(/\s+$/, "");
  if (!out.trimStart().startsWith("{")) return { context: out };
  let reply;
  try {
    reply = JSON.parse(out);
  } catch (e) {
    return { problem: `printed invalid JSON (${e.message})` };
  }
  const wrong = replyProblem(reply);
  if (wrong) return { problem: `printed a JSON reply with an invalid ${JSON.stringify(wrong)}` };
  if (reply.decision === "block" && !o.block)
    return { context: reply.context ?? "", note: "asked to block, which it does only with blocking: true" };
  return { context: reply.context ?? "", decision: reply.decision, reason: reply.reason ?? "" };
}

// ---- the log and the context kept for the next prompt --------------------------------------------

const hooksDir = () => join(STATE_DIR, "hooks");

/** One line in `<state>/hooks/runner.log`, which is rotated at 256 KiB (one old file is kept). */
function log(o, message) {
  if (!STATE_DIR) return;
  try {
    const file = join(hooksDir(), "runner.log");
    mkdirSync(hooksDir(), { recursive: true, mode: 0o700 });
    try {
      if (statSync(file).size > LOG_CAP) renameSync(file, `${file}.1`);
    } catch {
      // No log yet.
    }
    const who = o ? `${o.agent} ${o.event} ${JSON.stringify(o.name)}` : "runner";
    appendFileSync(file, `${new Date().toISOString()} ${who}: ${message}\n`, { mode: 0o600 });
  } catch {
    // Nowhere to log to: still never stand in the agent's way.
  }
}

const safeName = (s) => s.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120);

function carryFile(agent, session) {
  return join(hooksDir(), "carry", `${safeName(agent)}-${safeName(session)}.jsonl`);
}

/** Keeps context for the next prompt of the session (the `carry` built-in hands it over). */
function keep(o, envelope, context) {
  if (!envelope.session_id) {
    log(o, "context not kept for the next prompt: the agent sent no session id");
    return;
  }
  const dir = join(hooksDir(), "carry");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  prune(dir);
  const line = `${JSON.stringify({ hook: o.name, event: o.event, context })}\n`;
  appendFileSync(carryFile(o.agent, envelope.session_id), line, { mode: 0o600 });
}

/** Context kept for sessions that never prompted again goes after a week. */
function prune(dir) {
  try {
    const now = Date.now();
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      if (now - statSync(file).mtimeMs > CARRY_MAX_AGE_MS) unlinkSync(file);
    }
  } catch {
    // Another runner got there first.
  }
}

// ---- built-in handlers ---------------------------------------------------------------------------

/**
 * kanon's own handlers, run instead of a command (`--builtin <name>`): each takes the envelope and
 * returns a reply like a command's. kanon renders them as hooks named `kanon/<name>`.
 */
const BUILTINS = {
  // kanon's continuity hooks (kanon.yaml's `continuity:`): the waypoint of the project in the session's
  // working directory, read by revision, never blocking.
  /** Session start and after compaction: the bounded re-anchor block. */
  reanchor: (envelope, o) => ({ context: CONTINUITY()?.reanchorContext(facts(envelope), o.max) ?? "" }),
  /** Every prompt: the one-line position. */
  position: (envelope) => ({ context: CONTINUITY()?.positionContext(facts(envelope)) ?? "" }),
  /** Interrupt: runHook wrote .kanon/PAUSE before it read anything; this adds the agent's reason. */
  pause(envelope, o) {
    if (o.paused) CONTINUITY()?.pauseReason(o.paused, envelope.reason);
    return { context: "" };
  },
  /** Stop: advisory only; at most a reminder for the next re-anchor. */
  stop(envelope) {
    CONTINUITY()?.stopAdvisory(facts(envelope));
    return { context: "" };
  },
  /** Hands over what the session's earlier hooks kept for the next prompt, once. */
  carry(envelope, o) {
    if (!envelope.session_id) return { context: "" };
    const file = carryFile(o.agent, envelope.session_id);
    const taken = `${file}.${process.pid}.taken`;
    try {
      renameSync(file, taken);
    } catch {
      return { context: "" };
    }
    let lines = "";
    try {
      lines = readFileSync(taken, "utf8");
    } finally {
      unlinkSync(taken);
    }
    const parts = [];
    for (const line of lines.split("\n")) {
      if (line === "") continue;
      try {
        const kept = JSON.parse(line);
        if (typeof kept.context === "string" && kept.context !== "") parts.push(kept.context);
      } catch {
        // A torn line: the rest still counts.
      }
    }
    // kanon's bound for this hook counts these separators (carryHook in src/core/hooks/support.ts).
    return { context: parts.join("\n\n") };
  },
};

const facts = (envelope) => ({ cwd: envelope.cwd, agent: envelope.agent, session: envelope.session_id });

// ---- the reply -----------------------------------------------------------------------------------

/**
 * What the runner prints and its exit status for a reply, per the agent's table for the event:
 * `{stdout, stderr, code, notes}`.
 */
export function deliver(o, table, envelope, reply, keepContext = keep) {
  const ev = table && Object.hasOwn(table.events, o.event) ? table.events[o.event] : undefined;
  const out = { stdout: "", stderr: "", code: 0, notes: [] };
  if (reply.note) out.notes.push(reply.note);
  if (reply.decision === "block") {
    if (ev?.block) {
      out.stderr = `${reply.reason || reply.context || `Blocked by kanon hook ${JSON.stringify(o.name)}.`}\n`;
      out.code = 2;
      return out;
    }
    out.notes.push(`asked to block, which ${o.agent} cannot do at ${o.event}`);
  }
  if (!reply.context) return out;
  let how = ev?.context ?? null;
  // The agent does not wait for an async hook: its context can only be carried.
  if (o.async) how = table?.carry ? "carry" : null;
  if (how === null) {
    out.notes.push(`context not delivered: ${o.agent} takes no context at ${o.event}`);
    return out;
  }
  const ceiling = how === "carry" && table.carry === "runner" ? null : (ev?.ceiling ?? null);
  // Where kanon raised the agent's limit to the hook's bound (Codex's additionalContextLimit).
  const limit = ceiling?.raise && o.max > ceiling.max ? { ...ceiling, max: o.max } : ceiling;
  const context = bound(reply.context, o.max, limit);
  if (context !== reply.context)
    out.notes.push(`context cut from ${codePoints(reply.context)} to ${codePoints(context)} characters`);
  if (context === "") return out;
  if (how === "additionalContext")
    out.stdout = JSON.stringify({
      hookSpecificOutput: { hookEventName: ev.native, additionalContext: context },
    });
  else if (how === "stdout") out.stdout = context;
  else if (how === "plugin" || table.carry === "plugin") out.stdout = JSON.stringify({ context });
  else keepContext(o, envelope, context);
  return out;
}

// ---- main ----------------------------------------------------------------------------------------

/** The agent's stdin, read to its end (every agent writes the payload and closes it). */
function readStdin() {
  try {
    return readFileSync(0, "utf8");
  } catch {
    // No stdin, or one that cannot be read synchronously: the envelope then has no native facts.
    return "";
  }
}

/** Writes all of `text` to a file descriptor (a pipe may take it in parts). */
function writeAll(fd, text) {
  const bytes = Buffer.from(text, "utf8");
  let at = 0;
  while (at < bytes.length) {
    try {
      at += writeSync(fd, bytes, at);
    } catch (e) {
      if (e?.code !== "EAGAIN") return;
    }
  }
}

/**
 * One call of the runner, as an agent makes it: its arguments, the agent's stdin (read once, when
 * the runner needs it), the working directory and environment it runs in. What to print, and the exit
 * status. The file run by node (below) calls it with its own process's; the tests call it in theirs.
 */
export async function runHook({ argv, readInput, cwd, env }) {
  let o;
  try {
    o = parseArgs(argv);
  } catch (e) {
    log(undefined, `ignored a call it cannot read: ${e.message}`);
    return { stdout: "", stderr: "", code: 0 };
  }
  // The operator's intent to pause is recorded before anything else is read or parsed.
  if (o.builtin === "pause") o.paused = CONTINUITY()?.pauseFirst(cwd, o.agent) ?? null;
  const table = Object.hasOwn(AGENTS, o.agent) ? AGENTS[o.agent] : undefined;
  if (!table) log(o, `unknown agent ${JSON.stringify(o.agent)}: the envelope has no native facts`);
  const raw = readInput();
  let native = null;
  try {
    native = raw.trim() === "" ? null : JSON.parse(raw);
  } catch {
    log(o, "the agent's stdin is not JSON");
  }
  const envelope = buildEnvelope(o.agent, o.event, native, table, cwd);
  let reply;
  if (o.builtin !== undefined) {
    const handler = Object.hasOwn(BUILTINS, o.builtin) ? BUILTINS[o.builtin] : undefined;
    reply = handler
      ? await handler(envelope, o)
      : { problem: `unknown built-in ${JSON.stringify(o.builtin)}` };
  } else {
    // Who runs the command: `kanon waypoint set` records them as the waypoint's writer.
    const who = {
      KANON_AGENT: o.agent,
      ...(envelope.session_id ? { KANON_SESSION_ID: envelope.session_id } : {}),
    };
    const input = `${JSON.stringify(envelope)}\n`;
    reply = interpret(o, await runCommand(o, input, deadlineMs(o.timeout), { cwd, env: { ...env, ...who } }));
  }
  if (reply.problem) {
    log(o, reply.problem);
    return { stdout: "", stderr: "", code: 0 };
  }
  const out = deliver(o, table, envelope, reply);
  for (const note of out.notes) log(o, note);
  return out;
}

function isMain() {
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  runHook({ argv: process.argv.slice(2), readInput: readStdin, cwd: process.cwd(), env: process.env })
    .catch((e) => {
      log(undefined, `failed: ${e?.message ?? String(e)}`);
      return { stdout: "", stderr: "", code: 0 };
    })
    .then((out) => {
      writeAll(2, out.stderr);
      writeAll(1, out.stdout);
      process.exit(out.code);
    });
}
