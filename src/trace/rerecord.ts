/**
 * A re-recording over a cassette keeps what did not change: the steps up to the first one
 * whose meaning (type and payload) differs are the previous cassette's, verbatim
 * (timestamps and hashes, as a fork's prefix), and the new steps are chained on after them;
 * a conversation that did not change at all is the previous cassette, byte for byte. So a
 * cassette's git diff starts where the conversation changed. Pure.
 */
import { TraceBuilder } from "./builder.js";
import { canonicalJson } from "./canonical.js";
import type { Trace, TraceStep } from "./types.js";

/** Two steps mean the same: the same type and the same payload (timestamps, ids and hashes aside). */
export function sameMeaning(a: TraceStep, b: TraceStep): boolean {
  return a.type === b.type && canonicalJson(a.payload) === canonicalJson(b.payload);
}

/** The index of the first step whose meaning differs, or the shorter length when one is the other's prefix. */
export function firstChangedStep(a: readonly TraceStep[], b: readonly TraceStep[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (!sameMeaning(a[i]!, b[i]!)) return i;
  return n;
}

/**
 * The cassette to write for `next`, recorded over `previous`: `previous` itself when nothing
 * changed (written again, it is the same bytes), else `next` with the unchanged prefix taken
 * from `previous`. A previous cassette of another run (another id, a fork) is not reused.
 */
export function keepUnchanged(previous: Trace | undefined, next: Trace): Trace {
  if (!previous || previous.id !== next.id || previous.parentId !== next.parentId) return next;
  if (previous.forkedFromStepId !== next.forkedFromStepId) return next;
  const k = firstChangedStep(previous.steps, next.steps);
  if (k === previous.steps.length && k === next.steps.length) return previous;
  if (k === 0) return next;
  const builder = new TraceBuilder({
    id: previous.id,
    createdAt: previous.createdAt,
    steps: previous.steps.slice(0, k),
  });
  for (const s of next.steps.slice(k)) builder.append(s.type, s.payload, s.timestamp);
  return builder.trace;
}
