/**
 * Anthropic Messages API replies (pure): wire <-> neutral.
 *
 * Response text blocks are joined with no separator, so the text is kept exactly.
 * Stops: end_turn / tool_use -> none; max_tokens -> stop "length"; refusal -> stop
 * "refusal" (given back as stop_reason "refusal"); stop_sequence, pause_turn and any
 * other stop are refused (a replay could not give them back).
 */
import { replyParts } from "../../trace/payloads.js";
import type { JsonValue, ModelOutput, ToolCall } from "../../trace/types.js";
import type { ToolCallIds } from "../shared/ids.js";
import type { ParsedModelRequest } from "../types.js";
import { bodyObject, isObj, refuse } from "../shared/wire.js";

const WHAT = "Anthropic messages.create response";

export function parseResponse(raw: unknown, ids: ToolCallIds): ModelOutput {
  const body = bodyObject(raw, WHAT);
  if (!Array.isArray(body.content))
    refuse(`${WHAT} has no "content" list; Blackbox records complete Messages API replies only.`);
  let text = "";
  let sawText = false;
  const calls: ToolCall[] = [];
  body.content.forEach((b, i) => {
    if (!isObj(b)) refuse(`${WHAT}: content[${i}] is not a block object.`);
    if (b.type === "text" && typeof b.text === "string") {
      text += b.text;
      sawText = true;
    } else if (b.type === "tool_use" && typeof b.id === "string" && typeof b.name === "string") {
      calls.push({
        toolCallId: ids.callIdFor(b.id),
        toolName: b.name,
        toolInput: (b.input === undefined ? {} : b.input) as JsonValue,
      });
    } else if (b.type !== "thinking" && b.type !== "redacted_thinking") {
      refuse(
        `${WHAT}: content[${i}] is a ${JSON.stringify(b.type)} block, which a replay could not give back (server-side tools are not supported yet); use your own tools.`,
      );
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
      return refuse(
        `${WHAT} stopped on a stop sequence (stop_reason "stop_sequence"), which a replay could not give back; not supported yet. Remove stop_sequences from the request.`,
      );
    default:
      return refuse(
        `${WHAT} has stop_reason ${JSON.stringify(reason)}, which Blackbox cannot give back; supported stops are end_turn, tool_use, max_tokens and refusal.`,
      );
  }
}

export function buildResponse(
  output: ModelOutput,
  request: ParsedModelRequest,
  ids: ToolCallIds,
  seq: number,
): JsonValue {
  const { calls, text, stop } = replyParts(output);
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
