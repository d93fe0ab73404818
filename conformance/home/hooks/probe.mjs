#!/usr/bin/env node
// Hook probe of the kanon conformance suite (no dependencies, Node >= 20).
//
//   probe.mjs <label> [extra argv...]
//
// Appends one JSON line to $KANON_CONFORMANCE_LOG with the label, the argv it received, its cwd, the
// time it started, the JSON payload read from stdin and the agent-specific part of its environment.
//
// The label "guard" makes it a policy hook: when the tool input mentions KANON_CONFORMANCE_BLOCK it
// prints a reason on stderr and exits 2, which every agent treats as "block this tool call".
import { appendFileSync } from "node:fs";

const started = performance.timeOrigin + performance.now();
const [label = "unlabelled", ...rest] = process.argv.slice(2);
const BLOCK_MARKER = "KANON_CONFORMANCE_BLOCK";
const BLOCK_REASON = "KANON_CONFORMANCE_GUARD_REASON: the conformance guard hook blocked this command";
const ENV_PREFIXES = ["CLAUDE", "CODEX", "OPENCODE", "GEMINI", "KANON_CONFORMANCE"];
// The fake model's keys (GEMINI_API_KEY) stay out of the log.
const SECRET_LIKE = /KEY|TOKEN|SECRET|PASSWORD/;

async function readStdin() {
  if (process.stdin.isTTY) return "";
  const chunks = [];
  const timer = setTimeout(() => process.stdin.destroy(), 10_000);
  try {
    for await (const chunk of process.stdin) chunks.push(chunk);
  } catch {
    // A closed or broken stdin still leaves whatever arrived.
  }
  clearTimeout(timer);
  return Buffer.concat(chunks).toString("utf8");
}

const raw = await readStdin();
let stdin = raw;
try {
  stdin = raw.trim() === "" ? null : JSON.parse(raw);
} catch {
  // Keep the raw text: the suite reports a payload that is not JSON.
}
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) => ENV_PREFIXES.some((prefix) => name.startsWith(prefix)) && !SECRET_LIKE.test(name),
  ),
);
let decision = "allow";
if (label === "guard" && JSON.stringify(stdin ?? "").includes(BLOCK_MARKER)) decision = "block";

const record = {
  label,
  argv: rest,
  cwd: process.cwd(),
  pid: process.pid,
  ppid: process.ppid,
  started,
  decision,
  stdin,
  env,
};
const log = process.env.KANON_CONFORMANCE_LOG;
if (log) appendFileSync(log, `${JSON.stringify(record)}\n`);

if (decision === "block") {
  process.stderr.write(`${BLOCK_REASON}\n`);
  process.exit(2);
}
