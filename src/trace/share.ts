/**
 * Structural sharing of a loaded cassette's recorded history.
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
 * What it buys:
 * - Loading (src/store/index.ts loadTraceSharedSync). The checks a load runs over every
 *   value (depth, shape, hash chain, neutrality) are linear in the file, which a long loop
 *   makes quadratic in its turns. Given the set of shared objects, each check does a shared
 *   object's subtree once and remembers the answer (a clean neutrality scan, a valid shape,
 *   its canonical JSON text), so a 16 MB, 200-turn cassette loads in less than half the time
 *   (bench/load.mjs). Only an answer that is the same wherever the object stands is kept
 *   (nothing that depends on the path, which problems carry), so every check reports
 *   exactly what it reports without sharing (test/unit/perf/sharedVerify.test.ts).
 * - Strict replay. IncrementalRequests asks, at each call, whether recorded input k+1
 *   extends recorded input k; this pass already found it (extendsShared, O(1)), so
 *   per-call cost does not grow with the history; and the replay holds one copy of the
 *   history instead of one per call.
 * Nothing is assumed: a message that differs in any way is not shared, and is checked and
 * compared in full as before. It runs before the depth check, so it never goes deeper than
 * MAX_JSON_DEPTH (a deeper value is simply not shared; the depth check refuses it).
 */
import { MAX_JSON_DEPTH } from "./depth.js";

import type { SharedValues } from "./types.js";

export type { SharedValues };

/**
 * model_input payload -> the previous model_input payload, where shareRecordedHistory
 * left the first one holding every message of the second as its leading messages, and
 * the same tools and params (the same objects). Read by extendsShared.
 */
const EXTENDS = new WeakMap<object, object>();

/**
 * Whether shareRecordedHistory found recorded input `next` to repeat all of `prev`'s
 * messages, tools and params as the same objects: O(1), where checking it costs a pass
 * over the history (strict replay asks once per call: src/session/incremental.ts). False
 * says nothing; the caller then checks. Good while the trace is not changed after the
 * share: ReplaySource shares the trace it is given when it starts, and nothing changes a
 * payload after that.
 */
export function extendsShared(prev: object, next: object): boolean {
  return EXTENDS.get(next) === prev;
}

interface Input {
  messages?: unknown;
  tools?: unknown;
  params?: unknown;
}

/**
 * Shares each model_input's leading messages (and tools, params) with the previous
 * model_input's, where exactly equal. Takes any parsed value's steps (it runs before the
 * shape check). Returns the objects that now stand at more than one place.
 */
export function shareRecordedHistory(steps: readonly unknown[]): SharedValues {
  const sharer = historySharer();
  for (const step of steps) sharer.add(step);
  return sharer.shared;
}

/**
 * shareRecordedHistory one step at a time, in order (a cassette parsed step by step:
 * src/store/stepwise.ts): after the last step, the same objects shared and the same set.
 */
export function historySharer(): { add(step: unknown): void; readonly shared: SharedValues } {
  const shared = new Set<object>();
  let prev: Input | undefined;
  return {
    shared,
    add(step) {
      if (step === null || typeof step !== "object" || (step as { type?: unknown }).type !== "model_input") return;
      const p = (step as { payload?: unknown }).payload;
      if (p === null || typeof p !== "object" || Array.isArray(p)) return;
      const next = p as Input;
      if (prev) shareWith(prev, next, shared);
      prev = next;
    },
  };
}

function shareWith(prev: Input, next: Input, shared: Set<object>): void {
  EXTENDS.delete(next); // set again below only if this share finds it (a trace may be shared twice)
  const one = (v: unknown) => {
    if (v !== null && typeof v === "object") shared.add(v);
  };
  if (next.tools === prev.tools) one(next.tools);
  else if (exactlySame(prev.tools, next.tools)) one((next.tools = prev.tools));
  if (next.params === prev.params) one(next.params);
  else if (exactlySame(prev.params, next.params)) one((next.params = prev.params));
  const a = prev.messages;
  const b = next.messages;
  if (!Array.isArray(a) || !Array.isArray(b)) return;
  const n = Math.min(a.length, b.length);
  let i = 0;
  for (; i < n; i++) {
    if (a[i] !== b[i]) {
      if (!exactlySame(a[i], b[i])) break; // the histories part here: later messages are not the same conversation
      b[i] = a[i];
    }
    one(b[i]);
  }
  if (i === a.length && next.tools === prev.tools && next.params === prev.params) EXTENDS.set(next, prev);
}

/**
 * The same JSON value down to key order: what JSON.stringify would write identically
 * for both (and a bit more: 0 and -0 differ). Objects are compared by their own
 * enumerable keys in order, as JSON.parse made them.
 */
export function exactlySame(a: unknown, b: unknown, depth = 0): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (depth >= MAX_JSON_DEPTH) return false; // deeper than a cassette may nest: not shared, the depth check refuses it
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!exactlySame(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const kb = Object.keys(b);
  let i = 0;
  for (const k in a) {
    // own keys only: for-in also lists enumerable keys a polluted Object.prototype adds
    if (
      k !== kb[i++] ||
      !Object.hasOwn(a, k) ||
      !exactlySame((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth + 1)
    )
      return false;
  }
  return i === kb.length;
}
