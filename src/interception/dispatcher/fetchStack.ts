/**
 * The global Agent of Node's built-in fetch, which the door passes other requests to.
 *
 * Node 20 loads its fetch stack (undici, with http, http2, tls and zlib) the first
 * time something touches `fetch`, `Response`, `Request`, `Headers` or `FormData` (and
 * `EventSource` / `WebSocket` where a flag enables them), and creates its global Agent
 * then, unless a global dispatcher is set already. Making the Agent at start-up cost that
 * in every hooked process, also the many that never fetch (npm's children, build tools,
 * test runners). So where the stack is not loaded yet, the door goes in now and the Agent
 * is made at the first touch of one of those globals (each is wrapped until then) or the
 * first request the door passes on, whichever comes first: the door steps out of the
 * global slot for that moment, so that Node's undici creates its Agent exactly as it would
 * have, and steps back in. Node 24 keeps these globals as V8 lazy data properties, which
 * any look at them loads (also reading a descriptor), so there the stack loads with the door,
 * as it did before on every Node.
 */
import { createRequire } from "node:module";
import type { DispatcherLike } from "./forward.js";
import { GLOBAL_DISPATCHER, LEGACY_GLOBAL_DISPATCHER } from "../../globals.js";
import { isDispatcher, setGlobalDispatcherSlots } from "./slot.js";

type Globals = Record<string | symbol, unknown>;

/** The globals whose first touch loads Node's fetch stack (a function or a lazy getter). */
const ENTRY_POINTS = ["fetch", "FormData", "Headers", "Request", "Response", "EventSource", "WebSocket"];

export interface FetchStack {
  /** The dispatcher Node's fetch would use without the door (made now if it was not). */
  agent(): DispatcherLike;
  /**
   * Takes the door out: puts back the globals it wrapped and, where the door still holds
   * the global slot, what was there before (Node's Agent, or nothing if it was never made).
   */
  undo(): void;
}

/** Whether Node's fetch stack is still to be loaded (Node 20: `Response` is a lazy getter). */
export function fetchStackDeferred(): boolean {
  return Object.getOwnPropertyDescriptor(globalThis, "Response")?.get !== undefined;
}

/**
 * Puts `door` in the global slots now and defers Node's fetch stack (see the top of
 * this file). Call only when the slot is empty and `fetchStackDeferred()`.
 */
export function deferFetchStack(door: object): FetchStack {
  const globals = globalThis as unknown as Globals;
  const wrapped = new Map<string, { original: PropertyDescriptor; ours: PropertyDescriptor }>();
  let agent: DispatcherLike | undefined;

  /** Node's own descriptor back at `key`, unless the app has put something else there since. */
  const putBack = (key: string, always = false): void => {
    const w = wrapped.get(key);
    if (!w) return;
    // `fetch` is a plain function: the wrapper (which only adds the Agent check) stays, so a
    // reference the app took before the first call is still globalThis.fetch after it.
    if (key === "fetch" && !always) return;
    wrapped.delete(key);
    const now = Object.getOwnPropertyDescriptor(globalThis, key);
    if (now && now.get === w.ours.get && now.value === w.ours.value) Object.defineProperty(globalThis, key, w.original);
  };
  const putBackAll = (always = false) => {
    for (const key of [...wrapped.keys()]) putBack(key, always);
  };

  const makeAgent = (): DispatcherLike => {
    if (agent) return agent;
    const nodeFetch = wrapped.get("fetch")?.original.value as ((...args: unknown[]) => Promise<unknown>) | undefined;
    putBackAll();
    const before = globals[LEGACY_GLOBAL_DISPATCHER];
    const ours = before === door;
    if (ours) {
      delete globals[GLOBAL_DISPATCHER];
      delete globals[LEGACY_GLOBAL_DISPATCHER];
    }
    // Node's own fetch, called with nothing to fetch, loads the stack (whose undici creates
    // its Agent in the empty slot) and turns no lazy global into a plain one; it rejects.
    if (nodeFetch) nodeFetch().catch(() => {});
    else void globals.Response;
    const made = globals[LEGACY_GLOBAL_DISPATCHER];
    // Only an Agent Node made just now: a dispatcher the app put in the slot since (it may
    // wrap the door), or none (the stack loaded some other way while the door stood in the
    // slot), leaves the door an Agent of undici 7's.
    agent = ours && isDispatcher(made) && made !== before ? made : fallbackAgent();
    if (ours) setGlobalDispatcherSlots(door);
    return agent;
  };

  for (const key of ENTRY_POINTS) {
    const original = Object.getOwnPropertyDescriptor(globalThis, key);
    if (!original || !original.configurable) continue;
    let ours: PropertyDescriptor;
    if (original.get) {
      ours = {
        configurable: true,
        enumerable: original.enumerable,
        get() {
          makeAgent();
          return globals[key];
        },
        set(value: unknown) {
          putBack(key);
          globals[key] = value;
        },
      };
    } else if (typeof original.value === "function") {
      const fn = original.value as (...args: unknown[]) => unknown;
      const value = function (this: unknown, ...args: unknown[]) {
        makeAgent();
        return fn.apply(this, args);
      };
      Object.defineProperty(value, "name", { value: fn.name });
      Object.defineProperty(value, "length", { value: fn.length });
      ours = { ...original, value };
    } else {
      continue;
    }
    wrapped.set(key, { original, ours });
    Object.defineProperty(globalThis, key, ours);
  }
  setGlobalDispatcherSlots(door, true);
  const undo = () => {
    putBackAll(true);
    if (globals[LEGACY_GLOBAL_DISPATCHER] !== door) return;
    if (agent) {
      setGlobalDispatcherSlots(agent);
    } else {
      delete globals[GLOBAL_DISPATCHER];
      delete globals[LEGACY_GLOBAL_DISPATCHER];
    }
  };
  return { agent: makeAgent, undo };
}

/** An undici 7 Agent, for when Node's fetch has none to give. */
export function fallbackAgent(): DispatcherLike {
  const { Agent } = undici<{ Agent: new () => DispatcherLike }>();
  return new Agent();
}

/**
 * undici 7 (Blackbox's own), or a module of it, loaded when first needed: `import "undici"` is a large share
 * of start-up (bench/startup.mjs).
 */
export function undici<T>(module = "undici"): T {
  return createRequire(import.meta.url)(module) as T;
}
