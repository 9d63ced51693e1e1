/**
 * The global dispatcher door: provider endpoints (session.route) go through the
 * session, everything else to the dispatcher that was there before. Installed on the
 * globals undici 7's `setGlobalDispatcher` writes (`undici.globalDispatcher.2` and
 * `.1`, the one Node 20's built-in fetch reads). Written without importing undici:
 * `import "undici"` alone is a large share of start-up (bench/startup.mjs), and only `dispatch` is needed (the
 * door's `compose()`, and a new-API handler it passes on, load the parts of undici they use).
 */
import { EventEmitter } from "node:events";
import type { ProviderName } from "../../providers/types.js";
import { fetchThroughSession } from "../fetch/door.js";
import type { Forward, HttpResponseLike, SessionPort } from "../../session/types.js";
import { sinkFor, type AnyHandler } from "./sink.js";
import { withEncodedForm } from "./formBody.js";
import { deferFetchStack, fallbackAgent, fetchStackDeferred, undici } from "./fetchStack.js";
import { guardFetch, type DirectAnswer } from "../fetchGuard.js";
import { forwardingNow, forwardThrough, type DispatcherLike } from "./forward.js";
import { DOOR_MARK, FORWARDED } from "../../globals.js";
import { currentDispatcher, existingDispatcher, setGlobalDispatcherSlots } from "./slot.js";
import { strayModelCall, strayRefusal, type StrayCall } from "../unrouted.js";
import { bodyChunks, isFormData, normalizeHeaders, requestUrl, wireRequest, type DispatchOptions } from "../wire.js";

/** The session as the door uses it; `mode` and `refuse` for a stray model call (src/interception/unrouted.ts). */
type Door = Pick<SessionPort, "route" | "handle" | "mode" | "refuse">;

const LENGTH_AND_ENCODING: ReadonlySet<string> = new Set(["content-length", "content-encoding"]);
/**
 * A URL hostname that is an address (WHATWG URLs write IPv4 dotted, IPv6 in brackets); a regex, not
 * node:net's isIP, which the preload would load for it.
 */
const IP_LITERAL = /^(\d{1,3}\.){3}\d{1,3}$|^\[/;

export class BlackboxDispatcher extends EventEmitter {
  readonly [DOOR_MARK] = true;
  readonly #session: Door;
  readonly #below: () => DispatcherLike;

  /** `below`: the dispatcher other requests go to, asked for when one comes (fetchStack.ts). */
  constructor(session: Door, below: DispatcherLike | (() => DispatcherLike)) {
    super();
    this.#session = session;
    this.#below = typeof below === "function" ? below : () => below;
  }

  get previous(): DispatcherLike {
    return this.#below();
  }

  /**
   * Makes fetch pass the caller's body as given, not a stream of its bytes
   * (src/interception/dispatcher/formBody.ts).
   */
  get isMockActive(): boolean {
    return true;
  }

  dispatch(opts: DispatchOptions, handler: AnyHandler): boolean {
    // a session's upstream call, on its way
    if (opts[FORWARDED] === true || forwardingNow()) return this.#passOn(opts, handler);
    let url: URL | undefined;
    let provider: ProviderName | undefined;
    try {
      url = opts.upgrade ? undefined : requestUrl(opts);
      provider = url === undefined ? undefined : this.#session.route(url.href);
      if (!provider && url !== undefined && IP_LITERAL.test(url.hostname)) {
        // undici's dns interceptor over the door sends to the address it resolved, the host it named in the Host header
        const named = hostNamed(opts.headers, url);
        if (named && (provider = this.#session.route(named.href))) url = named;
      }
    } catch {
      provider = undefined;
    }
    if (!provider) {
      const stray = url === undefined ? undefined : strayModelCall(opts.method, url, opts.headers);
      if (!stray) return this.#passOn(opts, handler);
      void this.#answer(opts, handler, stray.provider, url!, stray);
      return true;
    }
    void this.#answer(opts, handler, provider, url!);
    return true;
  }

  #passOn(opts: DispatchOptions, given: AnyHandler): boolean {
    // An undici 7 dispatcher over the door (RetryAgent, an interceptor) hands it a handler of
    // the new API only, which Node 20's own Agent below cannot take: it gets the legacy face.
    const handler = typeof given.onRequestStart === "function" ? legacyFace(given) : given;
    if (!isFormData(opts.body)) return this.previous.dispatch(opts, handler);
    withEncodedForm(opts).then(
      (encoded) => this.previous.dispatch(encoded, handler),
      (err: unknown) => sinkFor(handler).error(err),
    );
    return true;
  }

  /**
   * `stray`: an SDK's model call to a base URL no route names, answered with the session's refusal (the run
   * fails with it).
   */
  async #answer(
    opts: DispatchOptions,
    handler: AnyHandler,
    provider: ProviderName,
    url: URL,
    stray?: StrayCall,
  ): Promise<void> {
    const sink = sinkFor(handler);
    try {
      sink.start();
      if (sink.done) return;
      let response: HttpResponseLike;
      if (stray) response = await this.#session.refuse(provider, strayRefusal(stray, this.#session.mode));
      else {
        const request = await wireRequest(isFormData(opts.body) ? await withEncodedForm(opts) : opts, url);
        // Upstream (record, a live fork) goes below the door, aborted with the caller; made only then.
        const forward: Forward = (req) => forwardThrough(this.previous)(req, sink.signal);
        // the caller's abort (the SDK's timeout) ends the call for the session too; a replay makes no abort signal
        const signal = this.#session.mode === "replay" ? undefined : sink.signal;
        response = await this.#session.handle(request, forward, signal, provider);
      }
      // the body is handed on decoded and whole: its length and encoding are fetch's to work out
      sink.headers(response.status, response.headers, response.statusText ?? "", LENGTH_AND_ENCODING);
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

  /**
   * `getGlobalDispatcher().compose(interceptor)`, as apps put a retry or logging interceptor
   * over the global dispatcher, which is the door: undici's own compose (undici is loaded
   * only here, and the app that composes has loaded it already).
   */
  compose(...interceptors: unknown[]): DispatcherLike {
    const { Dispatcher } = undici<{ Dispatcher: { prototype: { compose(...i: unknown[]): DispatcherLike } } }>();
    return Dispatcher.prototype.compose.apply(this, interceptors);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  destroy(): Promise<void> {
    return Promise.resolve();
  }
}

/** The request's URL at the host its Host header names (when it has one that differs from the address). */
function hostNamed(headers: unknown, url: URL): URL | undefined {
  const host = normalizeHeaders(headers).host;
  if (!host || host === url.host) return undefined;
  return new URL(url.pathname + url.search, `${url.protocol}//${host}`);
}

/** undici's own adapter from a new-API handler to the legacy one (loaded when first needed). */
function legacyFace(handler: AnyHandler): AnyHandler {
  return undici<{ unwrap(h: AnyHandler): AnyHandler }>("undici/lib/handler/unwrap-handler.js").unwrap(handler);
}

/**
 * Install the door as the global dispatcher, over the one Node's fetch would use (made
 * when first needed where Node has not made it yet: fetchStack.ts). Returns undo
 * (restores the previous one; harmless twice).
 */
export async function installDispatcher(session: Door): Promise<() => void> {
  // Set already (by undici, the app, or Node's fetch stack once loaded); else Node 20 makes
  // its Agent later, at the first touch of its fetch. Node 24 loads the stack (and makes its
  // Agent) at the first look at `Response`, which fetchStackDeferred() is.
  const loaded = existingDispatcher() ?? (fetchStackDeferred() ? undefined : (existingDispatcher() ?? fallbackAgent()));
  // A fetch given a dispatcher of the app's, or made after the app replaced the door, goes through a door
  // over it (fetchGuard.ts).
  const doorOver = (below: DispatcherLike) => new BlackboxDispatcher(session, below);
  const direct = session.mode === "replay" ? replayAtFetch(session) : undefined;
  if (loaded) {
    const door = new BlackboxDispatcher(session, loaded);
    setGlobalDispatcherSlots(door);
    const unguard = guardFetch(door, doorOver, direct);
    return once(() => {
      unguard();
      if (currentDispatcher() === door) setGlobalDispatcherSlots(loaded);
    });
  }
  let stack: ReturnType<typeof deferFetchStack> | undefined;
  const door = new BlackboxDispatcher(session, () => stack!.agent());
  stack = deferFetchStack(door);
  const unguard = guardFetch(door, doorOver, direct);
  return once(() => {
    unguard();
    stack!.undo();
  });
}

/**
 * In replay nothing goes upstream, so a provider URL given to the global fetch as a string
 * or URL (how the SDKs call it) is answered by the session right there, as bb.fetch answers
 * it: Node's fetch and the dispatcher would only carry the request to the door and the reply
 * back (about half a call's cost: bench/dispatcher-per-call.mjs). Only a JSON (string) body
 * or none; a `Request`, any other body (fetch encodes a form with a boundary only it knows),
 * and a URL no route names (a stray call) go on to the door. The caller's signal works as
 * on fetch (fetchThroughSession): aborted before or during the call it rejects, after it the
 * body's read fails, with the signal's reason.
 */
function replayAtFetch(session: Door): DirectAnswer {
  return (input, init) => {
    const body = init?.body;
    if (body !== undefined && body !== null && (typeof body !== "string" || !hasBodyMethod(init!.method)))
      return undefined; // a form, a stream; a GET with a body, which fetch refuses
    const href = typeof input === "string" ? input : input instanceof URL ? input.href : undefined;
    let provider: ProviderName | undefined;
    try {
      provider = href === undefined ? undefined : session.route(href);
    } catch {
      return undefined; // not a URL the session can read: fetch says so
    }
    return provider && fetchThroughSession(session, input as string | URL, init as RequestInit | undefined, provider);
  };
}

/** A method fetch sends a body with (not GET or HEAD, not left to default to GET). */
function hasBodyMethod(method: unknown): boolean {
  if (typeof method !== "string") return false;
  const m = method.toUpperCase();
  return m !== "GET" && m !== "HEAD";
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
