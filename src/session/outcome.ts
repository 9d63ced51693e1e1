import { textOf } from "../trace/payloads.js";
import type { JsonValue, ModelOutput, TerminalPayload } from "../trace/types.js";
import { errorMessageOf, toJsonValue } from "./json.js";
import type { FinishOptions } from "./types.js";

/**
 * How a run ended, as its terminal metadata payload: the error or result passed to
 * finish(), else the last model reply's text (null when there was none).
 */
export function outcomeOf(options: FinishOptions | undefined, lastOutput: ModelOutput | undefined): TerminalPayload {
  // `finish({ error })` with `let error = null` before a try: null is no error, as a null control is absent
  if (options && options.error !== undefined && options.error !== null) {
    return { event: "run_failed", status: "error", reason: "agent_error", message: errorMessageOf(options.error) };
  }
  const result: JsonValue =
    options && options.result !== undefined
      ? toJsonValue(
          options.result,
          "the result passed to finish()",
          "pass plain data (objects, arrays, strings, numbers) as the result. The session is still open: call finish() again",
        )
      : (textOf(lastOutput as unknown as JsonValue) ?? null);
  return { event: "run_completed", status: "success", result };
}

/** The outcome of a process that ended before finish(). */
export function exitOutcome(
  exitCode: number,
  inFlight: number,
  uncaught: unknown,
  lastOutput: ModelOutput | undefined,
): TerminalPayload {
  if (inFlight > 0) return { event: "run_failed", status: "error", reason: "calls_in_flight", exitCode, inFlight };
  if (uncaught !== undefined) {
    return { event: "run_failed", status: "error", reason: "agent_error", message: errorMessageOf(uncaught) };
  }
  if (exitCode !== 0) return { event: "run_failed", status: "error", reason: "process_exit", exitCode };
  return outcomeOf(undefined, lastOutput);
}
