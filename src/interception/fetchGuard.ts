/**
 * A fetch with a dispatcher the app chose never reaches the door in the global slot:
 * `fetch(url, { dispatcher })` (how both SDKs document a proxy: `new Anthropic({
 * fetchOptions: { dispatcher: new ProxyAgent(...) } })`), and any fetch after the app set
 * a global dispatcher of its own once the hook was in (`setGlobalDispatcher(new
 * Agent({ headersTimeout: 0 }))`, `new EnvHttpProxyAgent()`), which replaces the door in
 * the slot. Those model calls went out unrecorded, and in a replay to the network.
 *
 * So the global `fetch` is wrapped: such a fetch is given a door over that dispatcher
 * instead (one per dispatcher). Provider endpoints go through the session as at the
 * global door; everything else, and a recorded call's upstream leg, goes through the
 * app's dispatcher, as it would have. Three property reads a call when the app chose none.
 */
import type { DispatcherLike } from "./dispatcher/forward.js";
import { FORWARDED } from "../globals.js";
import { currentDispatcher, isDispatcher, isDoor } from "./dispatcher/slot.js";

/**
 * A fetch the session answers itself (a provider URL in replay), else undefined: it goes on to Node's fetch
 * and the door.
 */
export type DirectAnswer = (input: unknown, init?: Record<string | symbol, unknown>) => Promise<unknown> | undefined;

type Fetch = (this: unknown, input: unknown, init?: Record<string | symbol, unknown>) => unknown;

/**
 * `init` as fetch reads it, but with `dispatcher`: a view, not a copy, since fetch reads
 * members through the prototype too (a `Request` given as init, a class instance's getters).
 */
function withDispatcher(
  init: Record<string | symbol, unknown> | undefined,
  dispatcher: DispatcherLike,
): Record<string | symbol, unknown> {
  if (!init) return { dispatcher };
  return new Proxy(init, {
    get: (target, key) => (key === "dispatcher" ? dispatcher : Reflect.get(target, key)),
    has: (target, key) => key === "dispatcher" || Reflect.has(target, key),
  });
}

/**
 * Wraps `globalThis.fetch` (where it is a function the process may replace); `doorOver`
 * makes a door over one of the app's dispatchers. Returns undo (puts back the fetch it
 * wrapped, where it is still ours).
 *
 * undici's own fetch (`import { fetch } from "undici"`) is not wrapped: that would take a
 * `Module._load` hook in every hooked process, whose frame, outside node_modules when
 * Blackbox is not installed in one, makes Node print deprecation warnings it keeps for
 * application code (punycode, Buffer()) for the packages loaded under it.
 */
export function guardFetch(
  door: object,
  doorOver: (below: DispatcherLike) => DispatcherLike,
  direct?: DirectAnswer,
): () => void {
  const doors = new WeakMap<object, DispatcherLike>();
  const over = (below: DispatcherLike): DispatcherLike => {
    let made = doors.get(below);
    if (!made) doors.set(below, (made = doorOver(below)));
    return made;
  };
  const found = Object.getOwnPropertyDescriptor(globalThis, "fetch");
  if (!found || typeof found.value !== "function" || !(found.writable || found.configurable)) return () => {};
  const original = found.value as Fetch;
  const fetch = function fetch(this: unknown, input: unknown, init?: Record<string | symbol, unknown>): unknown {
    // bb.fetch's upstream leg: the session has it already
    if (init?.[FORWARDED] === true) return original.call(this, input, init);
    const chosen = init?.dispatcher ?? currentDispatcher();
    if (direct && chosen === door) {
      // the door is what fetch would use (no dispatcher of the app's, whose code runs in a replay too)
      const answered = direct(input, init);
      if (answered) return answered;
    }
    if (chosen !== door && isDispatcher(chosen) && !isDoor(chosen)) init = withDispatcher(init, over(chosen));
    return original.call(this, input, init);
  };
  Object.defineProperty(fetch, "name", { value: original.name });
  Object.defineProperty(fetch, "length", { value: original.length });
  Object.defineProperty(globalThis, "fetch", { ...found, value: fetch });
  return () => {
    if (Object.getOwnPropertyDescriptor(globalThis, "fetch")?.value === fetch)
      Object.defineProperty(globalThis, "fetch", found);
  };
}
