/** The outcome of a run, read from its terminal metadata step. Pure. */
import { terminalStepOf } from "./payloads.js";
import type { JsonValue, TerminalPayload, TraceStep } from "./types.js";

export interface Outcome {
  /** "none" when the cassette has no terminal step (the run did not finish). */
  status: "success" | "error" | "none";
  /** The run's result (success only). */
  result?: JsonValue;
  /** The run_failed reason (error only): agent_error, process_exit, ... */
  reason?: string;
  /** What went wrong, in words (error only). */
  error?: string;
}

/** A sentence for a run_failed payload. */
export function failureText(p: Record<string, unknown>): string {
  switch (p.reason) {
    case "agent_error":
      return String(p.message);
    case "process_exit":
      return `the process exited with code ${String(p.exitCode)}`;
    case "calls_in_flight":
      return `the process exited with code ${String(p.exitCode)} while ${String(p.inFlight)} call(s) were in flight`;
    case "max_steps_exceeded":
      return `the agent exceeded maxSteps (${String(p.maxSteps)})`;
    case "unknown_tool":
      return `the model asked for an unknown tool "${String(p.toolName)}"`;
    default:
      return `run failed (${String(p.reason)})`;
  }
}

export function outcomeOf(trace: { steps: readonly TraceStep[] }): Outcome {
  const step = terminalStepOf(trace.steps);
  if (!step) return { status: "none" };
  const p = step.payload as unknown as TerminalPayload & Record<string, unknown>;
  if (p.event === "run_completed") return { status: "success", result: p.result };
  return { status: "error", reason: String(p.reason), error: failureText(p) };
}
