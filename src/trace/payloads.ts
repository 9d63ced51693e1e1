import type { JsonValue, ModelOutput, StopKind, TerminalPayload, ToolCall, Trace, TraceStep } from "./types.js";

/** How many model calls (model_input steps) and tool calls (tool_call steps) a run holds. */
export function callCounts(steps: readonly TraceStep[]): { models: number; tools: number } {
  let models = 0;
  let tools = 0;
  for (const s of steps) {
    if (s.type === "model_input") models++;
    else if (s.type === "tool_call") tools++;
  }
  return { models, tools };
}

/** A fork child's fork point: the number after the last ":" of its forkedFromStepId, else undefined. */
export function forkIndexOf(trace: Pick<Trace, "forkedFromStepId">): number | undefined {
  const m = trace.forkedFromStepId ? /:(\d+)$/.exec(trace.forkedFromStepId) : null;
  return m ? Number(m[1]) : undefined;
}

/** Every tool call of a model output, whichever of the two shapes it has. */
export function toolCallsOf(output: ModelOutput | JsonValue): ToolCall[] {
  if (output === null || typeof output !== "object" || Array.isArray(output)) return [];
  const o = output as Record<string, unknown>;
  if (o.type === "tool_call") {
    return [
      { toolCallId: o.toolCallId as string, toolName: o.toolName as string, toolInput: o.toolInput as JsonValue },
    ];
  }
  if (o.type === "tool_calls" && Array.isArray(o.calls)) {
    return (o.calls as ToolCall[]).map((c) => ({
      toolCallId: c.toolCallId,
      toolName: c.toolName,
      toolInput: c.toolInput,
    }));
  }
  return [];
}

/** The text a model output carries (final answer text, or the text beside tool calls). */
/** What a reply holds, as a provider writes it back: its tool calls, its text and its stop (none for the built-in loop's single call). */
export function replyParts(output: ModelOutput): { calls: ToolCall[]; text?: string; stop?: StopKind } {
  if (output.type === "tool_call") return { calls: toolCallsOf(output) };
  return { calls: toolCallsOf(output), text: output.text, stop: output.stop };
}

export function textOf(output: ModelOutput | JsonValue | undefined): string | undefined {
  if (output === null || typeof output !== "object" || Array.isArray(output)) return undefined;
  const o = output as Record<string, unknown>;
  return typeof o.text === "string" ? o.text : undefined;
}

export function isTerminalPayload(payload: JsonValue): payload is TerminalPayload & JsonValue {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return false;
  return payload.event === "run_completed" || payload.event === "run_failed";
}

/** The terminal metadata step of a trace (the last metadata step carrying run_completed / run_failed). */
export function terminalStepOf(steps: readonly TraceStep[]): TraceStep | undefined {
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i]!;
    if (s.type === "metadata" && isTerminalPayload(s.payload)) return s;
  }
  return undefined;
}

/**
 * N of a `call-N` id (what /^call-(\d+)$/ matches), else -1. Without a regex: a replayed
 * reply registers each of its tool calls, and a replayed call is short enough that a
 * cold regex shows (bench/dispatcher-per-call.mjs).
 */
export function callIndex(id: string): number {
  // a payload a session was handed in memory may hold anything
  if (typeof id !== "string" || id.length < 6 || !id.startsWith("call-")) return -1;
  for (let i = 5; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return -1;
  }
  return Number(id.slice(5));
}

/** Highest N among `call-N` ids in the given steps' payloads, or -1. */
export function maxCallIndex(steps: readonly TraceStep[]): number {
  let max = -1;
  const visit = (v: unknown): void => {
    if (typeof v === "string") {
      max = Math.max(max, callIndex(v));
    } else if (Array.isArray(v)) {
      for (const x of v) if (x && typeof x === "object") visit(x);
    } else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (typeof o.toolCallId === "string") visit(o.toolCallId);
      for (const [k, x] of Object.entries(o)) if (k !== "toolCallId" && typeof x === "object") visit(x);
    }
  };
  for (const s of steps) visit(s.payload);
  return max;
}

export function callId(n: number): string {
  return `call-${n}`;
}
