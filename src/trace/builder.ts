import { stepHash } from "./canonical.js";
import { CURRENT_TRACE_VERSION, type JsonValue, type Trace, type TraceStep, type TraceStepType } from "./types.js";

/** Makes one chained step that follows `prev` (or starts a chain when prev is undefined). */
export function makeStep(
  traceId: string,
  prev: Pick<TraceStep, "index" | "hash"> | undefined,
  type: TraceStepType,
  payload: JsonValue,
  timestamp: number,
): TraceStep {
  const index = prev ? prev.index + 1 : 0;
  const prevHash = prev ? prev.hash : null;
  const hash = stepHash({ index, type, timestamp, payload, prevHash });
  return { id: `${traceId}:${index}`, index, type, timestamp, payload, prevHash, hash };
}

/**
 * Appends steps to a trace with `id`, `index`, `prevHash` and `hash`.
 * Pure: the caller passes every timestamp.
 */
export class TraceBuilder {
  readonly trace: Trace;

  constructor(init: { id: string; createdAt: number; parentId?: string; forkedFromStepId?: string; steps?: TraceStep[] }) {
    this.trace = {
      version: CURRENT_TRACE_VERSION,
      id: init.id,
      ...(init.parentId !== undefined ? { parentId: init.parentId } : {}),
      ...(init.forkedFromStepId !== undefined ? { forkedFromStepId: init.forkedFromStepId } : {}),
      createdAt: init.createdAt,
      steps: [],
    };
    for (const s of init.steps ?? []) this.copy(s);
  }

  get steps(): TraceStep[] {
    return this.trace.steps;
  }

  get last(): TraceStep | undefined {
    return this.trace.steps[this.trace.steps.length - 1];
  }

  append(type: TraceStepType, payload: JsonValue, timestamp: number): TraceStep {
    const step = makeStep(this.trace.id, this.last, type, payload, timestamp);
    this.trace.steps.push(step);
    return step;
  }

  /** Copies a step verbatim (same timestamp and hash); only its id follows this trace. */
  copy(step: TraceStep): TraceStep {
    const index = this.trace.steps.length;
    const copied: TraceStep = { ...step, id: `${this.trace.id}:${index}` };
    this.trace.steps.push(copied);
    return copied;
  }
}
