/**
 * diffTraces: the first step where two cassettes diverge; diffOutcome: whether
 * their outcomes differ. Steps compare by what they say, not by what their stored
 * hashes claim: two steps are the same when their stored hashes are equal AND each
 * matches its own step's content (recomputed), else field by field, which also names
 * the first differing value. An edited payload whose hash was left alone is a
 * difference, not "same". The first difference reported is one of meaning (a step's type or
 * payload, or a step only one has): steps before it that differ only in their timestamps (and
 * so their hashes: the same conversation recorded at another time) are counted apart, in
 * `retimed`; only when nothing else differs is a timestamp the difference. Pure.
 */
import { stepHash } from "./canonical.js";
import { firstDifference } from "./jsonDiff.js";
import { outcomeOf, type Outcome } from "./outcome.js";
import { quoted } from "./printable.js";
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
  /**
   * Path within the step of the first differing value: type, timestamp, payload.x.y, prevHash, hash ("" for a
   * missing step).
   */
  path: string;
  a: unknown;
  b: unknown;
  /** One sentence saying what differs. */
  reason: string;
  /**
   * Steps before this one that differ only in their timestamps (and the hashes that follow from them): how
   * many, and the first. Absent when there are none.
   */
  retimed?: { count: number; first: number };
}

/** In the order a difference is reported: what a step means, then when it was recorded, then the chain. */
const HASHED_FIELDS = ["type", "payload", "timestamp", "prevHash", "index"] as const;

/** A difference in when a step was recorded, or in the chain that follows from it: not in what it says. */
const timeOnly = (path: string): boolean => path === "timestamp" || path === "prevHash";

function short(value: unknown): string {
  return value === undefined ? "(absent)" : quoted(value, 80);
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
    return (
      stepHash({
        index: step.index,
        type: step.type,
        timestamp: step.timestamp,
        payload: step.payload,
        prevHash: step.prevHash,
      }) === step.hash
    );
  } catch {
    return false;
  }
}

export function diffTraces(a: Trace, b: Trace): TraceDiff | null {
  const n = Math.max(a.steps.length, b.steps.length);
  /** The first step that differs only in time, and how many do, before the first difference in meaning. */
  let retimedFirst: TraceDiff | undefined;
  let retimedCount = 0;
  const withRetimed = (d: TraceDiff): TraceDiff =>
    retimedFirst ? { ...d, retimed: { count: retimedCount, first: retimedFirst.index } } : d;
  for (let i = 0; i < n; i++) {
    const sa = a.steps[i];
    const sb = b.steps[i];
    if (sa && sb) {
      // equal hashes prove equal content only when each hash is the hash of its step
      if (sa.hash === sb.hash && hashHolds(sa) && (sa === sb || hashHolds(sb))) continue;
      const d = stepDifference(sa, sb);
      // same content, same stored (wrong) hash: verify reports it
      if (d.path === "hash" && sa.hash === sb.hash) continue;
      const reason =
        d.path === "hash"
          ? `step ${i} has the same content but a different stored hash (one cassette was edited; run blackbox verify)`
          : `step ${i} (${sa.type === sb.type ? sa.type : `${sa.type} vs ${sb.type}`}) differs at ${d.path}: ${short(d.a)} vs ${short(d.b)}`;
      const diff: TraceDiff = { index: i, typeA: sa.type, typeB: sb.type, kind: "changed", ...d, reason };
      if (timeOnly(d.path) && sameChainAfter(sa, sb)) {
        retimedFirst ??= diff;
        retimedCount++;
        continue;
      }
      return withRetimed(diff);
    }
    const only = sa ?? sb!;
    const inA = sa !== undefined;
    return withRetimed({
      index: i,
      typeA: sa?.type ?? null,
      typeB: sb?.type ?? null,
      kind: inA ? "only_in_a" : "only_in_b",
      path: "",
      a: sa,
      b: sb,
      reason: `step ${i} (${only.type}) exists only in ${inA ? "A" : "B"}; ${inA ? "B" : "A"} has ${i} step${i === 1 ? "" : "s"}`,
    });
  }
  if (!retimedFirst) return null;
  // the same conversation recorded at another time: the timestamps are the difference
  return {
    ...retimedFirst,
    reason: `${retimedFirst.reason}; only timestamps differ (${retimedCount} step${retimedCount === 1 ? "" : "s"}): the same conversation, recorded at another time`,
  };
}

/** Both steps' hashes are their own (a step differing in time alone is no edited cassette). */
function sameChainAfter(a: TraceStep, b: TraceStep): boolean {
  return hashHolds(a) && hashHolds(b);
}

export function diffOutcome(a: Trace, b: Trace): { same: boolean; a: Outcome; b: Outcome } {
  const oa = outcomeOf(a);
  const ob = outcomeOf(b);
  return { same: firstDifference(oa, ob) === undefined, a: oa, b: ob };
}
