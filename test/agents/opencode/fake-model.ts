/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1, enough for `opencode run`:
 * - a request without tools (the title request) gets the text "Kanon test";
 * - a request that already carries a tool result gets the final text "done";
 * - any other request gets one assistant turn with the scripted shell commands as parallel tool
 *   calls of the offered shell tool (bash on OpenCode 1, shell on OpenCode 2).
 * It also refuses proxied egress (CONNECT), so an agent pointed at it as its proxy stays offline.
 * Every request is kept for assertions.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
}

export interface ChatRequest {
  model?: string;
  stream?: boolean;
  tools?: {
    function: { name: string; parameters?: { properties?: Record<string, unknown>; required?: string[] } };
  }[];
  messages: ChatMessage[];
}

export interface FakeModel {
  url: string;
  port: number;
  requests: ChatRequest[];
  egress: string[];
  close(): Promise<void>;
}

const chunk = (choices: unknown[], extra: object = {}) =>
  `data: ${JSON.stringify({ id: "chatcmpl-kanon", object: "chat.completion.chunk", created: 0, model: "fake-model", choices, ...extra })}\n\n`;

function sse(parts: string[]): string {
  return `${parts.join("")}${chunk([], { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } })}data: [DONE]\n\n`;
}

function text(t: string): string {
  return sse([
    chunk([{ index: 0, delta: { role: "assistant", content: t }, finish_reason: null }]),
    chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
  ]);
}

function toolCalls(tool: NonNullable<ChatRequest["tools"]>[number], commands: string[]): string {
  const needs = (k: string) =>
    tool.function.parameters?.required?.includes(k) || tool.function.parameters?.properties?.[k];
  const calls = commands.map((command, index) => ({
    index,
    id: `call_${index + 1}`,
    type: "function",
    function: {
      name: tool.function.name,
      arguments: JSON.stringify({
        command,
        ...(needs("description") ? { description: `run ${command}` } : {}),
      }),
    },
  }));
  return sse([
    chunk([{ index: 0, delta: { role: "assistant", tool_calls: calls }, finish_reason: null }]),
    chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
  ]);
}

async function body(req: IncomingMessage): Promise<string> {
  let b = "";
  for await (const c of req) b += c;
  return b;
}

export async function startFakeModel(commands: string[]): Promise<FakeModel> {
  const requests: ChatRequest[] = [];
  const egress: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const raw = await body(req);
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      if (req.url?.startsWith("http")) egress.push(req.url);
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
      return;
    }
    const r = JSON.parse(raw) as ChatRequest;
    requests.push(r);
    const shell = r.tools?.find((t) => t.function.name === "bash" || t.function.name === "shell");
    const answered = r.messages.some((m) => m.role === "tool");
    const out = !r.tools?.length
      ? text("Kanon test")
      : answered || !shell
        ? text("done")
        : toolCalls(shell, commands);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" }).end(out);
  });
  server.on("connect", (req, socket) => {
    egress.push(String(req.url));
    socket.on("error", () => {});
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
  });
  server.on("clientError", (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    egress,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
