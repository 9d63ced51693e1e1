/**
 * Amazon Bedrock Converse / ConverseStream request body -> neutral ModelInput (pure).
 *
 * The model is named in the path (`/model/{modelId}/converse`): the definition's
 * `requestText` puts it in the body as `modelId` before it is parsed (index.ts).
 *
 * - `system` text blocks -> systemPrompt, joined with no separator; cache points dropped.
 * - `messages`: text blocks -> text parts (a lone text block is kept as a one-part list),
 *   `toolUse` -> tool_use parts, `toolResult` -> tool_result parts (`status: "error"` ->
 *   error, its text joined; a single `json` block -> its value; text blocks -> a list of
 *   `{type:"text", text}`), cache points dropped. `toolUseId` becomes call-N.
 * - `toolConfig.tools[].toolSpec` -> tool definitions (`inputSchema.json` the schema).
 * - Controls in the neutral names the other providers use: inferenceConfig.maxTokens ->
 *   maxTokens, temperature, topP, stopSequences; toolChoice auto/any/tool -> "auto" / "any"
 *   / { name }; additionalModelRequestFields, performanceConfig and serviceTier as they are.
 *
 * Refused before anything is sent (a replay could not give them back): guardrailConfig and
 * guardContent blocks, promptVariables (a prompt managed on AWS's side),
 * additionalModelResponseFieldPaths other than the AI SDK's `/delta/stop_sequence`, images, documents, videos, reasoning content, citations,
 * system tools, and tool results with images or documents.
 */
import type { JsonValue, Message, MessagePart, ModelParams, ToolDefinition } from "../../trace/types.js";
import type { ToolCallIds } from "../shared/ids.js";
import {
  appendWire,
  arrayField,
  bodyObject,
  copyParam,
  isObj,
  refuse,
  withMessages,
  type Obj,
} from "../shared/wire.js";
import type { ParsedModelRequest, RequestState } from "../types.js";

export const WHAT = "Bedrock Converse request";

/** The one additional reply field a request may ask for: what the AI SDK asks of Claude models. */
export const STOP_SEQUENCE_PATH = "/delta/stop_sequence";

export function parseConverseRequest(raw: unknown, ids: ToolCallIds): ParsedModelRequest {
  return converseRequestState(raw, ids).parsed;
}

export function converseRequestState(raw: unknown, ids: ToolCallIds): RequestState {
  const body = bodyObject(raw, WHAT);
  refuseRequestFields(body);
  const names = new Map<string, string>();
  const wire = arrayField(body, "messages", WHAT);
  const messages: Message[] = [];
  addMessages(wire, 0, ids, names, messages);
  const tools = isObj(body.toolConfig) ? arrayField(body.toolConfig, "tools", WHAT).flatMap(parseTool) : [];
  const input: ParsedModelRequest["input"] = { messages, tools };
  const system = systemOf(body);
  if (system !== undefined) input.systemPrompt = system;
  if (typeof body.modelId === "string") input.model = body.modelId;
  const params = parseParams(body);
  if (Object.keys(params).length > 0) input.params = params;
  // ConverseStream is told apart by its path: requestText marks it
  const parsed: ParsedModelRequest = { input, stream: body.stream === true, thinking: false };
  return { parsed, wire, names };
}

/** The request of `state` with `more` messages at its end (undefined: the full parse must say). */
export function converseMoreMessages(state: RequestState, more: unknown[], ids: ToolCallIds): RequestState {
  const from = state.wire.length;
  const wire = appendWire(state, more);
  const messages = state.parsed.input.messages.slice();
  addMessages(wire, from, ids, state.names, messages);
  return withMessages(state, wire, messages);
}

function refuseRequestFields(body: Obj): void {
  if (body.guardrailConfig !== undefined && body.guardrailConfig !== null) {
    refuse(
      `${WHAT}: "guardrailConfig" asks Bedrock to run a guardrail on the call, whose assessments and interventions a replay could not give back; not supported yet. Remove guardrailConfig while recording (apply the guardrail with a separate ApplyGuardrail call in production).`,
    );
  }
  if (isObj(body.promptVariables) || (typeof body.modelId === "string" && /:prompt\//.test(body.modelId))) {
    refuse(
      `${WHAT}: a prompt managed in Bedrock Prompt Management (a prompt ARN as modelId, "promptVariables") is filled in on AWS's side, so Blackbox cannot see what the call sends; not supported. Send the messages and system prompt in the request instead.`,
    );
  }
  const paths = body.additionalModelResponseFieldPaths;
  // the AI SDK asks Claude models for the stop sequence that ended a reply (a stop Blackbox refuses anyway)
  if (Array.isArray(paths) && paths.some((p) => p !== STOP_SEQUENCE_PATH)) {
    refuse(
      `${WHAT}: "additionalModelResponseFieldPaths" asks for model-specific reply fields (${JSON.stringify(paths)}), which a replay could not give back; not supported yet (only ${JSON.stringify(STOP_SEQUENCE_PATH)} is). Remove it.`,
    );
  }
}

function systemOf(body: Obj): string | undefined {
  const blocks = arrayField(body, "system", WHAT);
  if (blocks.length === 0) return undefined;
  let text = "";
  blocks.forEach((b, i) => {
    if (!isObj(b)) refuse(`${WHAT}: system[${i}] is not a block object.`);
    if (typeof b.text === "string") text += b.text;
    else if (!isObj(b.cachePoint)) blockRefusal(b, `system[${i}]`);
  });
  return text;
}

const BLOCKS: Record<string, string> = {
  image: "an image",
  document: "a document",
  video: "a video",
  audio: "audio",
  guardContent: "guardrail content (guardContent), which a guardrail evaluates on AWS's side",
  reasoningContent: "reasoning content",
  citationsContent: "citations",
  searchResult: "a search result",
  cachePoint: "a cache point",
};

function blockRefusal(b: Obj, where: string): never {
  const kind = Object.keys(b).find((k) => b[k] !== undefined && b[k] !== null);
  const what = (kind && BLOCKS[kind]) ?? `a ${JSON.stringify(kind ?? "empty")} block`;
  refuse(
    `${WHAT}: ${where} is ${what}, which Blackbox cannot record (images, documents, reasoning and guardrail content are not supported yet); use text, toolUse and toolResult blocks with your own tools.`,
  );
}

function addMessages(
  wire: readonly unknown[],
  from: number,
  ids: ToolCallIds,
  names: Map<string, string>,
  out: Message[],
): void {
  for (let i = from; i < wire.length; i++) {
    const m = wire[i];
    if (!isObj(m) || (m.role !== "user" && m.role !== "assistant"))
      refuse(`${WHAT}: messages[${i}] needs role "user" or "assistant".`);
    const content = arrayField(m, "content", WHAT);
    const parts: MessagePart[] = [];
    content.forEach((b, j) => {
      const where = `messages[${i}].content[${j}]`;
      if (!isObj(b)) refuse(`${WHAT}: ${where} is not a block object.`);
      if (typeof b.text === "string") parts.push({ type: "text", text: b.text });
      else if (isObj(b.toolUse)) {
        const u = b.toolUse;
        if (typeof u.toolUseId !== "string" || typeof u.name !== "string")
          refuse(`${WHAT}: ${where}.toolUse needs a string toolUseId and name.`);
        names.set(u.toolUseId, u.name);
        parts.push({
          type: "tool_use",
          toolCallId: ids.callIdFor(u.toolUseId),
          toolName: u.name,
          toolInput: (u.input === undefined ? {} : u.input) as JsonValue,
        });
      } else if (isObj(b.toolResult)) parts.push(toolResult(b.toolResult, where, ids, names));
      else if (!isObj(b.cachePoint)) blockRefusal(b, where);
    });
    out.push({ role: m.role, content: parts });
  }
}

function toolResult(r: Obj, where: string, ids: ToolCallIds, names: Map<string, string>): MessagePart {
  const wireId = r.toolUseId;
  if (typeof wireId !== "string") refuse(`${WHAT}: ${where}.toolResult needs a string toolUseId.`);
  const toolName = names.get(wireId);
  if (toolName === undefined) {
    refuse(
      `${WHAT}: ${where}.toolResult answers toolUseId ${JSON.stringify(wireId)}, which no earlier toolUse in the request has; send the assistant turn with that toolUse first.`,
    );
  }
  const toolCallId = ids.callIdFor(wireId);
  const content = arrayField(r, "content", WHAT);
  let result: JsonValue;
  if (content.length === 1 && isObj(content[0]) && content[0].json !== undefined) {
    result = content[0].json as JsonValue;
  } else {
    result = content.map((c, k) => {
      if (!isObj(c) || typeof c.text !== "string") {
        refuse(
          `${WHAT}: ${where}.toolResult.content[${k}] is not a text block (or one json block); tool results with images or documents are not supported yet. Return text or JSON from the tool.`,
        );
      }
      return { type: "text", text: c.text };
    });
  }
  if (r.status === "error") {
    const error = Array.isArray(result)
      ? (result as Array<{ text: string }>).map((p) => p.text).join("")
      : typeof result === "string"
        ? result
        : JSON.stringify(result);
    return { type: "tool_result", toolCallId, toolName, error };
  }
  return { type: "tool_result", toolCallId, toolName, result };
}

function parseTool(t: unknown, i: number): ToolDefinition[] {
  if (isObj(t) && isObj(t.cachePoint)) return [];
  if (!isObj(t) || !isObj(t.toolSpec)) {
    const kind = isObj(t) ? Object.keys(t)[0] : undefined;
    refuse(
      `${WHAT}: toolConfig.tools[${i}] is ${kind === "systemTool" ? "a system tool, which runs on AWS's side: a replay could not give its results back" : `not a toolSpec (${JSON.stringify(kind ?? null)})`}; Blackbox records your own tools ({ toolSpec: { name, inputSchema: { json } } }).`,
    );
  }
  const s = t.toolSpec;
  if (typeof s.name !== "string") refuse(`${WHAT}: toolConfig.tools[${i}].toolSpec needs a string name.`);
  const schema = isObj(s.inputSchema) ? s.inputSchema.json : undefined;
  const def: ToolDefinition = { name: s.name, inputSchema: (schema ?? {}) as JsonValue };
  if (typeof s.description === "string") def.description = s.description;
  if (typeof s.strict === "boolean") def.strict = s.strict;
  return [def];
}

function parseParams(body: Obj): ModelParams {
  const p: ModelParams = {};
  if (isObj(body.inferenceConfig)) {
    const c = body.inferenceConfig;
    copyParam(p, c, "maxTokens", "maxTokens");
    copyParam(p, c, "temperature", "temperature");
    copyParam(p, c, "topP", "topP");
    copyParam(p, c, "stopSequences", "stopSequences");
  }
  const tc = isObj(body.toolConfig) ? body.toolConfig.toolChoice : undefined;
  if (isObj(tc)) {
    if (isObj(tc.auto)) p.toolChoice = "auto";
    else if (isObj(tc.any)) p.toolChoice = "any";
    else if (isObj(tc.tool) && typeof tc.tool.name === "string") p.toolChoice = { name: tc.tool.name };
    else p.toolChoice = tc as JsonValue;
  }
  copyParam(p, body, "additionalModelRequestFields", "additionalModelRequestFields");
  if (Array.isArray(body.additionalModelResponseFieldPaths) && body.additionalModelResponseFieldPaths.length > 0)
    p.additionalModelResponseFieldPaths = body.additionalModelResponseFieldPaths as JsonValue;
  copyParam(p, body, "performanceConfig", "performanceConfig");
  copyParam(p, body, "serviceTier", "serviceTier");
  return p;
}
