/**
 * Gemini GenerateContentResponse bodies (pure): wire <-> neutral.
 *
 * One candidate: its text parts (thought parts left out) -> text, its functionCall parts ->
 * tool calls (call-N ids: calls.ts). finishReason STOP (or none) -> no stop; MAX_TOKENS ->
 * stop "length". Refused (a replay could not give them back): a blocked prompt, several
 * candidates, a safety / recitation / other finish, code the model ran, inline data,
 * grounding metadata. A `thoughtSignature` is not kept (see request.ts: a live fork of a
 * run that carried one is refused).
 */
import { BLACKBOX_ERROR_TYPE } from "../../errors.js";
import { replyParts } from "../../trace/payloads.js";
import type { JsonValue, ModelOutput, ToolCall } from "../../trace/types.js";
import type { ToolCallIds } from "../shared/ids.js";
import type { ParsedModelRequest } from "../types.js";
import { bodyObject, isObj, refuse } from "../shared/wire.js";
import { replyCallId, slotKey } from "./calls.js";

const WHAT = "Gemini generateContent response";

export function parseGeminiResponse(raw: unknown, ids: ToolCallIds): ModelOutput {
  const body = bodyObject(raw, WHAT);
  const candidates = Array.isArray(body.candidates) ? body.candidates : [];
  if (candidates.length === 0) {
    const fb = isObj(body.promptFeedback) ? body.promptFeedback : {};
    refuse(
      `${WHAT} has no candidate${fb.blockReason ? ` (the prompt was blocked: ${String(fb.blockReason)})` : ""}, which Blackbox cannot give back; a blocked reply is not recorded. Change the prompt or the safety settings.`,
    );
  }
  if (candidates.length > 1)
    refuse(`${WHAT} has ${candidates.length} candidates; Blackbox records exactly one (candidateCount: 1).`);
  const cand = candidates[0];
  if (!isObj(cand)) refuse(`${WHAT}: candidates[0] is not an object.`);
  if (cand.groundingMetadata !== undefined && cand.groundingMetadata !== null) {
    refuse(`${WHAT} carries groundingMetadata (Google Search grounding), which a replay could not give back.`);
  }
  const stop = stopOf(cand.finishReason);
  const content = isObj(cand.content) ? cand.content : {};
  const parts = Array.isArray(content.parts) ? content.parts : [];
  let text: string | undefined;
  const calls: ToolCall[] = [];
  parts.forEach((p, k) => {
    if (!isObj(p)) refuse(`${WHAT}: parts[${k}] is not an object.`);
    if (p.executableCode !== undefined || p.codeExecutionResult !== undefined)
      refuse(`${WHAT}: parts[${k}] is code the model ran on Google's side, which a replay could not give back.`);
    if (p.inlineData !== undefined || p.fileData !== undefined)
      refuse(
        `${WHAT}: parts[${k}] is inline or file data (an image, audio); only text and function calls are recorded.`,
      );
    if (p.thought === true) return;
    if (typeof p.text === "string") text = (text ?? "") + p.text;
    else if (isObj(p.functionCall)) {
      const fc = p.functionCall;
      calls.push({
        toolCallId: replyCallId(ids, calls.length),
        toolName: String(fc.name),
        toolInput: (fc.args ?? {}) as JsonValue,
      });
    }
  });
  if (calls.length > 0) {
    const out: ModelOutput = { type: "tool_calls", calls };
    if (text !== undefined && text !== "") out.text = text;
    if (stop) out.stop = stop;
    return out;
  }
  return stop ? { type: "final_answer", text: text ?? "", stop } : { type: "final_answer", text: text ?? "" };
}

function stopOf(reason: unknown): "length" | undefined {
  if (reason === undefined || reason === null || reason === "STOP" || reason === "FINISH_REASON_UNSPECIFIED")
    return undefined;
  if (reason === "MAX_TOKENS") return "length";
  return refuse(
    `${WHAT} has finishReason ${JSON.stringify(reason)}, which Blackbox cannot give back; supported finishes are STOP and MAX_TOKENS.`,
  );
}

/** The GenerateContentResponse for `output`: one candidate, no ids on its calls (as the Gemini API sends them). */
export function buildGeminiResponse(
  output: ModelOutput,
  request: ParsedModelRequest,
  ids: ToolCallIds,
  seq: number,
): JsonValue {
  const { calls, text, stop } = replyParts(output);
  const parts: JsonValue[] = [];
  if (text !== undefined && (text !== "" || calls.length === 0)) parts.push({ text });
  calls.forEach((c, k) => {
    ids.register(slotKey(ids.functionCallSlot, k), c.toolCallId);
    parts.push({ functionCall: { name: c.toolName, args: c.toolInput } });
  });
  return {
    candidates: [
      { content: { parts, role: "model" }, finishReason: stop === "length" ? "MAX_TOKENS" : "STOP", index: 0 },
    ],
    usageMetadata: { promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 },
    modelVersion: request.input.model ?? "unknown",
    responseId: `bbx-resp-${seq}`,
  };
}

/**
 * The API's error body, with an ErrorInfo whose reason is Blackbox's: @google/genai puts the
 * body's JSON in its ApiError's message, the AI SDK in its APICallError's responseBody
 * (isBlackboxError reads both).
 */
export function geminiErrorBody(message: string): JsonValue {
  return {
    error: {
      code: 400,
      message,
      status: "FAILED_PRECONDITION",
      details: [
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: BLACKBOX_ERROR_TYPE, domain: "blackbox" },
      ],
    },
  };
}
