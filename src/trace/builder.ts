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
 * Pure: the caller passes every timestamp. A timestamp earlier than verify allows
 * (structure.ts: not before the steps before it, except that a tool_call, stamped when its
 * tool started, may be earlier than its round's steps before it) is held at the earliest
 * allowed time: a wall clock that steps back, or a fork continued on a machine whose clock
 * is behind the parent's, never makes Blackbox write a cassette that fails verify.
 */
export class TraceBuilder {
  readonly trace: Trace;
  /** Latest timestamp so far, and the latest before the current tool round. */
  private maxTime = -Infinity;
  private roundBase = -Infinity;

  constructor(init: {
    id: string;
    createdAt: number;
    parentId?: string;
    forkedFromStepId?: string;
    steps?: TraceStep[];
  }) {
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
    // whole milliseconds (a test clock may give fractions), never before what verify allows
    const step = makeStep(
      this.trace.id,
      this.last,
      type,
      payload,
      Math.max(Math.round(timestamp), this.floorFor(type)),
    );
    this.trace.steps.push(step);
    this.track(step);
    return step;
  }

  /** Copies a step verbatim (same timestamp and hash); only its id follows this trace. */
  copy(step: TraceStep): TraceStep {
    const index = this.trace.steps.length;
    const copied: TraceStep = { ...step, id: `${this.trace.id}:${index}` };
    this.trace.steps.push(copied);
    this.track(copied);
    return copied;
  }

  private floorFor(type: TraceStepType): number {
    if (type === "tool_call") return this.roundBase;
    const last = this.last;
    if (type === "tool_result") return last?.type === "tool_call" ? last.timestamp : this.roundBase;
    return this.maxTime;
  }

  private track(step: TraceStep): void {
    if (Number.isFinite(step.timestamp)) this.maxTime = Math.max(this.maxTime, step.timestamp);
    if (step.type !== "tool_call" && step.type !== "tool_result") this.roundBase = this.maxTime;
  }
}
