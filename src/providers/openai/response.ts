/**
 * OpenAI Chat Completions replies (pure): wire <-> neutral.
 *
 * finish_reason stop / tool_calls -> no stop; length -> stop "length"; a message.refusal ->
 * `{type:"final_answer", text: refusal, stop:"refusal"}`. The deprecated `function_call` (a
 * request that declared `functions`) is one tool call, given back as a function_call; it has
 * no id, so its call-N is keyed by the place the reply takes in the next request
 * (`fn#<index>`, ToolCallIds.functionCallSlot). Refused (a replay could not give them back):
 * several choices, logprobs, a content_filter finish, audio.
 */
import { replyParts } from "../../trace/payloads.js";
import type { JsonValue, ModelOutput, ToolCall } from "../../trace/types.js";
import type { ToolCallIds } from "../shared/ids.js";
import { parseArguments } from "./request.js";
import type { ParsedModelRequest } from "../types.js";
import { bodyObject, isObj, refuse } from "../shared/wire.js";

const WHAT = "OpenAI chat.completions.create response";

export function parseResponse(raw: unknown, ids: ToolCallIds): ModelOutput {
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
  if (msg.audio !== undefined && msg.audio !== null)
    refuse(`${WHAT} carries audio, which is not supported yet; ask for text only.`);
  if (typeof msg.refusal === "string") return { type: "final_answer", text: msg.refusal, stop: "refusal" };
  const stop = stopOf(choice.finish_reason);
  const text = typeof msg.content === "string" ? msg.content : undefined;
  const wireCalls = Array.isArray(msg.tool_calls) ? msg.tool_calls : [];
  if (isObj(msg.function_call) && wireCalls.length === 0) {
    const slot = `fn#${ids.functionCallSlot}`;
    const toolCallId = ids.fresh(); // a new call, whatever an earlier conversation had at that place
    ids.register(slot, toolCallId);
    const call = {
      toolCallId,
      toolName: String(msg.function_call.name),
      toolInput: parseArguments(msg.function_call.arguments),
    };
    const out: ModelOutput = { type: "tool_calls", calls: [call] };
    if (text !== undefined && text !== "") out.text = text;
    if (stop) out.stop = stop;
    return out;
  }
  if (wireCalls.length > 0) {
    const calls: ToolCall[] = wireCalls.map((c, k) => {
      if (!isObj(c) || c.type !== "function" || !isObj(c.function) || typeof c.id !== "string") {
        refuse(
          `${WHAT}: tool_calls[${k}] is not a function call; custom tools are not supported yet. Use function tools.`,
        );
      }
      return {
        toolCallId: ids.callIdFor(c.id),
        toolName: String(c.function.name),
        toolInput: parseArguments(c.function.arguments),
      };
    });
    const out: ModelOutput = { type: "tool_calls", calls };
    if (text !== undefined && text !== "") out.text = text;
    if (stop) out.stop = stop;
    return out;
  }
  return stop ? { type: "final_answer", text: text ?? "", stop } : { type: "final_answer", text: text ?? "" };
}

function stopOf(reason: unknown): "length" | undefined {
  if (reason === "stop" || reason === "tool_calls" || reason === "function_call" || reason == null) return undefined;
  if (reason === "length") return "length";
  return refuse(
    `${WHAT} has finish_reason ${JSON.stringify(reason)}, which Blackbox cannot give back; supported finishes are stop, tool_calls, length and a refusal.`,
  );
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

export function buildResponse(
  output: ModelOutput,
  request: ParsedModelRequest,
  ids: ToolCallIds,
  seq: number,
): JsonValue {
  const { calls, text, stop } = replyParts(output);
  const refusal = stop === "refusal" ? (text ?? "") : null;
  const message: { [k: string]: JsonValue } = {
    role: "assistant",
    content: refusal !== null ? null : (text ?? null),
    refusal,
    annotations: [],
  };
  if (calls.length > 0 && request.functionCall) {
    // the request declared the deprecated functions: its SDK reads message.function_call, which holds one call
    if (calls.length > 1) {
      refuse(
        `${WHAT}: the recorded reply holds ${calls.length} tool calls, but this request declares the deprecated "functions", whose reply holds one function_call; declare them as tools, as the recording did.`,
      );
    }
    const c = calls[0]!;
    ids.register(`fn#${ids.functionCallSlot}`, c.toolCallId);
    message.function_call = { name: c.toolName, arguments: argumentsOf(c.toolInput) };
  } else if (calls.length > 0) {
    message.tool_calls = calls.map((c) => ({
      id: ids.wireIdFor(c.toolCallId),
      type: "function",
      function: { name: c.toolName, arguments: argumentsOf(c.toolInput) },
    }));
  }
  const finish =
    stop === "length" ? "length" : calls.length > 0 ? (request.functionCall ? "function_call" : "tool_calls") : "stop";
  return {
    id: `bbx-completion-${seq}`,
    object: "chat.completion",
    created: 0,
    model: request.input.model ?? "unknown",
    choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}
