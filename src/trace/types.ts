/**
 * The cassette format v2 (../shared/spec/trace-format.md). Plain data only.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export type JsonObject = { [key: string]: JsonValue };

export const CURRENT_TRACE_VERSION = 2 as const;

export type TraceStepType = "model_input" | "model_output" | "tool_call" | "tool_result" | "metadata";

export const TRACE_STEP_TYPES: readonly TraceStepType[] = [
  "model_input",
  "model_output",
  "tool_call",
  "tool_result",
  "metadata",
];

export interface TraceStep {
  /** `${traceId}:${index}` */
  id: string;
  index: number;
  type: TraceStepType;
  /** Milliseconds since epoch when the step was recorded. */
  timestamp: number;
  payload: JsonValue;
  prevHash: string | null;
  hash: string;
}

export interface Trace {
  version: number;
  id: string;
  parentId?: string;
  forkedFromStepId?: string;
  createdAt: number;
  steps: TraceStep[];
}

// ---------------------------------------------------------------------------
// Structured transcript

export interface TextPart {
  type: "text";
  text: string;
}
export interface ToolUsePart {
  type: "tool_use";
  toolCallId: string;
  toolName: string;
  toolInput: JsonValue;
}
export interface ToolResultSuccessPart {
  type: "tool_result";
  toolCallId: string;
  toolName: string;
  result: JsonValue;
}
export interface ToolResultErrorPart {
  type: "tool_result";
  toolCallId: string;
  toolName: string;
  error: string;
}
export type ToolResultPart = ToolResultSuccessPart | ToolResultErrorPart;
export type MessagePart = TextPart | ToolUsePart | ToolResultPart;

export interface Message {
  role: "user" | "assistant";
  content: string | MessagePart[];
  /** The speaker's name the request gave the message (OpenAI `name`), compared in strict replay. */
  name?: string;
}

export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema: JsonValue;
  /** The provider enforces the schema on the model's arguments (OpenAI's `strict`), when the request said. */
  strict?: boolean;
}

/**
 * Request controls in neutral names (README "Neutral parameter names").
 * Only the controls present in the request are recorded.
 */
export type ModelParams = { [name: string]: JsonValue };

export interface ModelInput {
  messages: Message[];
  tools: ToolDefinition[];
  systemPrompt?: string;
  model?: string;
  params?: ModelParams;
}

// ---------------------------------------------------------------------------
// Model outputs

/**
 * How a reply stopped when it was not a plain end of turn / tool use:
 * "length" (max tokens reached) or "refusal" (OpenAI refusal; `text` holds it).
 */
export type StopKind = "length" | "refusal";

export interface ToolCall {
  toolCallId: string;
  toolName: string;
  toolInput: JsonValue;
}

/** Written by the built-in agent loop. */
export interface SingleToolCallOutput extends ToolCall {
  type: "tool_call";
}

/** Written by recorded agents (SDK wrappers), even for a single call. */
export interface ToolCallsOutput {
  type: "tool_calls";
  calls: ToolCall[];
  text?: string;
  stop?: StopKind;
}

export interface FinalAnswerOutput {
  type: "final_answer";
  text: string;
  stop?: StopKind;
}

export type ModelOutput = SingleToolCallOutput | ToolCallsOutput | FinalAnswerOutput;

// ---------------------------------------------------------------------------
// Step payloads

export interface ToolCallPayload {
  toolCallId: string;
  toolName: string;
  toolInput: JsonValue;
}
export type ToolResultPayload =
  { toolCallId: string; toolName: string; result: JsonValue } | { toolCallId: string; toolName: string; error: string };

export interface RunCompletedPayload {
  event: "run_completed";
  status: "success";
  result: JsonValue;
}
export type RunFailedPayload =
  | { event: "run_failed"; status: "error"; reason: "agent_error"; message: string }
  | { event: "run_failed"; status: "error"; reason: "process_exit"; exitCode: number }
  | { event: "run_failed"; status: "error"; reason: "calls_in_flight"; exitCode: number; inFlight: number }
  | { event: "run_failed"; status: "error"; reason: "max_steps_exceeded"; maxSteps: number }
  | { event: "run_failed"; status: "error"; reason: "unknown_tool"; toolName: string };
export type TerminalPayload = RunCompletedPayload | RunFailedPayload;
export type RunFailedReason = RunFailedPayload["reason"];

/** The objects that stand at more than one place of a trace after shareRecordedHistory (src/trace/share.ts). */
export type SharedValues = ReadonlySet<object>;
