/**
 * OpenAI Responses API response body <-> neutral ModelOutput (pure).
 *
 * Reading: `message` items give the text (their output_text parts, joined), `function_call`
 * items the tool calls (arguments parsed as chat completions parses them), `reasoning`
 * items are left out. `status: "incomplete"` because of max_output_tokens -> stop "length";
 * a `refusal` part -> `{type:"final_answer", text: refusal, stop:"refusal"}`, as in chat
 * completions. Refused (a replay could not give them back): other incomplete reasons, a
 * failed or unfinished response, OpenAI-side tool items, annotations, logprobs.
 *
 * Writing: a complete Response body the SDK parses, with Blackbox's own ids
 * (`bbx-resp-<seq>`, `bbx-msg-<seq>-<k>`, `bbx-fc-<seq>-<k>`, call ids `bbx_call-N`), zero
 * usage, no `output_text` (the SDK adds it, as it does to the API's bodies).
 */
import { BLACKBOX_ERROR_TYPE } from "../../errors.js";
import { replyParts } from "../../trace/payloads.js";
import type { JsonValue, ModelOutput, ToolCall } from "../../trace/types.js";
import type { ToolCallIds } from "../shared/ids.js";
import { parseArguments } from "../openai/request.js";
import type { ParsedModelRequest } from "../types.js";
import { bodyObject, isObj, refuse, type Obj } from "../shared/wire.js";
import { textFormatOf } from "./request.js";

const WHAT = "OpenAI responses.create response";

/** Output item types of OpenAI-side tools (only a refused request asks for them). */
const TOOL_ITEM = /_call(_output)?$|^mcp_|^compaction$|^program/;

export function parseResponsesResponse(raw: unknown, ids: ToolCallIds): ModelOutput {
  const body = bodyObject(raw, WHAT);
  const stop = stopOf(body);
  if (!Array.isArray(body.output)) refuse(`${WHAT} has no output list.`);
  let text = "";
  let refusal: string | undefined;
  const calls: ToolCall[] = [];
  body.output.forEach((item, i) => {
    if (!isObj(item)) refuse(`${WHAT}: output[${i}] is not an object.`);
    if (item.type === "reasoning") return; // left out, as Anthropic thinking blocks
    if (item.type === "function_call") {
      if (typeof item.call_id !== "string" || typeof item.name !== "string")
        refuse(`${WHAT}: output[${i}] (function_call) has no string call_id and name.`);
      calls.push({
        toolCallId: ids.callIdFor(item.call_id),
        toolName: item.name,
        toolInput: parseArguments(item.arguments),
      });
      return;
    }
    if (item.type !== "message") {
      const type = JSON.stringify(item.type);
      if (typeof item.type === "string" && TOOL_ITEM.test(item.type)) {
        refuse(
          `${WHAT}: output[${i}] is an OpenAI-side tool item (${type}), which a replay could not give back; OpenAI-side and custom tools are not supported yet. Use function tools.`,
        );
      }
      refuse(
        `${WHAT}: output[${i}] is an item of type ${type}; Blackbox records message, function_call and reasoning items.`,
      );
    }
    const content = Array.isArray(item.content) ? item.content : [];
    content.forEach((part, k) => {
      const where = `output[${i}].content[${k}]`;
      if (isObj(part) && part.type === "refusal") {
        refusal = (refusal ?? "") + String(part.refusal ?? "");
        return;
      }
      if (!isObj(part) || part.type !== "output_text" || typeof part.text !== "string") {
        refuse(`${WHAT}: ${where} is not an output_text or refusal part; Blackbox records text replies.`);
      }
      if (Array.isArray(part.annotations) && part.annotations.length > 0) {
        refuse(
          `${WHAT}: ${where} carries annotations (citations), which a replay could not give back; they come with OpenAI-side tools, which are not supported yet.`,
        );
      }
      if (Array.isArray(part.logprobs) && part.logprobs.length > 0) {
        refuse(
          `${WHAT}: ${where} carries logprobs, which a replay could not give back; remove "message.output_text.logprobs" from include.`,
        );
      }
      text += part.text;
    });
  });
  if (refusal !== undefined) return { type: "final_answer", text: refusal, stop: "refusal" };
  if (calls.length > 0) {
    const out: ModelOutput = { type: "tool_calls", calls };
    if (text !== "") out.text = text;
    if (stop) out.stop = stop;
    return out;
  }
  return stop ? { type: "final_answer", text, stop } : { type: "final_answer", text };
}

function stopOf(body: Obj): "length" | undefined {
  if (isObj(body.error)) {
    refuse(
      `${WHAT} failed (${String(body.error.code ?? "error")}: ${String(body.error.message ?? "")}); a failed reply is not recorded. Retry the call.`,
    );
  }
  const status = body.status;
  if (status === "completed" || status === undefined || status === null) return undefined;
  if (status === "incomplete") {
    const reason = isObj(body.incomplete_details) ? body.incomplete_details.reason : undefined;
    if (reason === "max_output_tokens") return "length";
    return refuse(
      `${WHAT} is incomplete (reason ${JSON.stringify(reason ?? null)}), which Blackbox cannot give back; supported are complete replies, a max_output_tokens stop and a refusal.`,
    );
  }
  return refuse(
    `${WHAT} has status ${JSON.stringify(status)}; Blackbox records finished replies (completed, or incomplete at max_output_tokens). Background responses are not supported.`,
  );
}

/** toolInput -> arguments. A raw (non-JSON) string kept at record time goes back as is. */
export function argumentsOf(input: JsonValue): string {
  if (typeof input === "string") {
    try {
      JSON.parse(input);
    } catch {
      return input;
    }
  }
  return JSON.stringify(input);
}

const zeroUsage = (): JsonValue => ({
  input_tokens: 0,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 0,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 0,
});

/** The neutral tool choice as the API writes it. */
function toolChoiceOf(choice: JsonValue | undefined): JsonValue {
  if (choice === undefined) return "auto";
  if (choice === "any") return "required";
  if (isObj(choice) && typeof choice.name === "string" && choice.type === undefined)
    return { type: "function", name: choice.name };
  return choice;
}

/** The Response body for `output`, with the request's controls echoed as the API echoes them. */
export function buildResponsesResponse(
  output: ModelOutput,
  request: ParsedModelRequest,
  ids: ToolCallIds,
  seq: number,
): JsonValue {
  const { calls, text, stop } = replyParts(output);
  const items: JsonValue[] = [];
  const status = stop === "length" ? "incomplete" : "completed";
  if (stop === "refusal") {
    items.push(message(`bbx-msg-${seq}-0`, [{ type: "refusal", refusal: text ?? "" }], "completed"));
  } else if (text !== undefined && (text !== "" || calls.length === 0)) {
    items.push(
      message(`bbx-msg-${seq}-0`, [{ type: "output_text", annotations: [], logprobs: [], text }], "completed"),
    );
  }
  for (const c of calls) {
    items.push({
      id: `bbx-fc-${seq}-${items.length}`,
      type: "function_call",
      status: "completed",
      arguments: argumentsOf(c.toolInput),
      call_id: ids.wireIdFor(c.toolCallId),
      name: c.toolName,
    });
  }
  if (status === "incomplete" && items.length > 0) (items[items.length - 1] as Obj).status = "incomplete";
  const params = request.input.params ?? {};
  return {
    id: `bbx-resp-${seq}`,
    object: "response",
    created_at: 0,
    status,
    background: false,
    error: null,
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: null,
    max_output_tokens: params.maxTokens ?? null,
    model: request.input.model ?? "unknown",
    output: items,
    parallel_tool_calls: params.parallelToolCalls ?? true,
    previous_response_id: null,
    reasoning: { effort: params.reasoningEffort ?? null, summary: null },
    store: false,
    temperature: params.temperature ?? 1,
    text: {
      format: params.responseFormat !== undefined ? textFormatOf(params.responseFormat) : { type: "text" },
      verbosity: params.verbosity ?? "medium",
    },
    tool_choice: toolChoiceOf(params.toolChoice),
    tools: request.input.tools.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description ?? null,
      parameters: t.inputSchema,
      strict: t.strict ?? null,
    })),
    top_p: params.topP ?? 1,
    truncation: params.truncation ?? "disabled",
    usage: zeroUsage(),
    metadata: {},
  };
}

function message(id: string, content: JsonValue[], status: string): JsonValue {
  return { id, type: "message", status, content, role: "assistant" };
}

/** The SDK puts `body.error` on APIError.error, so isBlackboxError reads `.error.type`. */
export function responsesErrorBody(message: string): JsonValue {
  return { error: { type: BLACKBOX_ERROR_TYPE, message, code: BLACKBOX_ERROR_TYPE, param: null } };
}
