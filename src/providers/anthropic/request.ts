/**
 * Anthropic Messages API request body -> neutral ModelInput (pure).
 *
 * Kept exactly: message text (a string stays a string, text blocks stay text parts),
 * tool_result content (a string stays a string, an array of text blocks stays an array
 * of `{type:"text", text}`). Dropped: thinking / redacted_thinking blocks, cache_control,
 * citations, metadata, service_tier and every other field not listed in the params below.
 * `system` given as text blocks is joined with no separator.
 */
import type { ToolCallIds } from "../shared/ids.js";
import type { ParsedModelRequest, RequestState } from "../types.js";
import type { JsonValue, Message, MessagePart, ModelParams, TextPart, ToolDefinition } from "../../trace/types.js";
import {
  appendWire,
  arrayField,
  bodyObject,
  copyParam,
  isObj,
  joinText,
  refuse,
  stopList,
  textPart,
  withMessages,
  type Obj,
} from "../shared/wire.js";

const WHAT = "Anthropic messages.create";

export function parseAnthropicRequest(raw: unknown, ids: ToolCallIds): ParsedModelRequest {
  return anthropicRequestState(raw, ids).parsed;
}

/** parseAnthropicRequest, keeping what anthropicMoreMessages continues from. */
export function anthropicRequestState(raw: unknown, ids: ToolCallIds): RequestState {
  const body = bodyObject(raw, WHAT);
  if (body.mcp_servers !== undefined && body.mcp_servers !== null) {
    refuse(
      `${WHAT}: "mcp_servers" runs server-side tools (the MCP connector), which a replay could not give back; not supported yet. Call the MCP server from your own (custom) tool instead.`,
    );
  }
  if (body.compaction !== undefined && body.compaction !== null) {
    // refused before it is sent: the reply is a compaction block, which a replay could not give back
    refuse(
      `${WHAT}: "compaction" asks for a summary of the conversation (the tool runner's compactBeforeNextTurn()), which Blackbox does not support yet; leave the conversation uncompacted while recording.`,
    );
  }
  if (body.container !== undefined && body.container !== null) {
    refuse(
      `${WHAT}: "container" is for server-side code execution, which a replay could not give back; not supported yet. Run code in your own (custom) tool instead.`,
    );
  }
  const names = new Map<string, string>(); // provider tool_use id -> tool name
  const wire = arrayField(body, "messages", WHAT);
  const messages: Message[] = [];
  addMessages(wire, 0, ids, names, messages);
  const tools = arrayField(body, "tools", WHAT).map(parseTool);
  const input: ParsedModelRequest["input"] = { messages, tools };
  const system = parseSystem(body.system);
  if (system !== undefined) input.systemPrompt = system;
  if (typeof body.model === "string") input.model = body.model;
  const params = parseParams(body);
  if (Object.keys(params).length > 0) input.params = params;
  const thinking = isObj(body.thinking) && body.thinking.type !== undefined && body.thinking.type !== "disabled";
  return { parsed: { input, stream: body.stream === true, thinking }, wire, names };
}

/**
 * The request of `state` with the wire messages `more` added at the end of its messages
 * (every other field unchanged): exactly what parseAnthropicRequest gives for that body,
 * converting only `more`. Takes over `state.wire` and `state.names`; a refusal leaves
 * `state` unusable.
 */
export function anthropicMoreMessages(state: RequestState, more: unknown[], ids: ToolCallIds): RequestState {
  const from = state.wire.length;
  const wire = appendWire(state, more);
  const messages = state.parsed.input.messages.slice();
  addMessages(wire, from, ids, state.names, messages);
  return withMessages(state, wire, messages);
}

function addMessages(
  wire: unknown[],
  from: number,
  ids: ToolCallIds,
  names: Map<string, string>,
  out: Message[],
): void {
  for (let i = from; i < wire.length; i++) out.push(parseMessage(wire[i], i, ids, names));
}

function parseSystem(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v;
  if (!Array.isArray(v)) refuse(`${WHAT}: "system" must be a string or a list of text blocks.`);
  return joinText(
    v.map((b, i) => {
      if (!isObj(b) || b.type !== "text") {
        refuse(`${WHAT}: system block ${i} is not a text block; Blackbox records a text-only system prompt.`);
      }
      return textAt(b, () => `system[${i}]`);
    }),
  );
}

function parseMessage(m: unknown, i: number, ids: ToolCallIds, names: Map<string, string>): Message {
  if (!isObj(m)) refuse(`${WHAT}: messages[${i}] is not an object.`);
  const role = m.role;
  if (role === "system") {
    // what the tool runner's addTools() / removeTools() send: the tool list changes mid-conversation, which a
    // cassette's tools cannot say
    refuse(
      `${WHAT}: messages[${i}] is a "system" message, which Blackbox does not support yet: a system prompt goes in "system", and the tool runner's addTools() and removeTools() (which send their tool_addition / tool_removal blocks in one) cannot be recorded; give the runner all its tools in "tools" from the start.`,
    );
  }
  if (role !== "user" && role !== "assistant") {
    refuse(
      `${WHAT}: messages[${i}] has role ${JSON.stringify(role)}; use "user" or "assistant" (the system prompt goes in "system").`,
    );
  }
  if (typeof m.content === "string") return { role, content: m.content };
  if (!Array.isArray(m.content)) refuse(`${WHAT}: messages[${i}].content must be a string or a list of blocks.`);
  const parts: MessagePart[] = [];
  for (let j = 0; j < m.content.length; j++) {
    const part = parseBlock(m.content[j], i, j, ids, names);
    if (part) parts.push(part);
  }
  return { role, content: parts };
}

/** The location of block j of message i, built only when refusing. */
const at = (i: number, j: number): string => `messages[${i}].content[${j}]`;

/** textPart, with the location built only when refusing. */
function textAt(b: Obj, where: () => string): TextPart {
  return typeof b.text === "string" ? { type: "text", text: b.text } : textPart(b, where());
}

function parseBlock(
  b: unknown,
  i: number,
  j: number,
  ids: ToolCallIds,
  names: Map<string, string>,
): MessagePart | undefined {
  if (!isObj(b)) refuse(`${WHAT}: ${at(i, j)} is not a content block object.`);
  switch (b.type) {
    case "text":
      return textAt(b, () => at(i, j));
    case "thinking":
    case "redacted_thinking":
      return undefined; // thinking blocks are left out of the cassette
    case "tool_use": {
      if (typeof b.id !== "string" || typeof b.name !== "string")
        refuse(`${WHAT}: ${at(i, j)} tool_use needs a string id and name.`);
      names.set(b.id, b.name);
      return {
        type: "tool_use",
        toolCallId: ids.callIdFor(b.id),
        toolName: b.name,
        toolInput: (b.input === undefined ? {} : b.input) as JsonValue,
      };
    }
    case "tool_result":
      return parseToolResult(b, i, j, ids, names);
    case "image":
    case "document":
      return refuse(
        `${WHAT}: ${at(i, j)} is an ${b.type} block; images and documents are not supported yet. Send text only (e.g. describe or extract the content first).`,
      );
    default:
      return refuse(
        `${WHAT}: ${at(i, j)} is a ${JSON.stringify(b.type)} block, which Blackbox cannot record (server-side tools, images and documents are not supported yet); use text, tool_use and tool_result blocks with your own tools.`,
      );
  }
}

function parseToolResult(b: Obj, i: number, j: number, ids: ToolCallIds, names: Map<string, string>): MessagePart {
  const where = (): string => at(i, j);
  const wireId = b.tool_use_id;
  if (typeof wireId !== "string") refuse(`${WHAT}: ${where()} tool_result needs a string tool_use_id.`);
  const toolName = names.get(wireId);
  if (toolName === undefined) {
    refuse(
      `${WHAT}: ${where()} answers tool_use_id ${JSON.stringify(wireId)}, which no earlier tool_use in the request has; send the assistant turn with that tool_use first.`,
    );
  }
  const toolCallId = ids.callIdFor(wireId);
  let result: JsonValue;
  if (b.content === undefined || b.content === null) result = "";
  else if (typeof b.content === "string") result = b.content;
  else if (Array.isArray(b.content)) {
    result = b.content.map((c, k) => {
      if (!isObj(c) || c.type !== "text") {
        refuse(
          `${WHAT}: ${where()}.content[${k}] is not a text block; tool results with images or documents are not supported yet. Return text (e.g. JSON) from the tool.`,
        );
      }
      return textAt(c, () => `${where()}.content[${k}]`) as unknown as JsonValue;
    });
  } else refuse(`${WHAT}: ${where()}.content must be a string or a list of text blocks.`);
  if (b.is_error === true) {
    const error = typeof result === "string" ? result : joinText(result as unknown as { text: string }[]);
    return { type: "tool_result", toolCallId, toolName, error };
  }
  return { type: "tool_result", toolCallId, toolName, result };
}

/**
 * The Anthropic-defined tools your code runs (bash, text editor, memory): not server-side, the reply is a
 * plain tool_use.
 */
const CLIENT_TOOL_TYPE = /^(bash|text_editor|memory)_\d+$/;

function parseTool(t: unknown, i: number): ToolDefinition {
  if (!isObj(t)) refuse(`${WHAT}: tools[${i}] is not an object.`);
  if (typeof t.type === "string" && /^computer_\d+$/.test(t.type)) {
    refuse(
      `${WHAT}: tools[${i}] is Anthropic's computer-use tool (${JSON.stringify(t.type)}), whose results are screenshots: images are not supported yet. Run without computer use while recording.`,
    );
  }
  if (t.strict === true) {
    refuse(
      `${WHAT}: tools[${i}] (${String(t.name)}) sets strict: true, which Blackbox does not support yet; remove "strict" from the tool definition.`,
    );
  }
  if (typeof t.type === "string" && CLIENT_TOOL_TYPE.test(t.type)) return anthropicDefinedTool(t, i);
  if (t.type !== undefined && t.type !== null && t.type !== "custom") {
    refuse(
      `${WHAT}: tools[${i}] is a server-side tool (${JSON.stringify(t.type)}), which a replay could not give back; not supported yet. Implement it as your own (custom) tool.`,
    );
  }
  if (typeof t.name !== "string") refuse(`${WHAT}: tools[${i}] needs a string name.`);
  const def: ToolDefinition = { name: t.name, inputSchema: (t.input_schema ?? {}) as JsonValue };
  if (typeof t.description === "string") def.description = t.description;
  return def;
}

/**
 * An Anthropic-defined tool your code runs: its input schema is Anthropic's, named by its
 * type, so the type and the tool's own settings (max_characters ...) stand as its schema,
 * `{"anthropicDefined": "text_editor_20250728", ...}`; compared like any schema, so a
 * replay whose agent asks for another version of the tool diverges there.
 */
function anthropicDefinedTool(t: Obj, i: number): ToolDefinition {
  if (typeof t.name !== "string") refuse(`${WHAT}: tools[${i}] needs a string name.`);
  const { type, name: _name, cache_control: _cache, ...settings } = t;
  return { name: t.name, inputSchema: { anthropicDefined: type, ...settings } as JsonValue };
}

function parseParams(body: Obj): ModelParams {
  const p: ModelParams = {};
  copyParam(p, body, "max_tokens", "maxTokens");
  copyParam(p, body, "temperature", "temperature");
  copyParam(p, body, "top_p", "topP");
  copyParam(p, body, "top_k", "topK");
  if (isObj(body.tool_choice)) {
    const tc = body.tool_choice;
    if (tc.type === "tool") p.toolChoice = { name: tc.name as JsonValue };
    else if (typeof tc.type === "string") p.toolChoice = tc.type;
    if (tc.disable_parallel_tool_use === true) p.parallelToolCalls = false;
  }
  const stops = stopList(body.stop_sequences);
  if (stops !== undefined) p.stopSequences = stops;
  copyParam(p, body, "output_config", "outputConfig");
  copyParam(p, body, "thinking", "thinking");
  return p;
}
