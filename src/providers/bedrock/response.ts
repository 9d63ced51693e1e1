/**
 * Amazon Bedrock Converse replies (pure): wire <-> neutral.
 *
 * `output.message.content` text blocks are joined with no separator; `toolUse` blocks are
 * tool calls (`toolUseId` -> call-N). Stops: end_turn / tool_use -> none; max_tokens ->
 * "length"; anything else (stop_sequence, guardrail_intervened, content_filtered, a context
 * window exceeded, ...) is refused: a replay could not give it back. A replayed reply has
 * zero usage and latency, and Blackbox's own ids (`bbx_call-N`).
 */
import { BLACKBOX_ERROR_TYPE } from "../../errors.js";
import { replyParts } from "../../trace/payloads.js";
import type { JsonValue, ModelOutput, ToolCall } from "../../trace/types.js";
import type { ToolCallIds } from "../shared/ids.js";
import { bodyObject, isObj, refuse } from "../shared/wire.js";
import type { ParsedModelRequest } from "../types.js";

const WHAT = "Bedrock Converse response";

export function parseConverseResponse(raw: unknown, ids: ToolCallIds): ModelOutput {
  const body = bodyObject(raw, WHAT);
  const message = isObj(body.output) ? body.output.message : undefined;
  if (!isObj(message) || !Array.isArray(message.content))
    refuse(`${WHAT} has no "output.message.content" list; Blackbox records complete Converse replies only.`);
  let text = "";
  let sawText = false;
  const calls: ToolCall[] = [];
  message.content.forEach((b, i) => {
    if (!isObj(b)) refuse(`${WHAT}: content[${i}] is not a block object.`);
    if (typeof b.text === "string") {
      text += b.text;
      sawText = true;
    } else if (isObj(b.toolUse) && typeof b.toolUse.toolUseId === "string" && typeof b.toolUse.name === "string") {
      calls.push({
        toolCallId: ids.callIdFor(b.toolUse.toolUseId),
        toolName: b.toolUse.name,
        toolInput: (b.toolUse.input === undefined ? {} : b.toolUse.input) as JsonValue,
      });
    } else {
      refuse(
        `${WHAT}: content[${i}] is a ${JSON.stringify(Object.keys(b)[0] ?? "empty")} block, which a replay could not give back (reasoning, images and citations are not supported yet); use text and your own tools.`,
      );
    }
  });
  extraFields(body.additionalModelResponseFields);
  const stop = stopOf(body.stopReason);
  if (calls.length > 0) {
    const out: ModelOutput = { type: "tool_calls", calls };
    if (sawText && text !== "") out.text = text;
    if (stop) out.stop = stop;
    return out;
  }
  return stop ? { type: "final_answer", text, stop } : { type: "final_answer", text };
}

/**
 * Additional reply fields: only `{ delta: { stop_sequence: null } }` (what Claude answers the AI SDK's
 * `/delta/stop_sequence` with when no stop sequence ended the reply), which a replay gives back as absent.
 */
export function extraFields(fields: unknown): void {
  if (fields === undefined || fields === null) return;
  const delta = isObj(fields) ? fields.delta : undefined;
  const plain =
    isObj(fields) &&
    Object.keys(fields).every((k) => k === "delta") &&
    (delta === undefined ||
      (isObj(delta) &&
        Object.keys(delta).every((k) => k === "stop_sequence") &&
        (delta.stop_sequence ?? null) === null));
  if (!plain)
    refuse(
      `${WHAT} has additionalModelResponseFields ${JSON.stringify(fields).slice(0, 120)}, which a replay could not give back; not supported yet.`,
    );
}

export function stopOf(reason: unknown): "length" | undefined {
  switch (reason) {
    case "end_turn":
    case "tool_use":
    case null:
    case undefined:
      return undefined;
    case "max_tokens":
      return "length";
    case "guardrail_intervened":
    case "content_filtered":
      return refuse(
        `${WHAT} stopped with stopReason ${JSON.stringify(reason)} (a guardrail or content filter acted on AWS's side), which a replay could not give back; not supported. Record the run without the guardrail.`,
      );
    case "stop_sequence":
      return refuse(
        `${WHAT} stopped on a stop sequence (stopReason "stop_sequence"), which a replay could not give back; not supported yet. Remove inferenceConfig.stopSequences from the request.`,
      );
    default:
      return refuse(
        `${WHAT} has stopReason ${JSON.stringify(reason)}, which Blackbox cannot give back; supported stops are end_turn, tool_use and max_tokens.`,
      );
  }
}

/** The reply's content blocks and stop reason. */
export function replyBlocks(output: ModelOutput, ids: ToolCallIds): { content: JsonValue[]; stopReason: string } {
  const { calls, text, stop } = replyParts(output);
  const content: JsonValue[] = [];
  if (text !== undefined && (text !== "" || calls.length === 0)) content.push({ text });
  for (const c of calls) {
    content.push({ toolUse: { toolUseId: ids.wireIdFor(c.toolCallId), name: c.toolName, input: c.toolInput } });
  }
  if (content.length === 0) content.push({ text: "" });
  const stopReason = stop === "length" ? "max_tokens" : calls.length > 0 ? "tool_use" : "end_turn";
  return { content, stopReason };
}

export function buildConverseResponse(
  output: ModelOutput,
  _request: ParsedModelRequest,
  ids: ToolCallIds,
  _seq: number,
): JsonValue {
  if (output.type !== "tool_call" && output.stop === "refusal")
    refuse("a recorded refusal stop cannot be given back as a Bedrock Converse reply (it has no such stop).");
  const { content, stopReason } = replyBlocks(output, ids);
  return {
    output: { message: { role: "assistant", content } },
    stopReason,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    metrics: { latencyMs: 0 },
  };
}

/**
 * A ValidationException as the AWS SDK reads it (`__type` names the error, `message` its text); the SDK puts the
 * body's other members on the exception, so isBlackboxError reads `.error.type`.
 */
export function converseErrorBody(message: string): JsonValue {
  return { __type: "ValidationException", message, error: { type: BLACKBOX_ERROR_TYPE, message } };
}
