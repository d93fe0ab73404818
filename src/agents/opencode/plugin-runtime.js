// The runtime of kanon's OpenCode plugin. One file loads on both major versions:
//   OpenCode 1 reads `server` from the default export and calls it for each project directory;
//   OpenCode 2 reads `setup` and calls it with a context that registers hooks (ctx.tool.hook,
//   ctx.session.hook, ctx.event.subscribe). OpenCode 1.18 also calls `setup`, with a reduced context:
//   the guards below make that a no-op, so hooks are never registered twice.
// Both entry points feed one dispatch function and the HOOKS table. Hook commands are data only;
// they run as child processes, never as code in OpenCode. Only Node built-ins are imported.
// Contract (stdin JSON, exit 2, timeouts): see the OpenCode section of kanon's README.
// kanon:neutral-begin
// Hooks with the neutral envelope run kanon's hook runner, which answers {"context": ...}: the
// plugin puts that text into the system prompt of the session's next requests (OpenCode 1:
// experimental.chat.system.transform; OpenCode 2: ctx.session.hook("context")).
// kanon:neutral-end
import { spawn } from "node:child_process";

// kanon:hooks-begin
const HOOKS = [];
const TOOL_NAMES = {};
// kanon:hooks-end

const PLUGIN_ID = "kanon-hooks";
const DEFAULT_TIMEOUT_SEC = 600;
const MAX_TIMEOUT_MS = 2147483647;
const KILL_GRACE_MS = 2000;
const CLOSE_GRACE_MS = 200;
const OUTPUT_CAP = 1048576;
const WINDOWS = process.platform === "win32";
const NONE = [];

function log(message) {
  try {
    process.stderr.write(`[kanon-hooks] ${message}\n`);
  } catch {
    // Nowhere left to report to.
  }
}

function firstLine(text) {
  const t = String(text ?? "").trim();
  const line = t.split("\n", 1)[0] ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}\u2026` : line;
}

// ---- the table, indexed once at load -------------------------------------------------------------

const NEUTRAL_NAMES = new Map(Object.entries(TOOL_NAMES));

function compileMatcher(hook) {
  const m = hook.matcher;
  if (m === null || m === undefined) return null;
  if (Array.isArray(m.names)) {
    const names = new Set(m.names);
    return (value) => value !== undefined && names.has(value);
  }
  if (typeof m.regex === "string") {
    const re = new RegExp(m.regex);
    return (value) => {
      if (value === undefined) return false;
      if (re.test(value)) return true;
      for (const name of NEUTRAL_NAMES.get(value) ?? NONE) if (re.test(name)) return true;
      return false;
    };
  }
  return () => false;
}

function indexHooks(hooks) {
  const byEvent = new Map();
  for (const hook of hooks) {
    let test;
    try {
      test = compileMatcher(hook);
    } catch (e) {
      log(`hook "${hook.name}" is disabled: its matcher is not a valid regular expression (${e.message})`);
      continue;
    }
    const list = byEvent.get(hook.event) ?? [];
    list.push({ hook, test });
    byEvent.set(hook.event, list);
  }
  return byEvent;
}

const BY_EVENT = indexHooks(HOOKS);
const has = (event) => BY_EVENT.has(event);
// kanon:neutral-begin

// ---- context from neutral hooks ------------------------------------------------------------------

const NEUTRAL = HOOKS.some((hook) => hook.neutral);

/** A session's context: standing (SessionStart, PostCompact), this turn's, and the next prompt's. */
function contextOf(inst, sessionID) {
  inst.context ??= new Map();
  let c = inst.context.get(sessionID);
  if (c === undefined) {
    c = { standing: new Map(), turn: [], next: [] };
    inst.context.set(sessionID, c);
  }
  return c;
}

/**
 * A neutral hook's reply. SessionStart and PostCompact context stands for the rest of the session
 * (each hook's latest), like the history that holds it in other agents; the context of the prompt
 * and tool hooks goes with the requests of this turn; Stop and Interrupt come after the turn, so
 * theirs waits for the next prompt.
 */
function received(inst, hook, event, sessionID, r) {
  if (r.code !== 0 || typeof sessionID !== "string") return;
  let context;
  try {
    context = JSON.parse(r.stdout).context;
  } catch {
    return;
  }
  if (typeof context !== "string" || context === "") return;
  const c = contextOf(inst, sessionID);
  if (event === "SessionStart" || event === "PostCompact") c.standing.set(hook.name, context);
  else if (event === "Stop" || event === "Interrupt") c.next.push(context);
  else c.turn.push(context);
}

/** A prompt starts a turn: what the last one kept for it becomes this turn's context. */
function newTurn(inst, sessionID) {
  if (typeof sessionID !== "string") return;
  const c = contextOf(inst, sessionID);
  c.turn = c.next;
  c.next = [];
}

/** The text for the system prompt of one request of the session, or "". */
function contextFor(inst, sessionID) {
  const c = inst.context?.get(sessionID);
  return c === undefined ? "" : [...c.standing.values(), ...c.turn].join("\n\n");
}
// kanon:neutral-end

function select(event, value) {
  const list = BY_EVENT.get(event);
  if (list === undefined) return NONE;
  let out = NONE;
  for (const { hook, test } of list) {
    if (test !== null && !test(value)) continue;
    if (out === NONE) out = [];
    out.push(hook);
  }
  return out;
}

// ---- running one hook ----------------------------------------------------------------------------

/** The hook's stdin: one JSON line. Values JSON cannot hold (cycles, bigints) are replaced, not fatal. */
function jsonLine(value) {
  try {
    return `${JSON.stringify(value)}\n`;
  } catch {
    const seen = new WeakSet();
    const safe = (_key, v) => {
      if (typeof v === "bigint") return v.toString();
      if (typeof v === "object" && v !== null) {
        if (seen.has(v)) return "[Circular]";
        seen.add(v);
      }
      return v;
    };
    return `${JSON.stringify(value, safe)}\n`;
  }
}

function timeoutMs(hook) {
  const sec = typeof hook.timeout === "number" && hook.timeout > 0 ? hook.timeout : DEFAULT_TIMEOUT_SEC;
  return Math.min(Math.ceil(sec * 1000), MAX_TIMEOUT_MS);
}

function killGroup(child, signal) {
  if (child.pid === undefined) return;
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

function unref(x) {
  try {
    x?.unref?.();
  } catch {
    // Not every runtime can unref every handle.
  }
}

/** Spawns one hook and resolves with what it did; never rejects. */
function runHook(inst, hook, stdin) {
  return new Promise((resolve) => {
    const options = {
      cwd: inst.cwd,
      env: process.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: !WINDOWS,
      windowsHide: true,
    };
    let child;
    try {
      if (Array.isArray(hook.args)) child = spawn(hook.command, hook.args, options);
      else if (WINDOWS) child = spawn(hook.command, { ...options, shell: true });
      else child = spawn("/bin/sh", ["-c", hook.command], options);
    } catch (error) {
      resolve({ code: null, signal: null, stdout: "", stderr: "", timedOut: false, error });
      return;
    }
    const result = { code: null, signal: null, stdout: "", stderr: "", timedOut: false, error: undefined };
    let done = false;
    let killTimer;
    let graceTimer;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      if (!result.timedOut) clearTimeout(killTimer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      result.timedOut = true;
      killGroup(child, "SIGTERM");
      killTimer = setTimeout(() => killGroup(child, "SIGKILL"), KILL_GRACE_MS);
      unref(killTimer);
    }, timeoutMs(hook));
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (d) => {
      if (result.stdout.length < OUTPUT_CAP) result.stdout += d;
    });
    child.stderr.on("data", (d) => {
      if (result.stderr.length < OUTPUT_CAP) result.stderr += d;
    });
    child.on("error", (error) => {
      result.error = error;
      finish();
    });
    child.on("exit", (code, signal) => {
      result.code = code;
      result.signal = signal;
      // A grandchild that keeps stdout open must not hold the hook past its own exit.
      graceTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, CLOSE_GRACE_MS);
      unref(graceTimer);
    });
    child.on("close", finish);
    child.stdin.on("error", () => {
      // EPIPE: the hook did not read its input.
    });
    child.stdin.end(stdin);
    if (hook.async) {
      unref(child);
      unref(child.stdin);
      unref(child.stdout);
      unref(child.stderr);
      unref(timer);
    }
  });
}

/** Reports a finished hook; returns the block message when it blocks (exit 2 on a blocking event). */
function outcome(hook, event, r, canBlock) {
  const who = `hook "${hook.name}" (${event})`;
  if (r.error !== undefined) {
    log(`${who} could not run: ${r.error.message ?? String(r.error)}`);
    return undefined;
  }
  if (r.timedOut) {
    log(`${who} timed out after ${timeoutMs(hook) / 1000} s and was killed`);
    return undefined;
  }
  if (r.code === 0) return undefined;
  if (r.code === 2) {
    if (canBlock) return r.stderr.trim() || `Blocked by kanon hook ${JSON.stringify(hook.name)}.`;
    const why = hook.async ? "it runs async" : `${event} is observe-only on OpenCode`;
    log(`${who} exited 2, which blocks nothing here (${why}): ${firstLine(r.stderr)}`);
    return undefined;
  }
  const how = r.code === null ? `was killed by ${r.signal}` : `exited ${r.code}`;
  log(`${who} ${how}: ${firstLine(r.stderr)}`);
  return undefined;
}

/**
 * Runs the hooks of `event` that match `value` (a tool ID, a source or a trigger), in parallel, and
 * resolves with the block message when one of them blocks. Never rejects: anything unexpected is
 * logged and blocks nothing.
 */
async function dispatch(inst, event, value, fields) {
  const hooks = select(event, value);
  if (hooks.length === 0) return undefined;
  try {
    const stdin = jsonLine({
      hook_event_name: event,
      session_id: fields.session_id ?? "",
      cwd: inst.cwd,
      ...fields,
    });
    const canBlock = event === "PreToolUse";
    const waits = [];
    for (const hook of hooks) {
      const run = runHook(inst, hook, stdin);
      // kanon:neutral-begin
      if (hook.neutral) run.then((r) => received(inst, hook, event, fields.session_id, r));
      // kanon:neutral-end
      if (hook.async) {
        run.then((r) => outcome(hook, event, r, false));
        continue;
      }
      const settled = run.then((r) => outcome(hook, event, r, canBlock));
      inst.pending.add(settled);
      settled.then(() => inst.pending.delete(settled));
      waits.push(settled);
    }
    const blocks = (await Promise.all(waits)).filter((m) => m !== undefined);
    return blocks.length > 0 ? blocks.join("\n") : undefined;
  } catch (e) {
    log(`${event}: ${e?.message ?? String(e)}`);
    return undefined;
  }
}

/** Waits for every running hook that is not async (each is bounded by its own timeout). */
async function drain(inst) {
  while (inst.pending.size > 0) await Promise.allSettled([...inst.pending]);
}

// ---- one OpenCode instance (a project directory) --------------------------------------------------

function newInstance(cwd) {
  return {
    cwd: typeof cwd === "string" && cwd !== "" ? cwd : process.cwd(),
    active: true,
    pending: new Set(),
    subagents: new Set(),
    started: new Map(),
    running: new Set(),
    compacting: new Map(),
  };
}

function startSession(inst, sessionID, source) {
  if (typeof sessionID !== "string" || inst.started.has(sessionID) || inst.subagents.has(sessionID)) return;
  inst.started.set(sessionID, dispatch(inst, "SessionStart", source, { session_id: sessionID, source }));
}

/**
 * A turn ended: `event` is "Stop", "Interrupt" or null (the turn failed). Each version reports one end
 * through several events (session.status idle, session.idle, session.execution.succeeded), so only
 * the first end of a turn seen running counts, and an interrupted or failed turn gets no Stop.
 */
function turnEnded(inst, sessionID, event) {
  if (!inst.running.delete(sessionID) || event === null) return;
  void dispatch(inst, event, undefined, { session_id: sessionID });
}

/** Compaction is reported by its start (the compaction part, or an event with the trigger) and end. */
function compactionEnded(inst, sessionID, reason) {
  const trigger = reason ?? inst.compacting.get(sessionID);
  if (!inst.compacting.delete(sessionID) && reason === undefined) return;
  void dispatch(inst, "PostCompact", trigger, { session_id: sessionID, trigger });
}

/**
 * One bus event, from either version: OpenCode 1 puts the payload in `properties`, OpenCode 2 in
 * `data`, and some OpenCode 2 builds spell session events `session.next.*`.
 */
function onBusEvent(inst, event) {
  if (!inst.active || event === null || typeof event !== "object") return;
  const raw = event.type;
  // Most events are streaming deltas and the like: leave before doing any work for them.
  if (typeof raw !== "string" || (!raw.startsWith("session.") && raw !== "message.part.updated")) return;
  const dir = event.location?.directory;
  if (typeof dir === "string" && dir !== inst.cwd) return;
  const type = raw.startsWith("session.next.") ? `session.${raw.slice(13)}` : raw;
  const data = event.properties ?? event.data ?? {};
  const sessionID = data.sessionID ?? data.info?.id;
  if (typeof sessionID !== "string" && type !== "message.part.updated") return;
  if (inst.subagents.has(sessionID)) return;
  switch (type) {
    case "session.created":
      if (typeof data.info?.parentID === "string") inst.subagents.add(sessionID);
      else if (has("SessionStart")) startSession(inst, sessionID, "startup");
      return;
    case "session.status":
      if (data.status?.type === "busy") inst.running.add(sessionID);
      else if (data.status?.type === "idle") turnEnded(inst, sessionID, "Stop");
      return;
    case "session.execution.started":
      inst.running.add(sessionID);
      return;
    case "session.idle":
    case "session.execution.succeeded":
      turnEnded(inst, sessionID, "Stop");
      return;
    case "session.execution.interrupted":
      turnEnded(inst, sessionID, data.reason === "user" ? "Interrupt" : null);
      return;
    case "session.execution.failed":
      turnEnded(inst, sessionID, null);
      return;
    case "session.error":
      turnEnded(inst, sessionID, data.error?.name === "MessageAbortedError" ? "Interrupt" : null);
      return;
    case "message.part.updated": {
      const part = data.part;
      if (
        part?.type === "compaction" &&
        typeof part.sessionID === "string" &&
        !inst.subagents.has(part.sessionID)
      ) {
        inst.compacting.set(part.sessionID, part.auto ? "auto" : "manual");
      }
      return;
    }
    case "session.compaction.started":
      inst.compacting.set(sessionID, data.reason === "auto" ? "auto" : "manual");
      return;
    case "session.compacted":
    case "session.compaction.ended":
      compactionEnded(
        inst,
        sessionID,
        data.reason === "auto" || data.reason === "manual" ? data.reason : undefined,
      );
      return;
    default:
      return;
  }
}

const needsBus = () => has("SessionStart") || has("Stop") || has("Interrupt") || has("PostCompact");
// The prompt hook also marks a turn as running, for hosts whose event stream has no busy signal.
const needsPrompt = () => has("UserPromptSubmit") || has("SessionStart") || has("Stop") || has("Interrupt");

async function onPrompt(inst, sessionID, prompt) {
  if (typeof sessionID !== "string" || inst.subagents.has(sessionID)) return;
  inst.running.add(sessionID);
  // kanon:neutral-begin
  if (NEUTRAL) newTurn(inst, sessionID);
  // kanon:neutral-end
  if (has("SessionStart")) startSession(inst, sessionID, "resume");
  await inst.started.get(sessionID);
  if (has("UserPromptSubmit"))
    await dispatch(inst, "UserPromptSubmit", undefined, { session_id: sessionID, prompt });
}

function toolFields(sessionID, callID, tool, input) {
  return { session_id: sessionID, tool_name: tool, tool_input: input ?? {}, tool_use_id: callID ?? "" };
}

function promptText(parts) {
  if (!Array.isArray(parts)) return "";
  return parts
    .filter((p) => p?.type === "text" && !p.synthetic && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
}

// ---- OpenCode 1: server(input) returns the Hooks object -------------------------------------------

let v1 = false;

async function server(input) {
  v1 = true;
  const inst = newInstance(input?.directory);
  const hooks = {};
  if (needsBus()) {
    // Called synchronously and never awaited by OpenCode 1: must not throw.
    hooks.event = (arg) => {
      try {
        onBusEvent(inst, arg?.event);
      } catch (e) {
        log(`event: ${e.message}`);
      }
    };
  }
  if (needsPrompt()) {
    hooks["chat.message"] = async (i, o) => {
      try {
        await onPrompt(inst, i?.sessionID, promptText(o?.parts));
      } catch (e) {
        log(`chat.message: ${e.message}`);
      }
    };
  }
  // kanon:neutral-begin
  if (NEUTRAL) {
    if (hooks["chat.message"] === undefined) hooks["chat.message"] = async (i) => newTurn(inst, i?.sessionID);
    hooks["experimental.chat.system.transform"] = async (i, o) => {
      const text = contextFor(inst, i?.sessionID);
      if (text !== "" && Array.isArray(o?.system)) o.system.push(text);
    };
  }
  // kanon:neutral-end
  if (has("PreToolUse")) {
    hooks["tool.execute.before"] = async (i, o) => {
      const block = await dispatch(
        inst,
        "PreToolUse",
        i?.tool,
        toolFields(i?.sessionID, i?.callID, i?.tool, o?.args),
      );
      if (block !== undefined) throw new Error(block);
    };
  }
  if (has("PostToolUse")) {
    // OpenCode 1 calls this for successful calls only.
    hooks["tool.execute.after"] = async (i, o) => {
      const fields = toolFields(i?.sessionID, i?.callID, i?.tool, i?.args);
      fields.tool_response = { title: o?.title, output: o?.output, metadata: o?.metadata };
      await dispatch(inst, "PostToolUse", i?.tool, fields);
    };
  }
  // Awaited when the instance shuts down: `opencode run` exits right after session.idle otherwise,
  // before a Stop hook has finished.
  hooks.dispose = async () => {
    await drain(inst);
    inst.active = false;
  };
  return hooks;
}

// ---- OpenCode 2: setup(ctx) registers the same handlers through ctx --------------------------------

const setUp = new WeakSet();

async function setup(ctx) {
  // OpenCode 1.18 calls setup too, after server and with a context that has no tool domain.
  if (v1 || typeof ctx?.tool?.hook !== "function" || setUp.has(ctx)) return undefined;
  setUp.add(ctx);
  const inst = newInstance(ctx.location?.directory);
  const live = () => inst.active && !v1;
  const register = async (what, fn) => {
    try {
      await fn();
    } catch (e) {
      log(`could not register ${what}: ${e?.message ?? String(e)}`);
    }
  };
  if (has("PreToolUse")) {
    await register("execute.before", () =>
      ctx.tool.hook("execute.before", async (ev) => {
        if (!live()) return;
        const callID = ev?.id ?? ev?.callID;
        const block = await dispatch(
          inst,
          "PreToolUse",
          ev?.tool,
          toolFields(ev?.sessionID, callID, ev?.tool, ev?.input),
        );
        if (block !== undefined) throw new Error(block);
      }),
    );
  }
  if (has("PostToolUse")) {
    await register("execute.after", () =>
      ctx.tool.hook("execute.after", async (ev) => {
        if (!live() || ev?.status !== "completed") return;
        try {
          const fields = toolFields(ev.sessionID, ev.id ?? ev.callID, ev.tool, ev.input);
          fields.tool_response = ev.result;
          await dispatch(inst, "PostToolUse", ev.tool, fields);
        } catch (e) {
          log(`execute.after: ${e.message}`);
        }
      }),
    );
  }
  if (needsPrompt() && typeof ctx.session?.hook === "function") {
    await register("prompt", () =>
      ctx.session.hook("prompt", async (ev) => {
        if (!live()) return;
        try {
          const p = ev?.prompt;
          await onPrompt(inst, ev?.sessionID, typeof p === "string" ? p : (p?.text ?? ""));
        } catch (e) {
          log(`prompt: ${e.message}`);
        }
      }),
    );
  }
  // kanon:neutral-begin
  if (NEUTRAL && typeof ctx.session?.hook === "function") {
    if (!needsPrompt())
      await register("prompt", () =>
        ctx.session.hook("prompt", (ev) => {
          if (live()) newTurn(inst, ev?.sessionID);
        }),
      );
    await register("context", () =>
      ctx.session.hook("context", (ev) => {
        // Title, compaction and generate requests share the session: only the agent's own get it.
        if (!live() || (ev?.kind !== undefined && ev.kind !== "primary")) return;
        const text = contextFor(inst, ev?.sessionID);
        if (text !== "" && Array.isArray(ev?.system)) ev.system.push({ type: "text", text });
      }),
    );
  }
  // kanon:neutral-end
  let iterator;
  if (needsBus() && typeof ctx.event?.subscribe === "function") {
    void (async () => {
      try {
        iterator = (await ctx.event.subscribe())[Symbol.asyncIterator]();
        while (live()) {
          const { value, done } = await iterator.next();
          if (done || !live()) break;
          onBusEvent(inst, value);
        }
      } catch (e) {
        if (live()) log(`event stream ended: ${e?.message ?? String(e)}`);
      }
    })();
  }
  return async () => {
    inst.active = false;
    setUp.delete(ctx);
    Promise.resolve()
      .then(() => iterator?.return?.())
      .catch(() => undefined);
    await drain(inst);
  };
}

export default { id: PLUGIN_ID, server, setup };
