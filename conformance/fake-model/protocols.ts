// Wire protocols spoken by the fake model. Each protocol knows its routes, how to find the offered tools
// and the tool results in a request body, and how to write a tool call or a text answer (SSE or JSON).
// Adding an agent that speaks a new protocol means adding one entry to `protocols`.

export type ProtocolId = "anthropic" | "responses" | "chat" | "gemini" | "models";

export interface ScriptStep {
  command: string;
  finalText: string;
  /**
   * Tool calls by exact name, one per model request, instead of the shell call (the MCP phase): each
   * request gets the next call whose tool it offers, then the final text.
   */
  calls?: ScriptedCall[];
  /** The scripted calls made so far in this run. */
  called?: Set<string>;
  /** Answer with the final text whatever the request carries (FakeModelScript.finalWhen matched). */
  final?: boolean;
  /** OpenAI Responses and Chat Completions: the input tokens a tool-call answer reports (default 10). */
  toolCallTokens?: number;
}

export interface ScriptedCall {
  name: string;
  args: Json;
}

export interface Answer {
  decision: "tool_call" | "final" | "text" | "json";
  status?: number;
  headers: Record<string, string>;
  chunks: string[];
  toolResults?: string[];
  toolName?: string;
  /** Names of the tools the request offered. */
  offered?: string[];
}

export interface Protocol {
  id: ProtocolId;
  /** Returns a route key when this protocol serves the request, else undefined. */
  route(method: string, path: string): string | undefined;
  answer(route: string, body: unknown, script: ScriptStep): Answer;
}

type Json = Record<string, unknown>;

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "close" };
const JSON_HEADERS = { "content-type": "application/json" };
const MODEL_ID = "fake-model";
const PLAIN_TEXT = "ok";
const TOOL_DESCRIPTION = "Run the kanon conformance command";

/** Shell tools, most specific first. */
const SHELL_TOOL_NAMES = [
  "exec_command",
  "shell_command",
  "shell",
  "bash",
  "Bash",
  "run_shell_command",
  "local_shell",
  "container.exec",
];

interface OfferedTool {
  name: string;
  schema: Json | undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function pickShellTool(tools: OfferedTool[]): OfferedTool | undefined {
  for (const name of SHELL_TOOL_NAMES) {
    const tool = tools.find((t) => t.name === name);
    if (tool) return tool;
  }
  return undefined;
}

/** Shapes the tool-call arguments from the tool's JSON schema. */
export function shellArguments(tool: OfferedTool, command: string): Json {
  const properties = isObject(tool.schema?.properties) ? tool.schema.properties : {};
  const args: Json = {};
  if ("cmd" in properties) args.cmd = command;
  else if (isObject(properties.command) && properties.command.type === "array") {
    args.command = ["bash", "-lc", command];
  } else args.command = command;
  if ("description" in properties) args.description = TOOL_DESCRIPTION;
  return args;
}

/**
 * The calls to make for a request that offers `tools` and carries `results` tool results: the shell
 * call (first request only), or the scripted calls whose tools the request offers, each made once (an
 * agent may offer a server's tools only once it has connected), in script order, at most `max` at a
 * time (protocols that carry several calls in one answer save a model round trip per call).
 */
function nextCalls(tools: OfferedTool[], results: number, script: ScriptStep, max = 1): ScriptedCall[] {
  if (script.final) return [];
  if (script.calls) {
    const offered = new Set(tools.map((t) => t.name));
    const calls = script.calls
      .filter((c) => offered.has(c.name) && !script.called?.has(c.name))
      .slice(0, max);
    for (const c of calls) script.called?.add(c.name);
    return calls;
  }
  const tool = results === 0 ? pickShellTool(tools) : undefined;
  return tool ? [{ name: tool.name, args: shellArguments(tool, script.command) }] : [];
}

const nextCall = (tools: OfferedTool[], results: number, script: ScriptStep): ScriptedCall | undefined =>
  nextCalls(tools, results, script)[0];

/** Text of a tool-result payload in any of the shapes the agents use. */
function contentText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(contentText).join("\n");
  if (isObject(value)) {
    if (typeof value.text === "string") return value.text;
    if ("content" in value) return contentText(value.content);
    if ("output" in value) return contentText(value.output);
    return JSON.stringify(value);
  }
  return value === undefined || value === null ? "" : String(value);
}

function sse(event: string | undefined, data: unknown): string {
  return `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
}

let counter = 0;
function nextId(prefix: string): string {
  counter += 1;
  return `${prefix}_kanon_${Date.now().toString(36)}_${counter}`;
}

// ---------------------------------------------------------------------------------------------------
// Anthropic Messages (Claude Code)

const anthropic: Protocol = {
  id: "anthropic",
  route(method, path) {
    if (method !== "POST") return undefined;
    if (path.endsWith("/messages/count_tokens")) return "count_tokens";
    if (path.endsWith("/messages")) return "messages";
    return undefined;
  },
  answer(route, body, script) {
    if (route === "count_tokens") {
      return { decision: "json", headers: JSON_HEADERS, chunks: [JSON.stringify({ input_tokens: 10 })] };
    }
    const request = isObject(body) ? body : {};
    const toolResults: string[] = [];
    for (const message of asArray(request.messages)) {
      if (!isObject(message)) continue;
      for (const block of asArray(message.content)) {
        if (isObject(block) && block.type === "tool_result") toolResults.push(contentText(block.content));
      }
    }
    const tools = asArray(request.tools)
      .filter(isObject)
      .map((t) => ({
        name: String(t.name ?? ""),
        schema: isObject(t.input_schema) ? t.input_schema : undefined,
      }));
    const shell = nextCall(tools, toolResults.length, script);
    const decision = shell ? "tool_call" : toolResults.length > 0 || script.final ? "final" : "text";
    const text = decision === "final" ? script.finalText : PLAIN_TEXT;
    const id = nextId("msg");
    const usage = {
      input_tokens: 10,
      output_tokens: 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    const block = shell
      ? {
          type: "tool_use",
          id: nextId("toolu"),
          name: shell.name,
          input: shell.args,
        }
      : { type: "text", text };
    const stopReason = shell ? "tool_use" : "end_turn";
    const base = { toolResults, toolName: shell?.name, offered: tools.map((t) => t.name) };
    if (request.stream !== true) {
      const message = {
        id,
        type: "message",
        role: "assistant",
        model: request.model ?? MODEL_ID,
        content: [block],
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      };
      return { ...base, decision, headers: JSON_HEADERS, chunks: [JSON.stringify(message)] };
    }
    const chunks = [
      sse("message_start", {
        type: "message_start",
        message: {
          id,
          type: "message",
          role: "assistant",
          model: request.model ?? MODEL_ID,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      }),
      sse("content_block_start", {
        type: "content_block_start",
        index: 0,
        content_block: shell
          ? { type: "tool_use", id: block.id, name: shell.name, input: {} }
          : { type: "text", text: "" },
      }),
      sse("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: shell
          ? { type: "input_json_delta", partial_json: JSON.stringify(shell.args) }
          : { type: "text_delta", text },
      }),
      sse("content_block_stop", { type: "content_block_stop", index: 0 }),
      sse("message_delta", {
        type: "message_delta",
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: 5 },
      }),
      sse("message_stop", { type: "message_stop" }),
    ];
    return { ...base, decision, headers: SSE_HEADERS, chunks };
  },
};

// ---------------------------------------------------------------------------------------------------
// OpenAI Responses (Codex)

const responses: Protocol = {
  id: "responses",
  route(method, path) {
    return method === "POST" && path.endsWith("/responses") ? "responses" : undefined;
  },
  answer(_route, body, script) {
    const request = isObject(body) ? body : {};
    const toolResults: string[] = [];
    for (const item of asArray(request.input)) {
      if (isObject(item) && typeof item.type === "string" && item.type.endsWith("_call_output")) {
        toolResults.push(contentText(item.output));
      }
    }
    // Codex groups each MCP server's tools in a namespace (`mcp__<server>`): its tools are offered as
    // `<namespace>__<tool>`, and a call names the tool and its namespace.
    const namespaces = new Map<string, { namespace: string; name: string }>();
    const tools: OfferedTool[] = asArray(request.tools)
      .filter(isObject)
      .flatMap((t) =>
        t.type === "namespace"
          ? asArray(t.tools)
              .filter(isObject)
              .map((f) => {
                const name = `${String(t.name)}__${String(f.name)}`;
                namespaces.set(name, { namespace: String(t.name), name: String(f.name) });
                return { name, schema: isObject(f.parameters) ? f.parameters : undefined };
              })
          : [
              {
                name: String(t.name ?? t.type ?? ""),
                schema: isObject(t.parameters) ? t.parameters : undefined,
              },
            ],
      );
    const shell = nextCall(tools, toolResults.length, script);
    const decision = shell ? "tool_call" : toolResults.length > 0 || script.final ? "final" : "text";
    const text = decision === "final" ? script.finalText : PLAIN_TEXT;
    const responseId = nextId("resp");
    const model = typeof request.model === "string" ? request.model : MODEL_ID;
    const createdAt = Math.floor(Date.now() / 1000);
    let item: Json;
    if (shell) {
      const callId = nextId("call");
      item =
        shell.name === "local_shell"
          ? {
              type: "local_shell_call",
              id: nextId("lsh"),
              call_id: callId,
              status: "completed",
              action: { type: "exec", command: ["bash", "-lc", script.command] },
            }
          : {
              type: "function_call",
              id: nextId("fc"),
              call_id: callId,
              ...(namespaces.get(shell.name) ?? { name: shell.name }),
              arguments: JSON.stringify(shell.args),
              status: "completed",
            };
    } else {
      item = {
        type: "message",
        id: nextId("msg"),
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text, annotations: [] }],
      };
    }
    const input = shell && script.toolCallTokens ? script.toolCallTokens : 10;
    const usage = {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + 5,
    };
    const response = (status: string, output: Json[]): Json => ({
      id: responseId,
      object: "response",
      created_at: createdAt,
      model,
      status,
      output,
      ...(status === "completed" ? { usage } : {}),
    });
    const base = { toolResults, toolName: shell?.name, offered: tools.map((t) => t.name) };
    if (request.stream === false) {
      return {
        ...base,
        decision,
        headers: JSON_HEADERS,
        chunks: [JSON.stringify(response("completed", [item]))],
      };
    }
    let sequence = 0;
    const event = (type: string, data: Json): string =>
      sse(type, { type, sequence_number: sequence++, ...data });
    const chunks = [
      event("response.created", { response: response("in_progress", []) }),
      event("response.in_progress", { response: response("in_progress", []) }),
      event("response.output_item.added", {
        output_index: 0,
        item: shell ? { ...item, status: "in_progress" } : { ...item, status: "in_progress", content: [] },
      }),
    ];
    if (!shell) {
      chunks.push(
        event("response.content_part.added", {
          item_id: item.id,
          output_index: 0,
          content_index: 0,
          part: { type: "output_text", text: "", annotations: [] },
        }),
        event("response.output_text.delta", {
          item_id: item.id,
          output_index: 0,
          content_index: 0,
          delta: text,
        }),
        event("response.output_text.done", { item_id: item.id, output_index: 0, content_index: 0, text }),
        event("response.content_part.done", {
          item_id: item.id,
          output_index: 0,
          content_index: 0,
          part: { type: "output_text", text, annotations: [] },
        }),
      );
    }
    chunks.push(
      event("response.output_item.done", { output_index: 0, item }),
      event("response.completed", { response: response("completed", [item]) }),
    );
    return { ...base, decision, headers: SSE_HEADERS, chunks };
  },
};

// ---------------------------------------------------------------------------------------------------
// OpenAI Chat Completions (OpenCode, Kimi Code)

const chat: Protocol = {
  id: "chat",
  route(method, path) {
    return method === "POST" && path.endsWith("/chat/completions") ? "chat" : undefined;
  },
  answer(_route, body, script) {
    const request = isObject(body) ? body : {};
    const toolResults: string[] = [];
    for (const message of asArray(request.messages)) {
      if (isObject(message) && message.role === "tool") toolResults.push(contentText(message.content));
    }
    const tools: OfferedTool[] = asArray(request.tools)
      .filter(isObject)
      .map((t) => (isObject(t.function) ? t.function : t))
      .map((f) => ({
        name: String(f.name ?? ""),
        schema: isObject(f.parameters) ? f.parameters : undefined,
      }));
    const calls = nextCalls(tools, toolResults.length, script, Number.POSITIVE_INFINITY);
    const decision =
      calls.length > 0 ? "tool_call" : toolResults.length > 0 || script.final ? "final" : "text";
    const text = decision === "final" ? script.finalText : PLAIN_TEXT;
    const id = nextId("chatcmpl");
    const model = typeof request.model === "string" ? request.model : MODEL_ID;
    const created = Math.floor(Date.now() / 1000);
    const withIds = calls.map((c) => ({ ...c, id: nextId("call"), json: JSON.stringify(c.args) }));
    const prompt = calls.length > 0 && script.toolCallTokens ? script.toolCallTokens : 10;
    const usage = { prompt_tokens: prompt, completion_tokens: 5, total_tokens: prompt + 5 };
    const base = {
      toolResults,
      toolName: calls.map((c) => c.name).join(",") || undefined,
      offered: tools.map((t) => t.name),
    };
    if (request.stream !== true) {
      const message =
        calls.length > 0
          ? {
              role: "assistant",
              content: null,
              tool_calls: withIds.map((c) => ({
                id: c.id,
                type: "function",
                function: { name: c.name, arguments: c.json },
              })),
            }
          : { role: "assistant", content: text };
      const completion = {
        id,
        object: "chat.completion",
        created,
        model,
        choices: [{ index: 0, message, finish_reason: calls.length > 0 ? "tool_calls" : "stop" }],
        usage,
      };
      return { ...base, decision, headers: JSON_HEADERS, chunks: [JSON.stringify(completion)] };
    }
    const chunk = (choices: Json[], extra: Json = {}): string =>
      sse(undefined, { id, object: "chat.completion.chunk", created, model, choices, ...extra });
    const chunks: string[] = [];
    if (calls.length > 0) {
      chunks.push(
        chunk([
          {
            index: 0,
            delta: {
              role: "assistant",
              content: null,
              tool_calls: withIds.map((c, index) => ({
                index,
                id: c.id,
                type: "function",
                function: { name: c.name, arguments: "" },
              })),
            },
            finish_reason: null,
          },
        ]),
        chunk([
          {
            index: 0,
            delta: { tool_calls: withIds.map((c, index) => ({ index, function: { arguments: c.json } })) },
            finish_reason: null,
          },
        ]),
        chunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }]),
      );
    } else {
      chunks.push(
        chunk([{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }]),
        chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
      );
    }
    chunks.push(chunk([], { usage }), "data: [DONE]\n\n");
    return { ...base, decision, headers: SSE_HEADERS, chunks };
  },
};

// ---------------------------------------------------------------------------------------------------
// Gemini API (for a future Gemini CLI driver; shaped after the documented wire format)

const gemini: Protocol = {
  id: "gemini",
  route(method, path) {
    if (method !== "POST") return undefined;
    if (/\/models\/[^/]+:streamGenerateContent$/.test(path)) return "stream";
    if (/\/models\/[^/]+:generateContent$/.test(path)) return "json";
    return undefined;
  },
  answer(route, body, script) {
    const request = isObject(body) ? body : {};
    const toolResults: string[] = [];
    for (const content of asArray(request.contents)) {
      if (!isObject(content)) continue;
      for (const part of asArray(content.parts)) {
        if (isObject(part) && isObject(part.functionResponse)) {
          toolResults.push(JSON.stringify(part.functionResponse.response ?? part.functionResponse));
        }
      }
    }
    const tools: OfferedTool[] = [];
    for (const group of asArray(request.tools)) {
      if (!isObject(group)) continue;
      for (const declaration of asArray(group.functionDeclarations)) {
        if (!isObject(declaration)) continue;
        const schema = isObject(declaration.parametersJsonSchema)
          ? declaration.parametersJsonSchema
          : isObject(declaration.parameters)
            ? declaration.parameters
            : undefined;
        tools.push({ name: String(declaration.name ?? ""), schema });
      }
    }
    const calls = nextCalls(tools, toolResults.length, script, Number.POSITIVE_INFINITY);
    const decision =
      calls.length > 0 ? "tool_call" : toolResults.length > 0 || script.final ? "final" : "text";
    const text = decision === "final" ? script.finalText : PLAIN_TEXT;
    const parts =
      calls.length > 0 ? calls.map((c) => ({ functionCall: { name: c.name, args: c.args } })) : [{ text }];
    const answer = {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    };
    const base = {
      toolResults,
      toolName: calls.map((c) => c.name).join(",") || undefined,
      offered: tools.map((t) => t.name),
    };
    if (route === "stream")
      return { ...base, decision, headers: SSE_HEADERS, chunks: [sse(undefined, answer)] };
    return { ...base, decision, headers: JSON_HEADERS, chunks: [JSON.stringify(answer)] };
  },
};

// ---------------------------------------------------------------------------------------------------
// Model list (some agents ask which models exist)

const models: Protocol = {
  id: "models",
  route(method, path) {
    return method === "GET" && path.endsWith("/models") ? "models" : undefined;
  },
  answer() {
    const list = {
      object: "list",
      data: [{ id: MODEL_ID, object: "model", created: 0, owned_by: "kanon-conformance" }],
      models: [{ slug: MODEL_ID, display_name: MODEL_ID }],
    };
    return { decision: "json", headers: JSON_HEADERS, chunks: [JSON.stringify(list)] };
  },
};

export const protocols: readonly Protocol[] = [anthropic, responses, chat, gemini, models];
