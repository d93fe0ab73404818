#!/usr/bin/env node
// Probe of the conformance suite's envelope phase (no dependencies).
//
//   envelope-probe.mjs <label>
//
// Appends {label, started, stdin} to $KANON_CONFORMANCE_LOG (stdin: the neutral envelope kanon's
// runner gave it), then, by label: `start` and `prompt` print a marker, `big` prints 20,000
// characters in 400 lines, `crash` throws (exit 1), anything else prints nothing.
import { appendFileSync } from "node:fs";

const started = performance.timeOrigin + performance.now();
const label = process.argv[2] ?? "unlabelled";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const raw = Buffer.concat(chunks).toString("utf8");
let stdin = raw;
try {
  stdin = JSON.parse(raw);
} catch {
  // Keep the raw text: the suite reports an envelope that is not JSON.
}
const log = process.env.KANON_CONFORMANCE_LOG;
if (log) appendFileSync(log, `${JSON.stringify({ label, started, stdin })}\n`);

if (label === "start") process.stdout.write("KANON-ENVELOPE-START-MARKER\n");
else if (label === "prompt") process.stdout.write("KANON-ENVELOPE-PROMPT-MARKER\n");
else if (label === "big") {
  const lines = [];
  for (let i = 1; i <= 400; i++) lines.push(`KANON-BIG-${String(i).padStart(4, "0")} ${"x".repeat(34)}`);
  process.stdout.write(`${lines.join("\n")}\n`);
} else if (label === "crash") throw new Error("the conformance crash hook crashes on purpose");
