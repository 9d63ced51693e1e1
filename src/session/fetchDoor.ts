import { dispatcherBelowDoor, FORWARDED } from "../edges/globalDispatcher.js";
import type { ProviderName, WireRequest } from "../providers/types.js";
import type { HttpResponseLike, Session } from "./types.js";

type FetchInit = RequestInit & { duplex?: string };

function headersToRecord(h: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (h instanceof Headers) {
    h.forEach((v, k) => (out[k] = v)); // names already lower case; forEach is ~3x cheaper than entries()
  } else if (Array.isArray(h)) {
    for (const [k, v] of h) out[k.toLowerCase()] = v;
  } else {
    for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = String(v);
  }
  return out;
}

async function bodyText(body: unknown): Promise<string | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  return new Response(body as BodyInit).text();
}

/**
 * `onCancel`: the caller cancelled the body (a `break` out of the SDK's stream): called at
 * once, so the request upstream can be aborted, as fetch aborts its own. The body's
 * generator may be waiting for the provider's next chunk, and only ends after it.
 */
export function toResponse(r: HttpResponseLike, onCancel?: (reason: unknown) => void, url?: string, signal?: AbortSignal): Response {
  const body = r.body;
  const init = { status: r.status, statusText: r.statusText, headers: r.headers };
  if (typeof body === "string" || body instanceof Uint8Array) return withUrl(new Response((signal ? abortableBody(body, signal) : body) as BodyInit, init), url);
  const iterator = (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        controller.error(err);
      }
    },
    async cancel(reason) {
      onCancel?.(reason);
      await iterator.return?.(reason);
    },
  });
  return withUrl(new Response(stream, init), url);
}

/** `response.url` as fetch sets it (a constructed Response has ""): the SDKs log it, and an agent may read it; a clone keeps it, as a fetched one's does. */
function withUrl(response: Response, url: string | undefined): Response {
  if (!url) return response;
  Object.defineProperty(response, "url", { value: url, enumerable: false, configurable: true });
  const clone = response.clone;
  Object.defineProperty(response, "clone", { value: () => withUrl(clone.call(response), url), enumerable: false, configurable: true, writable: true });
  return response;
}

/**
 * A whole reply's body as fetch's is under the caller's signal: aborted before it is read,
 * reading it fails with the signal's reason (the SDKs end a stream quietly on it, where
 * they would have read the whole reply). The listener goes when it is read or cancelled:
 * one signal kept for a whole run gathers none.
 */
function abortableBody(body: string | Uint8Array, signal: AbortSignal): ReadableStream<Uint8Array> {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  let stop = (): void => {};
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const onAbort = () => controller.error(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        stop = () => signal.removeEventListener("abort", onAbort);
      },
      pull(controller) {
        stop();
        if (bytes.byteLength > 0) controller.enqueue(bytes);
        controller.close();
      },
      cancel() {
        stop();
      },
    },
    { highWaterMark: 0 }, // pulled at the first read, not when made: an abort before it is seen
  );
}

/**
 * `bb.fetch`: the door for the SDKs' `fetch` option. Every call goes to the session (only
 * the SDKs send through it, whatever their baseURL: the provider is the origin's, else the
 * Anthropic SDK's version header says which); in mode off every call goes to the global fetch.
 */
export function makeFetch(session: Pick<Session, "route" | "handle" | "mode">): typeof globalThis.fetch {
  const passThrough = (input: RequestInfo | URL, init?: FetchInit) => globalThis.fetch(input, init);
  return async function blackboxFetch(input: RequestInfo | URL, init?: FetchInit): Promise<Response> {
    if (session.mode === "off") return passThrough(input, init);
    return fetchThroughSession(session, input, init);
  };
}

/**
 * One fetch answered by the session: bb.fetch's, and the register hook's for a provider
 * URL in replay (src/edges/fetchGuard.ts), where nothing goes upstream and Node's fetch and
 * the dispatcher have nothing to add. `provider`: routed already.
 */
export async function fetchThroughSession(
  session: Pick<Session, "route" | "handle" | "mode">,
  input: RequestInfo | URL,
  init: FetchInit | undefined,
  provider?: ProviderName,
): Promise<Response> {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  let request: WireRequest;
  if (typeof input === "string" || input instanceof URL) {
    request = {
      method: (init?.method ?? "GET").toUpperCase(),
      url,
      headers: headersToRecord(init?.headers),
      body: typeof init?.body === "string" ? init.body : await bodyText(init?.body), // the SDKs' JSON: no extra tick
    };
  } else {
    const r = new Request(input, init);
    request = { method: r.method, url: r.url, headers: headersToRecord(r.headers), body: r.body ? await r.text() : undefined };
  }
  const callerSignal = init?.signal ?? (typeof input === "object" && "signal" in input ? input.signal : undefined) ?? undefined;
  // Upstream (record, a live fork; a replay sends nothing) is aborted with the caller's
  // signal, and when the caller cancels the body: a `break` out of a stream does not wait
  // for the provider's next chunk, and the provider stops generating.
  let upstream: AbortController | undefined;
  let signal = callerSignal;
  if (session.mode !== "replay") {
    upstream = new AbortController();
    // AbortSignal.any, not a listener on the caller's signal: one signal kept for a whole
    // run would gather a listener a call (MaxListenersExceededWarning after 10)
    signal = callerSignal ? AbortSignal.any([callerSignal, upstream.signal]) : upstream.signal;
  }
  const own = (init as { dispatcher?: unknown } | undefined)?.dispatcher; // the SDK's fetchOptions: { dispatcher } (a proxy)
  const forward = async (req: WireRequest, sig?: AbortSignal): Promise<HttpResponseLike> => {
    // Under the register hook, go upstream through the caller's dispatcher or the one below
    // the door, marked: the session already handled this call, and the door (or the hook's
    // fetch guard) would hand it to the session again.
    const upstreamInit: FetchInit & { dispatcher?: unknown; [FORWARDED]: true } = { method: req.method, headers: req.headers, body: req.body, signal: sig, [FORWARDED]: true };
    const through = own ?? dispatcherBelowDoor();
    if (through) upstreamInit.dispatcher = through;
    const res = await globalThis.fetch(req.url, upstreamInit);
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    const body: AsyncIterable<Uint8Array> = res.body ? (res.body as unknown as AsyncIterable<Uint8Array>) : (async function* () {})();
    return { status: res.status, statusText: res.statusText, headers, body };
  };
  // Only the SDKs send through bb.fetch, whatever their baseURL: the origin names the
  // provider when it is a known one, else the Anthropic SDK's version header does.
  provider ??= session.route(url) ?? ("anthropic-version" in request.headers ? "anthropic" : "openai");
  if (!upstream) {
    // a replay: fetch's own abort, which no upstream call carries here. Aborted before, the
    // call is not made (the recorded one stays to replay); during it, it rejects; after, the body fails
    if (callerSignal?.aborted) throw callerSignal.reason;
    const response = await session.handle(request, forward, signal, provider);
    if (callerSignal?.aborted) throw callerSignal.reason;
    return toResponse(response, undefined, url, callerSignal);
  }
  return toResponse(await session.handle(request, forward, signal, provider), () => upstream!.abort(), url);
}
