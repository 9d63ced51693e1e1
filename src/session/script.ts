import { ForkError } from "../errors.js";
import type { JsonValue, ModelOutput, ToolCall, ToolCallsOutput } from "../trace/types.js";

const SHAPES =
  'each entry is {"type":"final_answer","text":"..."} or {"type":"tool_calls","calls":[{"toolName":"...","toolInput":{...}}],"text"?:"..."}';

function bad(i: number, what: string): ForkError {
  return new ForkError(`fork script entry ${i} is not a model output: ${what}; ${SHAPES}`);
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function callOf(c: unknown, i: number, at: string): Omit<ToolCall, "toolCallId"> {
  if (!isObj(c)) throw bad(i, `${at} is not an object`);
  if (typeof c.toolName !== "string" || c.toolName === "") throw bad(i, `${at}.toolName must be a non-empty string`);
  if (!("toolInput" in c)) throw bad(i, `${at}.toolInput is missing`);
  return { toolName: c.toolName, toolInput: c.toolInput as JsonValue };
}

function stopOf(o: Record<string, unknown>, i: number): { stop?: "length" | "refusal" } {
  if (o.stop === undefined) return {};
  if (o.stop !== "length" && o.stop !== "refusal") throw bad(i, `stop must be "length" or "refusal"`);
  return { stop: o.stop };
}

/**
 * One scripted model output, checked; tool calls come back without ids (the session
 * gives them run-local `call-N` ids when it serves them). The built-in loop's single
 * `tool_call` shape is accepted and served as `tool_calls`, as recorders write.
 */
export type ScriptedOutput =
  | { type: "final_answer"; text: string; stop?: "length" | "refusal" }
  | { type: "tool_calls"; calls: Omit<ToolCall, "toolCallId">[]; text?: string; stop?: "length" | "refusal" };

function entryOf(o: unknown, i: number): ScriptedOutput {
  if (!isObj(o)) throw bad(i, "it is not an object");
  if (o.type === "final_answer") {
    if (typeof o.text !== "string") throw bad(i, "a final_answer needs a string text");
    return { type: "final_answer", text: o.text, ...stopOf(o, i) };
  }
  if (o.type === "tool_call") return { type: "tool_calls", calls: [callOf(o, i, "the tool_call")] };
  if (o.type === "tool_calls") {
    if (!Array.isArray(o.calls) || o.calls.length === 0)
      throw bad(i, "a tool_calls output needs a non-empty calls list");
    if (o.text !== undefined && typeof o.text !== "string") throw bad(i, "text must be a string");
    const calls = o.calls.map((c, k) => callOf(c, i, `calls[${k}]`));
    return { type: "tool_calls", calls, ...(typeof o.text === "string" ? { text: o.text } : {}), ...stopOf(o, i) };
  }
  throw bad(i, `its type is ${JSON.stringify(o.type)}, not "final_answer", "tool_calls" or "tool_call"`);
}

/** The fork script: a list of model outputs, or the path of a JSON file holding one. */
export function loadScript(
  script: ModelOutput[] | string | undefined,
  readText: (path: string) => string,
): ScriptedOutput[] {
  let list: unknown = script;
  if (typeof script === "string") {
    let text: string;
    try {
      text = readText(script);
    } catch (err) {
      throw new ForkError(
        `cannot read the fork script ${script}: ${(err as Error).message}. Pass the path of a JSON list of model outputs (${SHAPES}).`,
      );
    }
    try {
      list = JSON.parse(text);
    } catch (err) {
      throw new ForkError(
        `the fork script ${script} is not valid JSON (${(err as Error).message}); it must be a JSON list of model outputs (${SHAPES}).`,
      );
    }
  }
  if (!Array.isArray(list)) throw new ForkError(`the fork script must be a JSON list of model outputs; ${SHAPES}`);
  return list.map(entryOf);
}

/** A scripted output as served: each call gets the next run-local id. */
export function withIds(entry: ScriptedOutput, nextId: () => string): ModelOutput {
  if (entry.type === "final_answer") return { ...entry };
  const out: ToolCallsOutput = { ...entry, calls: entry.calls.map((c) => ({ toolCallId: nextId(), ...c })) };
  return out;
}
