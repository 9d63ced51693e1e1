/**
 * Structural sharing of a loaded cassette's recorded history, for strict replay.
 *
 * A tool loop's model_input k+1 repeats model_input k's messages, so a 200-turn
 * cassette holds the history 200 times over, as separate parsed objects. Once at load,
 * each recorded input's messages (and tools, params) that are exactly the same value as
 * the previous input's are replaced by the previous input's objects. Exactly: the same
 * keys in the same order, the same array lengths, numbers by Object.is (0 and -0 differ),
 * so nothing can tell the shared object from the one it replaces: JSON.stringify,
 * canonicalJson, the step hashes, key-order-dependent first-difference paths all give the
 * same result. Only the identity changes, and identity implies equality.
 *
 * What it buys: IncrementalRequests' once-per-pair check that recorded input k+1 extends
 * recorded input k (a deep equality over the whole recorded history, linear in it, at
 * every call) meets the same objects and ends at `a === b` for each message, so per-call
 * cost no longer grows with the history; and the replay holds one copy of the history
 * instead of one per call. The same deep comparison runs, once per pair, at load instead.
 * Nothing is assumed: a message that differs in any way is not shared, and the replay-time
 * check then compares it in full as before.
 */
import type { TraceStep } from "../trace/types.js";

interface Input {
  messages?: unknown;
  tools?: unknown;
  params?: unknown;
}

/** Shares each model_input's leading messages (and tools, params) with the previous model_input's, where exactly equal. */
export function shareRecordedHistory(steps: readonly TraceStep[]): void {
  let prev: Input | undefined;
  for (const step of steps) {
    if (step.type !== "model_input") continue;
    const p = step.payload;
    if (p === null || typeof p !== "object" || Array.isArray(p)) continue;
    const next = p as Input;
    if (prev) shareWith(prev, next);
    prev = next;
  }
}

function shareWith(prev: Input, next: Input): void {
  if (next.tools !== prev.tools && exactlySame(prev.tools, next.tools)) next.tools = prev.tools;
  if (next.params !== prev.params && exactlySame(prev.params, next.params)) next.params = prev.params;
  const a = prev.messages;
  const b = next.messages;
  if (!Array.isArray(a) || !Array.isArray(b)) return;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) continue;
    if (!exactlySame(a[i], b[i])) break; // the histories part here: later messages are not the same conversation
    b[i] = a[i];
  }
}

/**
 * The same JSON value down to key order: what JSON.stringify would write identically
 * for both (and a bit more: 0 and -0 differ). Objects are compared by their own
 * enumerable keys in order, as JSON.parse made them.
 */
export function exactlySame(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!exactlySame(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const kb = Object.keys(b);
  let i = 0;
  for (const k in a) {
    // own keys only: for-in also lists enumerable keys a polluted Object.prototype adds
    if (k !== kb[i++] || !Object.hasOwn(a, k) || !exactlySame((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return i === kb.length;
}
