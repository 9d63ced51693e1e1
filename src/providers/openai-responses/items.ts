/**
 * OpenAI Responses API input items -> neutral messages (pure): user and assistant
 * messages, function calls and their outputs; reasoning left out. A run of consecutive
 * assistant-side items (assistant messages, function calls, reasoning) is one assistant
 * turn, its text parts first and then one tool_use part per call, as a chat completions
 * assistant message with tool_calls becomes; a run with nothing said (reasoning only, empty
 * text) is no turn. Consecutive function_call_output items are one user turn of tool_result
 * parts, each output kept exactly (a string, or a list of text parts).
 */
import type { ToolCallIds } from "../shared/ids.js";
import { parseArguments } from "../openai/request.js";
import type { Message, MessagePart, TextPart, JsonValue } from "../../trace/types.js";
import { arrayField, isObj, refuse, type Obj } from "../shared/wire.js";

export const WHAT = "OpenAI responses.create";

/** What `previous_response_id` refuses with when no response of the run carries that id. */
export function chainRefusal(id: unknown): never {
  return refuse(
    `${WHAT}: previous_response_id ${JSON.stringify(id)} names a response no call of this run returned: the chain started outside the recorded run, so the provider holds history Blackbox cannot see. ` +
      "Start the chain within the recorded run (its first call without previous_response_id), or send the whole history in input.",
  );
}

/** What an `item_reference` input item refuses with when no response of the run returned the item it names. */
export function itemReferenceRefusal(id: unknown, i: number): never {
  return refuse(
    `${WHAT}: input[${i}] is an item_reference to ${JSON.stringify(id)}, which no response of this run returned: the item is stored on OpenAI's side, and Blackbox cannot see what it holds. ` +
      "Send the item itself (the Vercel AI SDK does with providerOptions: { openai: { store: false } }).",
  );
}

/** The request's input as a list of items: a string is one user message. */
export function inputItems(body: Obj): unknown[] {
  const input = body.input;
  if (typeof input === "string") return [{ role: "user", content: input }];
  return arrayField(body, "input", WHAT);
}

export const isType = (item: unknown, type: string): boolean => isObj(item) && item.type === type;

/** A message item: `type: "message"`, or no type with a role (EasyInputMessage). */
export function isMessage(item: unknown): item is Obj {
  return isObj(item) && (item.type === "message" || (item.type === undefined && typeof item.role === "string"));
}

/** An item the model wrote: an assistant message, a function call, reasoning. */
export function assistantSide(item: unknown): boolean {
  if (!isObj(item)) return false;
  if (item.type === "function_call" || item.type === "reasoning") return true;
  return isMessage(item) && item.role === "assistant";
}

/** Input item types of OpenAI-side tools, and what to say about them. */
const SERVER_TOOL_ITEMS: Record<string, string> = {
  web_search_call: "a web search call",
  file_search_call: "a file search call",
  computer_call: "a computer use call",
  computer_call_output: "a computer use result",
  code_interpreter_call: "a code interpreter call",
  image_generation_call: "an image generation call",
  local_shell_call: "a local shell call",
  local_shell_call_output: "a local shell result",
  shell_call: "a shell call",
  shell_call_output: "a shell result",
  apply_patch_call: "an apply_patch call",
  apply_patch_call_output: "an apply_patch result",
  mcp_call: "a remote MCP call",
  mcp_list_tools: "a remote MCP tool list",
  mcp_approval_request: "a remote MCP approval request",
  mcp_approval_response: "a remote MCP approval response",
  custom_tool_call: "a custom tool call",
  custom_tool_call_output: "a custom tool result",
};

/** The assistant turn being gathered from a run of assistant-side items. */
interface OpenTurn {
  texts: TextPart[];
  calls: MessagePart[];
  /** The run's only text came as one message's string content. */
  plain: string | undefined;
  messageItems: number;
}

/** Converts the conversation items wire[from..] onto `messages`. */
export function addItems(
  wire: unknown[],
  from: number,
  ids: ToolCallIds,
  names: Map<string, string>,
  messages: Message[],
): void {
  let open: OpenTurn | undefined;
  const close = (): void => {
    if (!open) return;
    const turn = open;
    open = undefined;
    if (turn.calls.length > 0) messages.push({ role: "assistant", content: [...turn.texts, ...turn.calls] });
    else if (turn.texts.length === 0)
      return; // reasoning only, or empty text: nothing said
    else if (turn.plain !== undefined && turn.messageItems === 1)
      messages.push({ role: "assistant", content: turn.plain });
    else messages.push({ role: "assistant", content: turn.texts });
  };
  for (let i = from; i < wire.length; i++) {
    const item = wire[i];
    if (!isObj(item)) refuse(`${WHAT}: input[${i}] is not an object.`);
    if (assistantSide(item)) {
      open ??= { texts: [], calls: [], plain: undefined, messageItems: 0 };
      if (item.type === "function_call") open.calls.push(toolUse(item, i, ids, names));
      else if (item.type !== "reasoning") assistantText(item, i, open); // reasoning: left out
      continue;
    }
    close();
    if (item.type === "function_call_output") {
      const part = toolResult(item, i, ids, names);
      const last = messages[messages.length - 1];
      if (last && isType(wire[i - 1], "function_call_output") && Array.isArray(last.content)) last.content.push(part);
      else messages.push({ role: "user", content: [part] });
    } else if (isMessage(item)) {
      if (item.role === "user") messages.push({ role: "user", content: userContent(item.content, i) });
      else if (item.role === "system" || item.role === "developer") {
        refuse(
          `${WHAT}: input[${i}] is a ${item.role} message after the conversation started; not supported yet. Put all system/developer messages at the start of input (or in instructions).`,
        );
      } else
        refuse(
          `${WHAT}: input[${i}] has role ${JSON.stringify(item.role)}; Blackbox records system, developer, user and assistant messages.`,
        );
    } else refuseItem(item, i);
  }
  close();
}

function refuseItem(item: Obj, i: number): never {
  const type = item.type;
  if (type === "item_reference") itemReferenceRefusal(item.id, i);
  const what = typeof type === "string" ? SERVER_TOOL_ITEMS[type] : undefined;
  if (what !== undefined) {
    refuse(
      `${WHAT}: input[${i}] is ${what} (${JSON.stringify(type)}); OpenAI-side and custom tools are not supported yet. Use function tools (function_call / function_call_output items).`,
    );
  }
  refuse(
    `${WHAT}: input[${i}] is an item of type ${JSON.stringify(type)}; Blackbox records messages, reasoning, function_call and function_call_output items.`,
  );
}

/** Text parts of a content list; refuses image, file and audio parts. */
export function textParts(content: unknown, i: number, whose: string): TextPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) refuse(`${WHAT}: input[${i}].content must be a string or a list of parts.`);
  return content.map((p, k) => {
    if (isObj(p) && (p.type === "input_text" || p.type === "output_text") && typeof p.text === "string")
      return { type: "text", text: p.text };
    if (isObj(p) && p.type === "refusal" && typeof p.refusal === "string") return { type: "text", text: p.refusal };
    return refusePart(p, `input[${i}].content[${k}]`, whose);
  });
}

function refusePart(p: unknown, where: string, whose: string): never {
  const type = isObj(p) ? p.type : undefined;
  if (type === "input_image" || type === "input_file" || type === "input_audio") {
    refuse(
      `${WHAT}: ${where} is an ${String(type)} part; image, file and audio inputs are not supported yet. Send text only (input_text).`,
    );
  }
  refuse(
    `${WHAT}: ${where} is ${isObj(p) ? `a ${JSON.stringify(type)} part` : "not an object"}; ${whose} message holds text parts (input_text, output_text, refusal).`,
  );
}

function userContent(content: unknown, i: number): string | MessagePart[] {
  if (typeof content === "string") return content;
  return textParts(content, i, "a user");
}

function assistantText(item: Obj, i: number, turn: OpenTurn): void {
  turn.messageItems++;
  if (typeof item.content === "string") {
    if (item.content !== "") turn.texts.push({ type: "text", text: item.content });
    turn.plain = item.content;
    return;
  }
  for (const p of textParts(item.content, i, "an assistant")) if (p.text !== "") turn.texts.push(p);
}

function toolUse(item: Obj, i: number, ids: ToolCallIds, names: Map<string, string>): MessagePart {
  if (typeof item.call_id !== "string" || typeof item.name !== "string") {
    refuse(`${WHAT}: input[${i}] (function_call) needs a string call_id and name, as the API returned them.`);
  }
  names.set(item.call_id, item.name);
  return {
    type: "tool_use",
    toolCallId: ids.callIdFor(item.call_id),
    toolName: item.name,
    toolInput: parseArguments(item.arguments),
  };
}

function toolResult(item: Obj, i: number, ids: ToolCallIds, names: Map<string, string>): MessagePart {
  const wireId = item.call_id;
  if (typeof wireId !== "string") refuse(`${WHAT}: input[${i}] (function_call_output) needs a string call_id.`);
  const toolName = names.get(wireId);
  if (toolName === undefined) {
    refuse(
      `${WHAT}: input[${i}] answers call_id ${JSON.stringify(wireId)}, which no earlier function_call item has; send that function_call item first (or continue its response with previous_response_id).`,
    );
  }
  let result: JsonValue;
  const out = item.output;
  if (typeof out === "string") result = out;
  else if (Array.isArray(out)) {
    result = out.map((p, k) => {
      if (isObj(p) && p.type === "input_text" && typeof p.text === "string") return { type: "text", text: p.text };
      return refusePart(p, `input[${i}].output[${k}]`, "a function_call_output");
    });
  } else result = "";
  return { type: "tool_result", toolCallId: ids.callIdFor(wireId), toolName, result };
}
