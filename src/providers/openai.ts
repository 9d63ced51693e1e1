/**
 * The OpenAI Chat Completions adapter (pure): wire <-> neutral.
 *
 * finish_reason stop / tool_calls -> no stop; length -> stop "length"; a message.refusal ->
 * `{type:"final_answer", text: refusal, stop:"refusal"}`. Refused (a replay could not give
 * them back): several choices, logprobs, content_filter / function_call finishes, audio.
 * The Responses API is refused at classify time.
 */
import { toolCallsOf } from "../trace/payloads.js";
import type { JsonValue, ModelOutput, ToolCall } from "../trace/types.js";
import { BLACKBOX_ERROR_TYPE } from "../errors.js";
import type { ToolCallIds } from "./ids.js";
import { parseArguments, parseOpenAIRequest } from "./openaiRequest.js";
import type { ParsedModelRequest, ProviderAdapter, RequestKind } from "./types.js";
import { bodyObject, cleanPath, isObj, refuse } from "./wire.js";

const WHAT = "OpenAI chat.completions.create response";

function classify(method: string, url: URL): RequestKind {
  const path = cleanPath(url);
  const post = method.toUpperCase() === "POST";
  if (post && path.endsWith("/chat/completions")) return "model";
  if (post && path.endsWith("/responses")) {
    return {
      unsupported:
        "The OpenAI Responses API (client.responses.create) is not supported yet; use client.chat.completions.create instead (with the Vercel AI SDK: openai.chat(model), not openai(model)).",
    };
  }
  return "other";
}

function parseResponse(raw: unknown, ids: ToolCallIds): ModelOutput {
  const body = bodyObject(raw, WHAT);
  if (!Array.isArray(body.choices) || body.choices.length !== 1) {
    const n = Array.isArray(body.choices) ? body.choices.length : "no";
    refuse(`${WHAT} has ${n} choices; Blackbox records exactly one choice (n: 1).`);
  }
  const choice = body.choices[0];
  if (!isObj(choice) || !isObj(choice.message)) refuse(`${WHAT}: choices[0] has no message.`);
  if (choice.logprobs !== undefined && choice.logprobs !== null) {
    refuse(`${WHAT} carries logprobs, which a replay could not give back; remove logprobs from the request.`);
  }
  const msg = choice.message;
  if (msg.audio !== undefined && msg.audio !== null) refuse(`${WHAT} carries audio, which is not supported yet; ask for text only.`);
  if (typeof msg.refusal === "string") return { type: "final_answer", text: msg.refusal, stop: "refusal" };
  const stop = stopOf(choice.finish_reason);
  const text = typeof msg.content === "string" ? msg.content : undefined;
  const wireCalls = Array.isArray(msg.tool_calls) ? msg.tool_calls : [];
  if (wireCalls.length > 0) {
    const calls: ToolCall[] = wireCalls.map((c, k) => {
      if (!isObj(c) || c.type !== "function" || !isObj(c.function) || typeof c.id !== "string") {
        refuse(`${WHAT}: tool_calls[${k}] is not a function call; custom tools are not supported yet. Use function tools.`);
      }
      return { toolCallId: ids.callIdFor(c.id), toolName: String(c.function.name), toolInput: parseArguments(c.function.arguments) };
    });
    const out: ModelOutput = { type: "tool_calls", calls };
    if (text !== undefined && text !== "") out.text = text;
    if (stop) out.stop = stop;
    return out;
  }
  return stop ? { type: "final_answer", text: text ?? "", stop } : { type: "final_answer", text: text ?? "" };
}

function stopOf(reason: unknown): "length" | undefined {
  if (reason === "stop" || reason === "tool_calls" || reason === null || reason === undefined) return undefined;
  if (reason === "length") return "length";
  return refuse(`${WHAT} has finish_reason ${JSON.stringify(reason)}, which Blackbox cannot give back; supported finishes are stop, tool_calls, length and a refusal.`);
}

/** toolInput -> function.arguments. A raw (non-JSON) string kept at record time goes back as is. */
function argumentsOf(input: JsonValue): string {
  if (typeof input === "string") {
    try {
      JSON.parse(input);
    } catch {
      return input;
    }
  }
  return JSON.stringify(input);
}

function buildResponse(output: ModelOutput, request: ParsedModelRequest, ids: ToolCallIds, seq: number): JsonValue {
  const calls = toolCallsOf(output);
  const text = output.type === "tool_call" ? undefined : output.text;
  const stop = output.type === "tool_call" ? undefined : output.stop;
  const refusal = stop === "refusal" ? (text ?? "") : null;
  const message: { [k: string]: JsonValue } = {
    role: "assistant",
    content: refusal !== null ? null : text ?? null,
    refusal,
    annotations: [],
  };
  if (calls.length > 0) {
    message.tool_calls = calls.map((c) => ({
      id: ids.wireIdFor(c.toolCallId),
      type: "function",
      function: { name: c.toolName, arguments: argumentsOf(c.toolInput) },
    }));
  }
  const finish = stop === "length" ? "length" : calls.length > 0 ? "tool_calls" : "stop";
  return {
    id: `bbx-completion-${seq}`,
    object: "chat.completion",
    created: 0,
    model: request.input.model ?? "unknown",
    choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

/** The SDK puts `body.error` on APIError.error, so isBlackboxError reads `.error.type`. */
function errorBody(message: string): JsonValue {
  return { error: { type: BLACKBOX_ERROR_TYPE, message, code: BLACKBOX_ERROR_TYPE, param: null } };
}

export const openaiAdapter: ProviderAdapter = {
  name: "openai",
  classify,
  parseRequest: parseOpenAIRequest,
  parseResponse,
  buildResponse,
  errorBody,
};
