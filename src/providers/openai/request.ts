/**
 * OpenAI Chat Completions request body -> neutral ModelInput (pure).
 *
 * - Leading system/developer messages -> systemPrompt, joined with "\n\n" (each message's
 *   text parts joined with no separator). Later ones are refused.
 * - An assistant message with tool_calls -> one assistant turn: a text part first when it
 *   had text, then one tool_use part per call. Consecutive `tool` messages -> one user
 *   turn of tool_result parts (content kept exactly: string, or a list of text parts).
 * - function.arguments (a JSON string) -> the parsed value; arguments that are not valid
 *   JSON are kept as the raw string (and given back as that string).
 * - A user's or assistant's `name` -> the message's name (compared in strict replay); a name on
 *   a system/developer message, or a tool message's other than its tool's, is refused.
 * - The deprecated `functions` / `function_call` -> tools / toolChoice, and an assistant
 *   message's function_call -> its one tool_use (functions.ts).
 * - null values of optional fields count as absent.
 */
import type { ToolCallIds } from "../shared/ids.js";
import type { ParsedModelRequest, RequestState } from "../types.js";
import type { JsonValue, Message, MessagePart, ModelParams, ToolDefinition } from "../../trace/types.js";
import { contentText, resultOf, textParts, userContent, WHAT } from "./content.js";
import { functionResult, isResult, legacyCalls, legacyChoice } from "./functions.js";
import {
  appendWire,
  arrayField,
  bodyObject,
  copyParam,
  isObj,
  refuse,
  stopList,
  withMessages,
  type Obj,
} from "../shared/wire.js";

/** function.arguments -> toolInput: parsed JSON, or the raw string when it is not JSON. */
export function parseArguments(args: unknown): JsonValue {
  if (typeof args !== "string") return (args ?? {}) as JsonValue;
  try {
    return JSON.parse(args) as JsonValue;
  } catch {
    return args;
  }
}

export function parseOpenAIRequest(raw: unknown, ids: ToolCallIds): ParsedModelRequest {
  return openAIRequestState(raw, ids).parsed;
}

/** parseOpenAIRequest, keeping what openAIMoreMessages continues from. */
export function openAIRequestState(raw: unknown, ids: ToolCallIds): RequestState {
  const body = bodyObject(raw, WHAT);
  if (body.web_search_options !== undefined && body.web_search_options !== null) {
    refuse(
      `${WHAT}: "web_search_options" makes the model search the web server-side, which a replay could not give back; not supported yet. Search from your own function tool instead.`,
    );
  }
  if (typeof body.n === "number" && body.n > 1)
    refuse(`${WHAT}: n = ${body.n} asks for several choices; not supported yet. Make one request per choice (n: 1).`);
  if (body.logprobs === true)
    refuse(`${WHAT}: logprobs: true asks for log probabilities, which a replay could not give back; remove logprobs.`);
  if (Array.isArray(body.modalities) && body.modalities.includes("audio")) {
    refuse(`${WHAT}: audio output (modalities ["audio"]) is not supported yet; ask for text only.`);
  }
  // the deprecated functions: the same definitions as function tools (a reply's call goes back as function_call)
  const legacy = body.functions !== undefined && body.functions !== null;
  if (legacy && Array.isArray(body.tools) && body.tools.length > 0)
    refuse(`${WHAT}: both "tools" and the deprecated "functions" are given; pass one of them.`);
  const names = new Map<string, string>(); // provider call id -> tool name
  const wire = arrayField(body, "messages", WHAT);
  const system: string[] = [];
  const messages: Message[] = [];
  let i = 0;
  for (; i < wire.length; i++) {
    const m = wire[i];
    if (!isObj(m) || (m.role !== "system" && m.role !== "developer")) break;
    noName(m, i);
    system.push(contentText(m.content, i));
  }
  addMessages(wire, i, ids, names, messages);
  ids.functionCallSlot = wire.length;
  const tools = legacy
    ? arrayField(body, "functions", WHAT).map((f, k) => parseTool({ type: "function", function: f }, k, "functions"))
    : arrayField(body, "tools", WHAT).map((t, k) => parseTool(t, k));
  const input: ParsedModelRequest["input"] = { messages, tools };
  if (system.length > 0) input.systemPrompt = system.join("\n\n");
  if (typeof body.model === "string") input.model = body.model;
  const params = parseParams(body);
  if (Object.keys(params).length > 0) input.params = params;
  const parsed: ParsedModelRequest = { input, stream: body.stream === true, thinking: false };
  if (isObj(body.stream_options) && body.stream_options.include_usage === true) parsed.streamUsage = true;
  if (legacy) parsed.functionCall = true;
  return { parsed, wire, names };
}

/**
 * The request of `state` with the wire messages `more` added at the end (every other
 * field unchanged), converting only `more`; undefined when they could merge into its
 * last turn (a tool message after a tool message) or it has no turn yet (a system
 * message would still join the system prompt): parse the whole body then. Takes over
 * `state.wire` and `state.names`; a refusal leaves `state` unusable.
 */
export function openAIMoreMessages(state: RequestState, more: unknown[], ids: ToolCallIds): RequestState | undefined {
  if (state.parsed.input.messages.length === 0) return undefined;
  const last = state.wire[state.wire.length - 1];
  const first = more[0];
  if (isObj(first) && isResult(first) && isObj(last) && isResult(last)) return undefined;
  const from = state.wire.length;
  const wire = appendWire(state, more);
  const messages = state.parsed.input.messages.slice();
  addMessages(wire, from, ids, state.names, messages);
  ids.functionCallSlot = wire.length;
  return withMessages(state, wire, messages);
}

/** Converts the conversation messages wire[from..] onto `messages` (consecutive tool messages make one turn). */
function addMessages(
  wire: unknown[],
  from: number,
  ids: ToolCallIds,
  names: Map<string, string>,
  messages: Message[],
): void {
  for (let i = from; i < wire.length; i++) {
    const m = wire[i];
    if (!isObj(m)) refuse(`${WHAT}: messages[${i}] is not an object.`);
    // a tool message may name the tool it answers (LangChain's ChatOpenAI does on every one): the tool step
    // holds that name already; a user or assistant message's name is recorded in it (named below)
    if (m.role === "tool" && !(typeof m.tool_call_id === "string" && m.name === names.get(m.tool_call_id)))
      noName(m, i);
    if (isResult(m)) {
      const part = m.role === "tool" ? toolResult(m, i, ids, names) : functionResult(wire, m, i, ids);
      const last = messages[messages.length - 1];
      const prev = wire[i - 1];
      if (last && isObj(prev) && isResult(prev) && Array.isArray(last.content)) last.content.push(part);
      else messages.push({ role: "user", content: [part] });
    } else if (m.role === "user") messages.push(named({ role: "user", content: userContent(m.content, i) }, m, i));
    else if (m.role === "assistant") messages.push(named(assistant(m, i, ids, names), m, i));
    else if (m.role === "system" || m.role === "developer") {
      refuse(
        `${WHAT}: messages[${i}] is a ${m.role} message after the conversation started; not supported yet. Put all system/developer messages at the start.`,
      );
    } else
      refuse(
        `${WHAT}: messages[${i}] has role ${JSON.stringify(m.role)}; Blackbox records system, developer, user, assistant and tool messages.`,
      );
  }
}

/** A user or assistant message's `name` (LangChain 1.x's createAgent puts name: "model" on each AI message), kept. */
function named(message: Message, m: Obj, i: number): Message {
  if (m.name === undefined || m.name === null) return message;
  if (typeof m.name !== "string")
    refuse(`${WHAT}: messages[${i}].name must be a string, not ${JSON.stringify(m.name)}.`);
  message.name = m.name;
  return message;
}

function noName(m: Obj, i: number): void {
  if (m.name !== undefined && m.name !== null) {
    const why =
      m.role === "tool"
        ? "a tool message's name must be the name of the tool call it answers"
        : "the system prompt is recorded as one text, so a system or developer message's name has nowhere to go; not supported yet";
    refuse(
      `${WHAT}: messages[${i}] (${String(m.role)}) carries a name (${JSON.stringify(m.name)}): ${why}. Remove "name" from that message (user and assistant messages may keep theirs).`,
    );
  }
}

function assistant(m: Obj, i: number, ids: ToolCallIds, names: Map<string, string>): Message {
  if (m.audio !== undefined && m.audio !== null)
    refuse(`${WHAT}: messages[${i}] carries audio; audio is not supported yet.`);
  const listed = Array.isArray(m.tool_calls) ? m.tool_calls : arrayField(m, "tool_calls", `${WHAT} messages[${i}]`); // the label only when refusing
  const calls = legacyCalls(m, i, listed); // the deprecated function_call, as its one call
  let content: string | MessagePart[];
  if (m.content === undefined || m.content === null) content = typeof m.refusal === "string" ? m.refusal : "";
  else if (typeof m.content === "string") content = m.content;
  else if (Array.isArray(m.content)) content = textParts(m.content, i);
  else refuse(`${WHAT}: messages[${i}].content must be a string, null or a list of text parts.`);
  if (calls.length === 0) return { role: "assistant", content };
  const parts: MessagePart[] =
    typeof content === "string" ? (content === "" ? [] : [{ type: "text", text: content }]) : content;
  calls.forEach((c, k) => {
    if (!isObj(c) || c.type !== "function" || !isObj(c.function) || typeof c.id !== "string") {
      refuse(
        `${WHAT}: messages[${i}].tool_calls[${k}] is not a function tool call; custom tools are not supported yet. Use function tools.`,
      );
    }
    const name = String(c.function.name);
    names.set(c.id, name);
    parts.push({
      type: "tool_use",
      toolCallId: ids.callIdFor(c.id),
      toolName: name,
      toolInput: parseArguments(c.function.arguments),
    });
  });
  return { role: "assistant", content: parts };
}

function toolResult(m: Obj, i: number, ids: ToolCallIds, names: Map<string, string>): MessagePart {
  const wireId = m.tool_call_id;
  if (typeof wireId !== "string") refuse(`${WHAT}: messages[${i}] (tool) needs a string tool_call_id.`);
  const toolName = names.get(wireId);
  if (toolName === undefined) {
    refuse(
      `${WHAT}: messages[${i}] answers tool_call_id ${JSON.stringify(wireId)}, which no earlier assistant tool_calls has; send that assistant message first.`,
    );
  }
  return { type: "tool_result", toolCallId: ids.callIdFor(wireId), toolName, result: resultOf(m, i) };
}

function parseTool(t: unknown, i: number, field = "tools"): ToolDefinition {
  if (!isObj(t) || t.type !== "function" || !isObj(t.function)) {
    const type = isObj(t) ? JSON.stringify(t.type) : "a non-object";
    refuse(
      `${WHAT}: tools[${i}] is ${type}, not a function tool; custom tools are not supported yet. Use { type: "function", function: {...} }.`,
    );
  }
  const f = t.function;
  if (typeof f.name !== "string")
    refuse(`${WHAT}: ${field}[${i}]${field === "tools" ? ".function" : ""} needs a string name.`);
  const def: ToolDefinition = { name: f.name, inputSchema: (f.parameters ?? {}) as JsonValue };
  if (typeof f.description === "string") def.description = f.description;
  if (typeof f.strict === "boolean") def.strict = f.strict; // compared, as the Responses API's
  return def;
}

function parseParams(body: Obj): ModelParams {
  const p: ModelParams = {};
  copyParam(p, body, "max_tokens", "maxTokens");
  copyParam(p, body, "max_completion_tokens", "maxTokens");
  copyParam(p, body, "temperature", "temperature");
  copyParam(p, body, "top_p", "topP");
  const tc = body.tool_choice;
  if (tc === "required") p.toolChoice = "any";
  else if (typeof tc === "string") p.toolChoice = tc;
  else if (isObj(tc) && tc.type === "function" && isObj(tc.function))
    p.toolChoice = { name: tc.function.name as JsonValue };
  else if (isObj(tc)) p.toolChoice = tc as JsonValue;
  legacyChoice(body, p); // the deprecated function_call, as the tool_choice it stands for
  copyParam(p, body, "parallel_tool_calls", "parallelToolCalls");
  const stops = stopList(body.stop);
  if (stops !== undefined) p.stopSequences = stops;
  copyParam(p, body, "response_format", "responseFormat");
  copyParam(p, body, "seed", "seed");
  copyParam(p, body, "reasoning_effort", "reasoningEffort");
  copyParam(p, body, "presence_penalty", "presencePenalty");
  copyParam(p, body, "frequency_penalty", "frequencyPenalty");
  copyParam(p, body, "logit_bias", "logitBias");
  copyParam(p, body, "logprobs", "logprobs");
  copyParam(p, body, "top_logprobs", "topLogprobs");
  copyParam(p, body, "verbosity", "verbosity");
  copyParam(p, body, "prediction", "prediction");
  copyParam(p, body, "modalities", "modalities");
  return p;
}
