/**
 * The Anthropic Messages API adapter (pure): wire <-> neutral.
 *
 * Response text blocks are joined with no separator, so the text is kept exactly.
 * Stops: end_turn / tool_use -> none; max_tokens -> stop "length"; refusal -> stop
 * "refusal" (given back as stop_reason "refusal"); stop_sequence, pause_turn and any
 * other stop are refused (a replay could not give them back).
 */
import { toolCallsOf } from "../trace/payloads.js";
import type { JsonValue, ModelOutput, ToolCall } from "../trace/types.js";
import { BLACKBOX_ERROR_TYPE } from "../errors.js";
import { parseAnthropicRequest } from "./anthropicRequest.js";
import type { ToolCallIds } from "./ids.js";
import type { ParsedModelRequest, ProviderAdapter, RequestKind } from "./types.js";
import { bodyObject, cleanPath, isObj, refuse } from "./wire.js";

const WHAT = "Anthropic messages.create response";

const MANAGED_SESSIONS =
  "Anthropic managed agent sessions (client.beta.sessions, its events, SessionToolRunner) run the agent's model on Anthropic's side, " +
  "which Blackbox cannot record or replay (it records messages.create calls); not supported yet. Drive the model with messages.create " +
  "or client.beta.messages.toolRunner() in your own process to record the run.";

/**
 * Claude on a cloud's own API: AnthropicBedrock sends messages.create to Bedrock's
 * InvokeModel (`/model/<id>/invoke`, `/invoke-with-response-stream`: the model in the path,
 * the reply streamed as AWS event-stream frames), AnthropicVertex to Vertex AI's
 * `.../publishers/anthropic/models/<model>:rawPredict` / `:streamRawPredict`. Neither is
 * the Messages API this adapter records; passed through, the call would go unrecorded
 * (and in a replay, to the cloud).
 */
const CLOUD_APIS: ReadonlyArray<{ path: RegExp; what: string }> = [
  { path: /\/model\/[^/]+\/(invoke|invoke-with-response-stream)$/, what: "Claude on Amazon Bedrock (the AnthropicBedrock client of @anthropic-ai/bedrock-sdk) calls Bedrock's InvokeModel API" },
  { path: /\/publishers\/anthropic\/models\/[^/]+:(rawPredict|streamRawPredict)$/, what: "Claude on Vertex AI (the AnthropicVertex client of @anthropic-ai/vertex-sdk) calls Vertex AI's rawPredict API" },
];

const cloudRefusal = (what: string): string =>
  `${what}, not the Anthropic Messages API, which is what Blackbox records and replays; not supported yet. ` +
  "Record the agent with a client that speaks the Messages API (new Anthropic(), or AnthropicAws / AnthropicFoundry, named to Blackbox by their base URL).";

function classify(method: string, url: URL): RequestKind {
  const path = cleanPath(url);
  if (method.toUpperCase() === "POST" && path.endsWith("/v1/messages")) return "model";
  // passed through as another call, a session's model turns would leave a cassette of its tool steps alone, which no replay can serve
  if (/\/v1\/sessions(\/|$)/.test(path)) return { unsupported: MANAGED_SESSIONS };
  const cloud = CLOUD_APIS.find((c) => c.path.test(path));
  if (cloud) return { unsupported: cloudRefusal(cloud.what) };
  return "other";
}

function parseResponse(raw: unknown, ids: ToolCallIds): ModelOutput {
  const body = bodyObject(raw, WHAT);
  if (!Array.isArray(body.content)) refuse(`${WHAT} has no "content" list; Blackbox records complete Messages API replies only.`);
  let text = "";
  let sawText = false;
  const calls: ToolCall[] = [];
  body.content.forEach((b, i) => {
    if (!isObj(b)) refuse(`${WHAT}: content[${i}] is not a block object.`);
    if (b.type === "text" && typeof b.text === "string") {
      text += b.text;
      sawText = true;
    } else if (b.type === "tool_use" && typeof b.id === "string" && typeof b.name === "string") {
      calls.push({ toolCallId: ids.callIdFor(b.id), toolName: b.name, toolInput: (b.input === undefined ? {} : b.input) as JsonValue });
    } else if (b.type !== "thinking" && b.type !== "redacted_thinking") {
      refuse(`${WHAT}: content[${i}] is a ${JSON.stringify(b.type)} block, which a replay could not give back (server-side tools are not supported yet); use your own tools.`);
    }
  });
  const stop = stopOf(body.stop_reason);
  if (calls.length > 0) {
    const out: ModelOutput = { type: "tool_calls", calls };
    if (sawText && text !== "") out.text = text;
    if (stop) out.stop = stop;
    return out;
  }
  return stop ? { type: "final_answer", text, stop } : { type: "final_answer", text };
}

function stopOf(reason: unknown): "length" | "refusal" | undefined {
  switch (reason) {
    case "end_turn":
    case "tool_use":
    case null:
    case undefined:
      return undefined;
    case "max_tokens":
      return "length";
    case "refusal":
      return "refusal";
    case "stop_sequence":
      return refuse(`${WHAT} stopped on a stop sequence (stop_reason "stop_sequence"), which a replay could not give back; not supported yet. Remove stop_sequences from the request.`);
    default:
      return refuse(`${WHAT} has stop_reason ${JSON.stringify(reason)}, which Blackbox cannot give back; supported stops are end_turn, tool_use, max_tokens and refusal.`);
  }
}

function buildResponse(output: ModelOutput, request: ParsedModelRequest, ids: ToolCallIds, seq: number): JsonValue {
  const calls = toolCallsOf(output);
  const text = output.type === "tool_call" ? undefined : output.text;
  const stop = output.type === "tool_call" ? undefined : output.stop;
  const content: JsonValue[] = [];
  if (text !== undefined && (text !== "" || calls.length === 0)) content.push({ type: "text", text });
  for (const c of calls) {
    content.push({ type: "tool_use", id: ids.wireIdFor(c.toolCallId), name: c.toolName, input: c.toolInput });
  }
  if (content.length === 0) content.push({ type: "text", text: "" });
  const stopReason =
    stop === "length" ? "max_tokens" : stop === "refusal" ? "refusal" : calls.length > 0 ? "tool_use" : "end_turn";
  return {
    id: `bbx_msg-${seq}`,
    type: "message",
    role: "assistant",
    model: request.input.model ?? "unknown",
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      server_tool_use: null,
      service_tier: null,
    },
  };
}

/** The SDK puts the whole body on APIError.error, so isBlackboxError reads `.error.error.type`. */
function errorBody(message: string): JsonValue {
  // The top-level `message` is what the SDK's APIError puts in its own message
  // ("400 [blackbox] ..."); the API's usual shape is kept under `error`.
  return { type: "error", message, error: { type: BLACKBOX_ERROR_TYPE, message } };
}

export const anthropicAdapter: ProviderAdapter = {
  name: "anthropic",
  classify,
  parseRequest: parseAnthropicRequest,
  parseResponse,
  buildResponse,
  errorBody,
};
