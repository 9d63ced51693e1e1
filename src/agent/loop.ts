/**
 * The built-in agent loop: model turn, tool round, model turn ... until a final
 * answer, an unknown tool or the turn limit. It writes every step into a
 * TraceBuilder; timestamps come from an injected clock, so the loop itself does
 * no I/O and a replay can hand it the recorded timestamps.
 */
import { TraceBuilder } from "../trace/builder.js";
import { callId, toolCallsOf } from "../trace/payloads.js";
import type {
  JsonValue,
  Message,
  MessagePart,
  ModelInput,
  ModelOutput,
  ToolCall,
  ToolDefinition,
  ToolResultPayload,
  Trace,
  TraceStepType,
} from "../trace/types.js";
import type { ModelClient } from "./modelClient.js";

export type ToolFn = (input: JsonValue) => Promise<JsonValue> | JsonValue;
export type ToolMap = Record<string, ToolFn>;

/** Model turns a run may take (a fork counts the turns of its copied prefix too). */
export const DEFAULT_MAX_STEPS = 10;

export interface LoopOptions {
  client: ModelClient;
  tools: ToolMap;
  /** Milliseconds since epoch; called once for every step appended. */
  now: () => number;
  maxSteps?: number;
}

/** Where the loop stands: the request fields, the history so far, turns taken, next call-N. */
export interface LoopState {
  base: Omit<ModelInput, "messages">;
  messages: Message[];
  turns: number;
  nextCallIndex: number;
}

export interface RunAgentOptions extends LoopOptions {
  traceId: string;
  task: string;
  toolDefinitions: ToolDefinition[];
  systemPrompt?: string;
  model?: string;
  /** First call-N to hand out (default 0). */
  firstCallIndex?: number;
}

/** Runs the built-in agent on a task from scratch and returns the finished trace. */
export async function runAgent(options: RunAgentOptions): Promise<Trace> {
  const builder = new TraceBuilder({ id: options.traceId, createdAt: options.now() });
  const base: Omit<ModelInput, "messages"> = { tools: options.toolDefinitions };
  if (options.systemPrompt !== undefined) base.systemPrompt = options.systemPrompt;
  if (options.model !== undefined) base.model = options.model;
  const state: LoopState = {
    base,
    messages: [{ role: "user", content: options.task }],
    turns: 0,
    nextCallIndex: options.firstCallIndex ?? 0,
  };
  return continueLoop(builder, state, options);
}

/** The assistant turn and the user turn one finished tool round adds to the history. */
export function roundMessages(calls: ToolCall[], text: string | undefined, results: ToolResultPayload[]): Message[] {
  const uses: MessagePart[] = calls.map((c) => ({
    type: "tool_use",
    toolCallId: c.toolCallId,
    toolName: c.toolName,
    toolInput: c.toolInput,
  }));
  if (text) uses.unshift({ type: "text", text });
  const parts: MessagePart[] = results.map((r) => ({ type: "tool_result", ...r }) as MessagePart);
  return [
    { role: "assistant", content: uses },
    { role: "user", content: parts },
  ];
}

/** Runs the loop from `state`, appending to `builder`, until the run ends. */
export async function continueLoop(builder: TraceBuilder, state: LoopState, options: LoopOptions): Promise<Trace> {
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const messages = [...state.messages];
  let turns = state.turns;
  let nextCall = state.nextCallIndex;
  // Each step gets its own copy: no two payloads share an object, so editing one never edits another.
  const append = (type: TraceStepType, payload: JsonValue) =>
    builder.append(type, structuredClone(payload), options.now());

  for (;;) {
    if (turns >= maxSteps) {
      append("metadata", { event: "run_failed", status: "error", reason: "max_steps_exceeded", maxSteps });
      return builder.trace;
    }
    const input: ModelInput = { messages: structuredClone(messages), ...state.base };
    append("model_input", input as unknown as JsonValue);
    const output = await options.client.generate(structuredClone(input));
    turns++;

    if (output?.type === "final_answer") {
      const payload: JsonValue = { type: "final_answer", text: output.text };
      if (output.stop !== undefined) payload.stop = output.stop;
      append("model_output", payload);
      append("metadata", { event: "run_completed", status: "success", result: output.text });
      return builder.trace;
    }

    const calls = toolCallsOf(output).map((c) => ({ ...c, toolCallId: callId(nextCall++) }));
    if (calls.length === 0) {
      throw new Error(
        `The model client returned ${JSON.stringify(output)}, which is neither a tool call nor a final answer. ` +
          `Return { type: "tool_call", toolName, toolInput } or { type: "final_answer", text }.`,
      );
    }
    append("model_output", outputPayload(output, calls));

    const unknown = calls.find((c) => !Object.hasOwn(options.tools, c.toolName));
    if (unknown) {
      append("metadata", { event: "run_failed", status: "error", reason: "unknown_tool", toolName: unknown.toolName });
      return builder.trace;
    }

    const results: ToolResultPayload[] = [];
    for (const call of calls) {
      append("tool_call", { toolCallId: call.toolCallId, toolName: call.toolName, toolInput: call.toolInput });
      const result = await runTool(options.tools[call.toolName]!, call);
      append("tool_result", result as JsonValue);
      results.push(result);
    }
    const text = output.type === "tool_calls" ? output.text : undefined;
    messages.push(...roundMessages(calls, text, results));
  }
}

function outputPayload(output: ModelOutput, calls: ToolCall[]): JsonValue {
  if (output.type === "tool_call") {
    const c = calls[0]!;
    return { type: "tool_call", toolCallId: c.toolCallId, toolName: c.toolName, toolInput: c.toolInput };
  }
  const payload: JsonValue = { type: "tool_calls", calls: calls as unknown as JsonValue };
  if (output.type === "tool_calls" && output.text !== undefined) payload.text = output.text;
  if (output.type === "tool_calls" && output.stop !== undefined) payload.stop = output.stop;
  return payload;
}

/** Runs one tool; a throw becomes the error variant carrying the message. */
async function runTool(fn: ToolFn, call: ToolCall): Promise<ToolResultPayload> {
  const head = { toolCallId: call.toolCallId, toolName: call.toolName };
  try {
    const value = await fn(structuredClone(call.toolInput));
    return { ...head, result: toJson(value) };
  } catch (error) {
    return { ...head, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Tool results are stored as JSON: undefined becomes null, a Date its ISO string. */
function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}
