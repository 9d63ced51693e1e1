/**
 * The deprecated `functions` / `function_call` of chat completions (pure), as the tools and
 * tool call they stand for. A function_call carries no id, so a call is known by the place
 * of its assistant message: `fn#<index>` (a reply's place is the request's length,
 * ToolCallIds.functionCallSlot; response.ts).
 */
import type { ToolCallIds } from "../shared/ids.js";
import type { MessagePart, ModelParams } from "../../trace/types.js";
import { isObj, refuse, type Obj } from "../shared/wire.js";
import { resultOf, WHAT } from "./content.js";

/** A tool message, or the deprecated function message: one tool_result part. */
export function isResult(m: Obj): boolean {
  return m.role === "tool" || m.role === "function";
}

/** The deprecated function message: the result of the function_call of the assistant message before it. */
export function functionResult(wire: unknown[], m: Obj, i: number, ids: ToolCallIds): MessagePart {
  let j = i - 1;
  while (j >= 0 && isObj(wire[j]) && isResult(wire[j] as Obj)) j--;
  const a = wire[j];
  if (!isObj(a) || a.role !== "assistant" || !isObj(a.function_call)) {
    refuse(
      `${WHAT}: messages[${i}] is a function message, but the message before it is no assistant message with a function_call; send that assistant message first.`,
    );
  }
  const toolName = String(a.function_call.name);
  if (m.name !== toolName) {
    refuse(
      `${WHAT}: messages[${i}] (function) is named ${JSON.stringify(m.name)}, but the function_call it answers (messages[${j}]) calls ${JSON.stringify(toolName)}; name the function it answers.`,
    );
  }
  return { type: "tool_result", toolCallId: ids.callIdFor(`fn#${j}`), toolName, result: resultOf(m, i) };
}

/** An assistant message's deprecated function_call, as the one tool call it stands for (none: `calls`). */
export function legacyCalls(m: Obj, i: number, calls: unknown[]): unknown[] {
  if (m.function_call === undefined || m.function_call === null) return calls;
  if (calls.length > 0)
    refuse(`${WHAT}: messages[${i}] has both tool_calls and the deprecated function_call; send one.`);
  return [{ id: `fn#${i}`, type: "function", function: m.function_call }];
}

/** The deprecated function_call control, as the tool_choice it stands for (when no tool_choice is given). */
export function legacyChoice(body: Obj, p: ModelParams): void {
  if (body.tool_choice !== undefined && body.tool_choice !== null) return;
  const fc = body.function_call;
  if (fc === "auto" || fc === "none") p.toolChoice = fc;
  else if (isObj(fc) && typeof fc.name === "string") p.toolChoice = { name: fc.name };
}
