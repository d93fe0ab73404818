// A scripted, stateless fake model server for the agent conformance suite.
//
// It listens on 127.0.0.1 only and answers every agent with the same two-step script:
//   1. a request that offers a shell-like tool and carries no tool result yet -> one tool call that runs
//      the scenario's shell command;
//   2. a request that already carries a tool result -> the final text.
// Anything else (title generation, token counting, …) gets a short plain answer. Because every answer is
// derived from the request body alone, extra background requests from an agent cannot break the script.
//
// It also acts as the egress sink for the proxy variables: CONNECT requests and absolute-URI requests are
// logged as `egress` and refused.

import { appendFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { type ProtocolId, protocols, type ScriptedCall, type ScriptStep } from "./protocols.js";

export interface FakeModelScript {
  /** Shell command that the scripted tool call runs. */
  command: string;
  /** Final answer once the request carries a tool result. */
  finalText?: string;
  /** Tool calls by exact name instead of the shell call (see ScriptStep.calls). */
  calls?: ScriptedCall[];
  /** JSONL file that receives one line per request (requests are also kept in memory). */
  logFile?: string;
  /**
   * Holds back the final answer (to a request that carries a tool result) this long, like a model
   * slow to write it. Kimi Code kills PostToolUse hooks when the turn ends, so its driver needs it.
   */
  finalDelayMs?: number;
  /**
   * A request whose body holds this text gets the final answer even without a tool result (a
   * conversation compacted after the tool call no longer carries the result).
   */
  finalWhen?: string;
  /**
   * The input tokens a tool-call answer reports (OpenAI Responses and Chat Completions), so that an
   * agent with a token limit compacts after it (default 10).
   */
  toolCallTokens?: number;
}

export interface RecordedRequest {
  kind: "model" | "egress" | "other";
  time: number;
  method: string;
  url: string;
  protocol?: ProtocolId;
  userAgent?: string;
  body?: unknown;
  /** What the server answered: "tool_call", "final", "text", "json", "refused", "not_found". */
  decision: string;
  /** Tool-result texts found in the request (model requests only). */
  toolResults?: string[];
  /** Name of the tool the server called (when decision = tool_call). */
  toolName?: string;
  /** Names of the tools the request offered (model requests only). */
  offered?: string[];
}

export interface FakeModel {
  readonly url: string;
  readonly port: number;
  /** Starts a new script (one agent run); returns the list that will receive that run's requests. */
  begin(script: FakeModelScript): RecordedRequest[];
  close(): Promise<void>;
}

const MAX_BODY = 32 * 1024 * 1024;

export async function startFakeModel(port = 0): Promise<FakeModel> {
  let requests: RecordedRequest[] = [];
  let script: ScriptStep = { command: "true", finalText: "done" };
  let logFile: string | undefined;
  let finalDelayMs = 0;
  let finalWhen: string | undefined;
  const sockets = new Set<Socket>();

  const record = (entry: RecordedRequest): void => {
    requests.push(entry);
    if (logFile) appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      record({
        kind: "other",
        time: Date.now(),
        method: req.method ?? "?",
        url: req.url ?? "",
        decision: "error",
      });
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    const url = req.url ?? "/";
    const userAgent = headerValue(req.headers["user-agent"]);
    if (/^[a-z]+:\/\//i.test(url)) {
      // A plain-HTTP proxy request: the agent tried to reach another host through the proxy variables.
      record({ kind: "egress", time: Date.now(), method, url, userAgent, decision: "refused" });
      res.writeHead(403, { "content-type": "text/plain" });
      res.end("egress refused by the kanon conformance fake model\n");
      return;
    }
    const raw = await readBody(req);
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
    }
    const path = url.split("?")[0] ?? url;
    for (const protocol of protocols) {
      const route = protocol.route(method, path);
      if (!route) continue;
      const step = finalWhen && raw.includes(finalWhen) ? { ...script, final: true } : script;
      const answer = protocol.answer(route, body, step);
      record({
        kind: "model",
        time: Date.now(),
        method,
        url,
        protocol: protocol.id,
        userAgent,
        body,
        decision: answer.decision,
        toolResults: answer.toolResults,
        toolName: answer.toolName,
        offered: answer.offered,
      });
      if (answer.decision === "final" && finalDelayMs > 0)
        await new Promise((resolve) => setTimeout(resolve, finalDelayMs));
      res.writeHead(answer.status ?? 200, answer.headers);
      for (const chunk of answer.chunks) res.write(chunk);
      res.end();
      return;
    }
    record({ kind: "other", time: Date.now(), method, url, userAgent, body, decision: "not_found" });
    res.writeHead(404, { "content-type": "application/json" });
    res.end(
      JSON.stringify({ error: { type: "not_found", message: `fake model: no route for ${method} ${path}` } }),
    );
  }

  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("connect", (req: IncomingMessage, socket: Socket) => {
    record({
      kind: "egress",
      time: Date.now(),
      method: "CONNECT",
      url: req.url ?? "",
      userAgent: headerValue(req.headers["user-agent"]),
      decision: "refused",
    });
    socket.on("error", () => {});
    socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("fake model: no TCP address");

  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    begin(next) {
      requests = [];
      script = {
        command: next.command,
        finalText: next.finalText ?? "done",
        ...(next.calls ? { calls: next.calls, called: new Set<string>() } : {}),
        ...(next.toolCallTokens ? { toolCallTokens: next.toolCallTokens } : {}),
      };
      logFile = next.logFile;
      finalDelayMs = next.finalDelayMs ?? 0;
      finalWhen = next.finalWhen;
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
