/**
 * diffTraces: the first step where two cassettes diverge; diffOutcome: whether
 * their outcomes differ. Steps compare by what they say, not by what their stored
 * hashes claim: two steps are the same when their stored hashes are equal AND each
 * matches its own step's content (recomputed), else field by field, which also names
 * the first differing value. An edited payload whose hash was left alone is a
 * difference, not "same". Pure.
 */
import { stepHash } from "./canonical.js";
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

/** The stored hash is the hash of the step's content (a step that cannot be hashed: no). */
function hashHolds(step: TraceStep): boolean {
  try {
    return stepHash({ index: step.index, type: step.type, timestamp: step.timestamp, payload: step.payload, prevHash: step.prevHash }) === step.hash;
  } catch {
    return false;
  }
}

export function diffTraces(a: Trace, b: Trace): TraceDiff | null {
  const n = Math.max(a.steps.length, b.steps.length);
  for (let i = 0; i < n; i++) {
    const sa = a.steps[i];
    const sb = b.steps[i];
    if (sa && sb) {
      // equal hashes prove equal content only when each hash is the hash of its step
      if (sa.hash === sb.hash && hashHolds(sa) && (sa === sb || hashHolds(sb))) continue;
      const d = stepDifference(sa, sb);
      if (d.path === "hash" && sa.hash === sb.hash) continue; // same content, same stored (wrong) hash: verify reports it
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
      reason: `step ${i} (${only.type}) exists only in ${inA ? "A" : "B"}; ${inA ? "B" : "A"} has ${i} step${i === 1 ? "" : "s"}`,
    };
  }
  return null;
}

export function diffOutcome(a: Trace, b: Trace): { same: boolean; a: Outcome; b: Outcome } {
  const oa = outcomeOf(a);
  const ob = outcomeOf(b);
  return { same: firstDifference(oa, ob) === undefined, a: oa, b: ob };
}
