#!/usr/bin/env node
// Stub MCP server of the kanon conformance suite (no dependencies, Node >= 20).
//
//   stub-server.mjs --log FILE --name NAME [--second-tool] [any other args...]          stdio
//   stub-server.mjs --log FILE --name NAME --http PORT_FILE                              streamable HTTP
//
// It speaks just enough MCP (JSON-RPC 2.0: initialize, tools/list, tools/call, ping) for an agent to
// list and call its tool, and appends one JSON line to the log per event:
//   {"event":"start", name, argv0, argv, cwd, env}       how it was started (env: the KMCP_* variables)
//   {"event":"http", name, method, path, headers}        each HTTP request (headers as received)
//   {"event":"list", name} / {"event":"call", name, tool, arguments}
// The log path comes from the arguments, not the environment: an agent need not pass its environment on.
// The tool `probe` answers `KMCP_RESULT <name> <tool>`, which the suite looks for in the next model request.
import { appendFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";

const argv = process.argv.slice(2);
const option = (flag) => {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
};
const name = option("--name") ?? "stub";
const log = option("--log");
const httpPortFile = option("--http");
const tools = ["probe", ...(argv.includes("--second-tool") ? ["spare"] : [])];

function record(entry) {
  if (log) appendFileSync(log, `${JSON.stringify({ time: Date.now(), name, ...entry })}\n`);
}

record({
  event: "start",
  transport: httpPortFile ? "http" : "stdio",
  argv0: process.argv0,
  argv,
  cwd: process.cwd(),
  env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("KMCP_"))),
});

/** The answer to one JSON-RPC message, or undefined for a notification. */
function answer(message) {
  if (message === null || typeof message !== "object" || message.id === undefined) return undefined;
  const reply = (result) => ({ jsonrpc: "2.0", id: message.id, result });
  switch (message.method) {
    case "initialize":
      return reply({
        protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: `kanon-conformance-${name}`, version: "1.0.0" },
      });
    case "ping":
      return reply({});
    case "tools/list":
      record({ event: "list" });
      return reply({
        tools: tools.map((tool) => ({
          name: tool,
          description: `kanon conformance ${tool} tool of ${name}`,
          inputSchema: { type: "object", properties: { note: { type: "string" } } },
        })),
      });
    case "tools/call": {
      const tool = message.params?.name;
      record({ event: "call", tool, arguments: message.params?.arguments ?? null });
      if (!tools.includes(tool))
        return { jsonrpc: "2.0", id: message.id, error: { code: -32602, message: `unknown tool ${tool}` } };
      return reply({ content: [{ type: "text", text: `KMCP_RESULT ${name} ${tool}` }], isError: false });
    }
    default:
      if (typeof message.method === "string" && message.method.startsWith("notifications/")) return undefined;
      return { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "method not found" } };
  }
}

const answerAll = (body) =>
  Array.isArray(body) ? body.map(answer).filter((a) => a !== undefined) : answer(body);

if (httpPortFile) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      record({ event: "http", method: req.method, path: req.url, headers: req.headers });
      if (req.method !== "POST") {
        // No server-initiated stream: the client falls back to plain request/response.
        res.writeHead(405, { allow: "POST" }).end();
        return;
      }
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } }),
        );
        return;
      }
      const out = answerAll(body);
      if (out === undefined || (Array.isArray(out) && out.length === 0)) {
        res.writeHead(202).end();
        return;
      }
      const headers = { "content-type": "application/json" };
      if (!Array.isArray(body) && body.method === "initialize") headers["mcp-session-id"] = `kanon-${name}`;
      res.writeHead(200, headers).end(JSON.stringify(out));
    });
  });
  // Written whole (a rename), so a reader never sees an empty file.
  server.listen(0, "127.0.0.1", () => {
    writeFileSync(`${httpPortFile}.tmp`, String(server.address().port));
    renameSync(`${httpPortFile}.tmp`, httpPortFile);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
} else {
  let buffer = "";
  process.stdin.on("data", (chunk) => {
    buffer += chunk.toString("utf8");
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line) continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      const out = answerAll(message);
      if (out !== undefined && !(Array.isArray(out) && out.length === 0))
        process.stdout.write(`${JSON.stringify(out)}\n`);
    }
  });
  process.stdin.on("end", () => process.exit(0));
}
