/**
 * diffTraces: the first step where two cassettes diverge; diffOutcome: whether
 * their outcomes differ. Steps compare by hash first, then field by field to
 * name the first differing value. Pure.
 */
import { firstDifference } from "./jsonDiff.js";
import { outcomeOf, type Outcome } from "./outcome.js";
import type { Trace, TraceStep, TraceStepType } from "./types.js";

export type { Outcome } from "./outcome.js";

export interface TraceDiff {
  /** Index of the first divergent step. */
  index: number;
  /** Step type at that index in each trace (null when the step is missing there). */
  typeA: TraceStepType | null;
  typeB: TraceStepType | null;
  /** "changed": both have the step and it differs; "only_in_a" / "only_in_b": one trace is longer. */
  kind: "changed" | "only_in_a" | "only_in_b";
  /** Path within the step of the first differing value: type, timestamp, payload.x.y, prevHash, hash ("" for a missing step). */
  path: string;
  a: unknown;
  b: unknown;
  /** One sentence saying what differs. */
  reason: string;
}

const HASHED_FIELDS = ["type", "timestamp", "payload", "prevHash", "index"] as const;

function short(value: unknown): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function stepDifference(a: TraceStep, b: TraceStep): { path: string; a: unknown; b: unknown } {
  for (const field of HASHED_FIELDS) {
    const d = firstDifference(a[field], b[field], field);
    if (d) return d;
  }
  return { path: "hash", a: a.hash, b: b.hash };
}

export function diffTraces(a: Trace, b: Trace): TraceDiff | null {
  const n = Math.max(a.steps.length, b.steps.length);
  for (let i = 0; i < n; i++) {
    const sa = a.steps[i];
    const sb = b.steps[i];
    if (sa && sb) {
      if (sa.hash === sb.hash) continue;
      const d = stepDifference(sa, sb);
      const reason =
        d.path === "hash"
          ? `step ${i} has the same content but a different stored hash (one cassette was edited; run blackbox verify)`
          : `step ${i} (${sa.type === sb.type ? sa.type : `${sa.type} vs ${sb.type}`}) differs at ${d.path}: ${short(d.a)} vs ${short(d.b)}`;
      return { index: i, typeA: sa.type, typeB: sb.type, kind: "changed", ...d, reason };
    }
    const only = sa ?? sb!;
    const inA = sa !== undefined;
    return {
      index: i,
      typeA: sa?.type ?? null,
      typeB: sb?.type ?? null,
      kind: inA ? "only_in_a" : "only_in_b",
      path: "",
      a: sa,
      b: sb,
      reason: `step ${i} (${only.type}) exists only in ${inA ? "A" : "B"}; the other run has ${i} step(s)`,
    };
  }
  return null;
}

export function diffOutcome(a: Trace, b: Trace): { same: boolean; a: Outcome; b: Outcome } {
  const oa = outcomeOf(a);
  const ob = outcomeOf(b);
  return { same: firstDifference(oa, ob) === undefined, a: oa, b: ob };
}
