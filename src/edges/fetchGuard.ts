/**
 * A fetch with a dispatcher the app chose never reaches the door in the global slot:
 * `fetch(url, { dispatcher })` (how both SDKs document a proxy: `new Anthropic({
 * fetchOptions: { dispatcher: new ProxyAgent(...) } })`), and any fetch after the app set
 * a global dispatcher of its own once the hook was in (`setGlobalDispatcher(new
 * Agent({ headersTimeout: 0 }))`, `new EnvHttpProxyAgent()`), which replaces the door in
 * the slot. Those model calls went out unrecorded, and in a replay to the network.
 *
 * So the global `fetch`, and undici's own (`import { fetch } from "undici"`, any copy, when
 * it loads), are wrapped: such a fetch is given a door over that dispatcher instead (one
 * per dispatcher). Provider endpoints go through the session as at the global door;
 * everything else, and a recorded call's upstream leg, goes through the app's dispatcher,
 * as it would have. A few property reads a call when the app chose none.
 */
import nodeModule from "node:module";
import { DOOR_MARK, FORWARDED, LEGACY_GLOBAL_DISPATCHER } from "./globalDispatcher.js";
import type { DispatcherLike } from "./forward.js";
import { replaceProperty } from "./patch.js";

type Fetch = (this: unknown, input: unknown, init?: Record<string | symbol, unknown>) => unknown;
type Load = (request: unknown, parent: unknown, ...rest: unknown[]) => unknown;

function isDispatcher(value: unknown): value is DispatcherLike {
  return !!value && typeof (value as DispatcherLike).dispatch === "function";
}

function isDoor(value: unknown): boolean {
  return (value as Record<symbol, unknown>)[DOOR_MARK] === true;
}

/** undici's index module, required (`"undici"`) or imported (the ESM loader passes its filename). */
function isUndici(request: unknown): boolean {
  return typeof request === "string" && (request === "undici" || request.endsWith("/node_modules/undici/index.js"));
}

/**
 * Wraps `globalThis.fetch` (where it is a function the process may replace) and the
 * `fetch` of every copy of undici loaded from now on; `doorOver` makes a door over one of
 * the app's dispatchers. Returns undo (puts back what it wrapped, where it is still ours).
 */
export function guardFetch(door: object, doorOver: (below: DispatcherLike) => DispatcherLike): () => void {
  const globals = globalThis as unknown as Record<string | symbol, unknown>;
  const doors = new WeakMap<object, DispatcherLike>();
  const over = (below: DispatcherLike): DispatcherLike => {
    let made = doors.get(below);
    if (!made) doors.set(below, (made = doorOver(below)));
    return made;
  };
  const guarded = (original: Fetch): Fetch => {
    const fetch = function fetch(this: unknown, input: unknown, init?: Record<string | symbol, unknown>): unknown {
      if (init?.[FORWARDED] === true) return original.call(this, input, init); // bb.fetch's upstream leg: the session has it already
      const chosen = init?.dispatcher ?? globals[LEGACY_GLOBAL_DISPATCHER];
      if (chosen !== door && isDispatcher(chosen) && !isDoor(chosen)) init = { ...init, dispatcher: over(chosen) };
      return original.call(this, input, init);
    };
    Object.defineProperty(fetch, "name", { value: original.name });
    Object.defineProperty(fetch, "length", { value: original.length });
    return fetch;
  };

  let undoGlobal = () => {};
  const found = Object.getOwnPropertyDescriptor(globalThis, "fetch");
  if (found && typeof found.value === "function" && (found.writable || found.configurable)) {
    const ours = guarded(found.value as Fetch);
    Object.defineProperty(globalThis, "fetch", { ...found, value: ours });
    undoGlobal = () => {
      if (Object.getOwnPropertyDescriptor(globalThis, "fetch")?.value === ours) Object.defineProperty(globalThis, "fetch", found);
    };
  }

  // undici's own fetch: its exports object gets the guarded one as the module loads (a
  // require, or the ESM loader's Module._load of its CommonJS index), once per copy.
  const mod = nodeModule as unknown as { _load: Load };
  const load = mod._load;
  const patched = new WeakSet<object>();
  const undoLoad = replaceProperty(mod, "_load", function _load(this: unknown, request: unknown, parent: unknown, ...rest: unknown[]): unknown {
    const exported = load.call(this, request, parent, ...rest) as Record<string, unknown> | undefined;
    if (isUndici(request) && exported && typeof exported.fetch === "function" && !patched.has(exported)) {
      patched.add(exported);
      exported.fetch = guarded(exported.fetch as Fetch);
    }
    return exported;
  });
  return () => {
    undoLoad();
    undoGlobal();
  };
}
