/**
 * The global dispatcher door: provider endpoints (session.route) go through the
 * session, everything else to the dispatcher that was there before. Installed on the
 * globals undici 7's `setGlobalDispatcher` writes (`undici.globalDispatcher.2` and
 * `.1`, the one Node 20's built-in fetch reads). Written without importing undici:
 * `import "undici"` alone costs ~100 ms of start-up, and only `dispatch` is needed.
 */
import { EventEmitter } from "node:events";
import type { ProviderName } from "../providers/types.js";
import type { Session } from "../session/types.js";
import { sinkFor, type AnyHandler } from "./dispatchSink.js";
import { isFormData, withEncodedForm } from "./formBody.js";
import { forwardThrough, type DispatcherLike } from "./forward.js";
import { DOOR_MARK, GLOBAL_DISPATCHER, LEGACY_GLOBAL_DISPATCHER } from "./globalDispatcher.js";
import { bodyChunks, requestUrl, wireRequest, type DispatchOptions } from "./wire.js";

const GLOBAL = GLOBAL_DISPATCHER;
const LEGACY_GLOBAL = LEGACY_GLOBAL_DISPATCHER;
const MARK = DOOR_MARK;

type Door = Pick<Session, "route" | "handle">;
type Globals = Record<symbol, unknown>;

function setGlobal(dispatcher: unknown): void {
  for (const key of [GLOBAL, LEGACY_GLOBAL]) {
    Object.defineProperty(globalThis, key, { value: dispatcher, writable: true, enumerable: false, configurable: false });
  }
}

/**
 * The dispatcher in place now. On Node 20/22 the built-in fetch creates its Agent lazily,
 * so one `fetch("data:,")` (no network) makes it exist before we wrap it.
 */
export async function currentDispatcher(): Promise<DispatcherLike> {
  const globals = globalThis as unknown as Globals;
  // Reading `Response` loads Node's fetch stack, which creates the Agent (~4 ms less than a fetch).
  if (globals[LEGACY_GLOBAL] === undefined) void (globalThis as { Response?: unknown }).Response;
  if (globals[LEGACY_GLOBAL] === undefined) await fetch("data:,").then((r) => r.arrayBuffer());
  const previous = globals[LEGACY_GLOBAL] ?? globals[GLOBAL];
  if (!previous || typeof (previous as DispatcherLike).dispatch !== "function") {
    throw new Error("blackbox: no global fetch dispatcher was found to pass requests on to; run on Node >= 20.19");
  }
  return previous as DispatcherLike;
}

export class BlackboxDispatcher extends EventEmitter {
  readonly [MARK] = true;
  readonly #session: Door;
  readonly #previous: DispatcherLike;

  constructor(session: Door, previous: DispatcherLike) {
    super();
    this.#session = session;
    this.#previous = previous;
  }

  get previous(): DispatcherLike {
    return this.#previous;
  }

  /** Makes fetch pass the caller's body as given, not a stream of its bytes (src/edges/formBody.ts). */
  get isMockActive(): boolean {
    return true;
  }

  dispatch(opts: DispatchOptions, handler: AnyHandler): boolean {
    let provider: ProviderName | undefined;
    try {
      provider = opts.upgrade ? undefined : this.#session.route(requestUrl(opts));
    } catch {
      provider = undefined;
    }
    if (!provider) return this.#passOn(opts, handler);
    void this.#answer(opts, handler, provider);
    return true;
  }

  #passOn(opts: DispatchOptions, handler: AnyHandler): boolean {
    if (!isFormData(opts.body)) return this.#previous.dispatch(opts, handler);
    withEncodedForm(opts).then(
      (encoded) => this.#previous.dispatch(encoded, handler),
      (err: unknown) => sinkFor(handler).error(err),
    );
    return true;
  }

  async #answer(opts: DispatchOptions, handler: AnyHandler, provider: ProviderName): Promise<void> {
    const sink = sinkFor(handler);
    try {
      sink.start();
      if (sink.done) return;
      const request = await wireRequest(isFormData(opts.body) ? await withEncodedForm(opts) : opts);
      const response = await this.#session.handle(request, forwardThrough(this.#previous), sink.signal, provider);
      const { "content-length": _l, "content-encoding": _e, ...headers } = response.headers;
      sink.headers(response.status, headers, response.statusText ?? "");
      if (typeof response.body === "string") {
        // a whole reply (replay, or a live JSON reply read by the session): one chunk, no generator
        if (response.body.length > 0 && !sink.done) sink.data(Buffer.from(response.body, "utf8"));
        sink.end();
        return;
      }
      for await (const chunk of bodyChunks(response.body)) {
        if (sink.done) return;
        sink.data(chunk);
      }
      sink.end();
    } catch (err) {
      sink.error(err);
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  destroy(): Promise<void> {
    return Promise.resolve();
  }
}

/** Install the door as the global dispatcher. Returns undo (restores the previous one; harmless twice). */
export async function installDispatcher(session: Door): Promise<() => void> {
  const previous = await currentDispatcher();
  const door = new BlackboxDispatcher(session, previous);
  setGlobal(door);
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    const globals = globalThis as unknown as Globals;
    if (globals[LEGACY_GLOBAL] === door) setGlobal(previous);
  };
}
