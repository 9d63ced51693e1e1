/**
 * OpenAI Responses API request body (`client.responses.create`) -> neutral ModelInput (pure).
 *
 * - `instructions`, then the leading system/developer input items -> systemPrompt, joined
 *   with "\n\n" (each item's text parts joined with no separator). Later ones are refused.
 * - `input` as a string is one user message; as items, the conversation (items.ts): user
 *   and assistant messages, function calls as tool_use parts and their outputs as
 *   tool_result parts, reasoning left out as Anthropic thinking blocks.
 * - Provider call ids (`call_id`) become call-N; item ids (`id`) are not recorded.
 * - Controls in the neutral names chat completions uses for the same control
 *   (max_output_tokens -> maxTokens, text.format -> responseFormat written as chat
 *   completions' response_format, text.verbosity -> verbosity, reasoning.effort ->
 *   reasoningEffort ...), so the same agent on either API gives the same model_input.
 * - A function tool's `strict`, when it is a boolean, is recorded on the tool definition.
 * - null values of optional fields count as absent.
 *
 * Refused before anything is sent (a replay could not give them back, or Blackbox could
 * not see what the call sends): built-in and custom tools, `background`, `conversation`,
 * `prompt`, an unexpanded `previous_response_id` or `item_reference` (chains.ts resolves
 * both), image, file and audio inputs, logprobs, context management, moderation.
 */
import type { ToolCallIds } from "../shared/ids.js";
import type { ParsedModelRequest, RequestState } from "../types.js";
import type { JsonValue, Message, ModelParams, ToolDefinition } from "../../trace/types.js";
import {
  appendWire,
  arrayField,
  bodyObject,
  copyParam,
  isObj,
  joinText,
  refuse,
  withMessages,
  type Obj,
} from "../shared/wire.js";
import { WHAT, addItems, assistantSide, chainRefusal, inputItems, isMessage, isType, textParts } from "./items.js";

export { WHAT, chainRefusal, inputItems, itemReferenceRefusal } from "./items.js";

export function parseResponsesRequest(raw: unknown, ids: ToolCallIds): ParsedModelRequest {
  return responsesRequestState(raw, ids).parsed;
}

/** parseResponsesRequest, keeping what responsesMoreItems continues from (`wire`: the input items). */
export function responsesRequestState(raw: unknown, ids: ToolCallIds): RequestState {
  const body = bodyObject(raw, WHAT);
  refuseRequestFields(body);
  const names = new Map<string, string>(); // provider call_id -> tool name
  const wire = inputItems(body);
  const system: string[] = [];
  if (body.instructions !== undefined && body.instructions !== null) {
    if (typeof body.instructions !== "string")
      refuse(`${WHAT}: "instructions" must be a string; pass the instructions as text.`);
    system.push(body.instructions);
  }
  let i = 0;
  for (; i < wire.length; i++) {
    const item = wire[i];
    if (!isMessage(item) || (item.role !== "system" && item.role !== "developer")) break;
    system.push(joinText(textParts(item.content, i, "a system or developer")));
  }
  const messages: Message[] = [];
  addItems(wire, i, ids, names, messages);
  const tools = arrayField(body, "tools", WHAT).map(parseTool);
  const input: ParsedModelRequest["input"] = { messages, tools };
  if (system.length > 0) input.systemPrompt = system.join("\n\n");
  if (typeof body.model === "string") input.model = body.model;
  const params = parseParams(body);
  if (Object.keys(params).length > 0) input.params = params;
  const parsed: ParsedModelRequest = { input, stream: body.stream === true, thinking: false };
  return { parsed, wire, names };
}

/**
 * The request of `state` with the input items `more` added at the end (every other field
 * unchanged), converting only `more`; undefined when they could merge into its last turn
 * (an assistant-side item after an assistant-side item, a function_call_output after a
 * function_call_output) or it has no turn yet (a system item would still join the system
 * prompt): parse the whole body then. Takes over `state.wire` and `state.names`; a refusal
 * leaves `state` unusable.
 */
export function responsesMoreItems(state: RequestState, more: unknown[], ids: ToolCallIds): RequestState | undefined {
  if (state.parsed.input.messages.length === 0) return undefined;
  const last = state.wire[state.wire.length - 1];
  const first = more[0];
  if (first === undefined) return withMessages(state, state.wire, state.parsed.input.messages.slice());
  if (assistantSide(first) && assistantSide(last)) return undefined;
  if (isType(first, "function_call_output") && isType(last, "function_call_output")) return undefined;
  const from = state.wire.length;
  const wire = appendWire(state, more);
  const messages = state.parsed.input.messages.slice();
  addItems(wire, from, ids, state.names, messages);
  return withMessages(state, wire, messages);
}

// --- refusals of whole-request fields ---

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function refuseRequestFields(body: Obj): void {
  if (present(body.previous_response_id)) chainRefusal(body.previous_response_id);
  if (body.background === true) {
    refuse(
      `${WHAT}: background: true runs the response on OpenAI's side to be fetched later, which Blackbox cannot record; not supported. Remove "background" (the call then answers directly).`,
    );
  }
  if (present(body.conversation)) {
    refuse(
      `${WHAT}: "conversation" keeps the conversation on OpenAI's servers, so Blackbox cannot see what the call sends; not supported. Send the whole history in input, or chain calls with previous_response_id (which Blackbox follows).`,
    );
  }
  if (present(body.prompt)) {
    refuse(
      `${WHAT}: "prompt" uses a prompt template stored on OpenAI's side, whose text Blackbox cannot see; not supported. Send the instructions and input in the request instead.`,
    );
  }
  const include = arrayField(body, "include", WHAT);
  if (include.includes("message.output_text.logprobs")) {
    refuse(
      `${WHAT}: include "message.output_text.logprobs" asks for log probabilities, which a replay could not give back; remove it from include.`,
    );
  }
  if (
    present(body.context_management) &&
    !(Array.isArray(body.context_management) && !body.context_management.length)
  ) {
    refuse(
      `${WHAT}: "context_management" lets OpenAI compact the conversation on its side, which a replay could not give back; not supported yet. Remove it (and trim the history yourself).`,
    );
  }
  if (present(body.moderation)) {
    refuse(
      `${WHAT}: "moderation" asks OpenAI to score or block the reply with a moderation model, whose results a replay could not give back; not supported yet. Remove it (moderate with a separate call).`,
    );
  }
}

// --- tools ---

/** Tool types that run on OpenAI's side (or take free-form input), and what to use instead. */
const SERVER_TOOLS: Record<string, [what: string, instead: string]> = {
  web_search: ["the built-in web search tool", "Search from your own function tool instead."],
  web_search_preview: ["the built-in web search tool", "Search from your own function tool instead."],
  file_search: ["the built-in file search tool", "Search your files from your own function tool instead."],
  code_interpreter: ["the built-in code interpreter", "Run code from your own function tool instead."],
  computer: ["the built-in computer use tool", "Drive the computer from your own function tools instead."],
  computer_use: ["the built-in computer use tool", "Drive the computer from your own function tools instead."],
  computer_use_preview: ["the built-in computer use tool", "Drive the computer from your own function tools instead."],
  image_generation: ["the built-in image generation tool", "Call the Images API from your own function tool instead."],
  mcp: ["a remote MCP server tool", "Call the MCP server from your own function tools instead."],
  local_shell: ["the local shell tool", "Run commands from your own function tool instead."],
  shell: ["the shell tool", "Run commands from your own function tool instead."],
  apply_patch: ["the apply_patch tool", "Apply patches from your own function tool instead."],
  custom: ["a custom tool (free-form text input)", "Use a function tool with a JSON schema instead."],
  namespace: ["a tool namespace", "List the function tools themselves instead."],
  tool_search: ["the tool search tool", "List the function tools themselves instead."],
  programmatic_tool_calling: ["programmatic tool calling", "Let the model call your function tools directly instead."],
};

function serverTool(type: unknown): [string, string] | undefined {
  if (typeof type !== "string") return undefined;
  return SERVER_TOOLS[type] ?? SERVER_TOOLS[type.replace(/_\d{4}_\d{2}_\d{2}$/, "")]; // dated versions: web_search_2025_08_26
}

function parseTool(t: unknown, i: number): ToolDefinition {
  if (!isObj(t) || t.type !== "function") {
    const type = isObj(t) ? t.type : undefined;
    const known = serverTool(type);
    if (known) {
      refuse(
        `${WHAT}: tools[${i}] is ${known[0]} (type ${JSON.stringify(type)}), which runs on OpenAI's side: a replay could not give its results back, so it is not supported yet. ${known[1]}`,
      );
    }
    refuse(
      `${WHAT}: tools[${i}] is ${isObj(t) ? `of type ${JSON.stringify(type)}` : "not an object"}, not a function tool; Blackbox records function tools ({ type: "function", name, parameters }).`,
    );
  }
  if (typeof t.name !== "string") refuse(`${WHAT}: tools[${i}] needs a string name.`);
  const def: ToolDefinition = { name: t.name, inputSchema: (t.parameters ?? {}) as JsonValue };
  if (typeof t.description === "string") def.description = t.description;
  if (typeof t.strict === "boolean") def.strict = t.strict;
  return def;
}

// --- controls ---

/** `text.format` written as chat completions' `response_format` (the same control, one neutral form). */
export function responseFormatOf(format: Obj): JsonValue {
  if (format.type !== "json_schema") return format as JsonValue;
  const { type, ...schema } = format;
  return { type: type as JsonValue, json_schema: schema as JsonValue };
}

/** The inverse of responseFormatOf: a neutral responseFormat as `text.format`. */
export function textFormatOf(format: JsonValue): JsonValue {
  if (!isObj(format) || format.type !== "json_schema" || !isObj(format.json_schema)) return format;
  return { type: "json_schema", ...format.json_schema } as JsonValue;
}

function parseParams(body: Obj): ModelParams {
  const p: ModelParams = {};
  copyParam(p, body, "max_output_tokens", "maxTokens");
  copyParam(p, body, "temperature", "temperature");
  copyParam(p, body, "top_p", "topP");
  const tc = body.tool_choice;
  if (tc === "required") p.toolChoice = "any";
  else if (typeof tc === "string") p.toolChoice = tc;
  else if (isObj(tc) && tc.type === "function" && typeof tc.name === "string") p.toolChoice = { name: tc.name };
  else if (isObj(tc)) p.toolChoice = tc as JsonValue;
  copyParam(p, body, "parallel_tool_calls", "parallelToolCalls");
  if (isObj(body.text)) {
    if (isObj(body.text.format)) p.responseFormat = responseFormatOf(body.text.format);
    copyParam(p, body.text, "verbosity", "verbosity");
  }
  if (isObj(body.reasoning)) copyParam(p, body.reasoning, "effort", "reasoningEffort");
  copyParam(p, body, "truncation", "truncation");
  copyParam(p, body, "max_tool_calls", "maxToolCalls");
  copyParam(p, body, "top_logprobs", "topLogprobs");
  return p;
}
