/**
 * `bb.fetch`, the door for the SDKs' `fetch` option, and the fetch road into the session
 * the register hook's replay takes (src/interception/dispatcher/door.ts replayAtFetch).
 * Upstream (record, a live fork) it sends with fetch itself.
 */
import { FORWARDED } from "../../globals.js";
import { apiFor } from "../../providers/index.js";
import { providerByHeaders } from "../../providers/sdkIdentity.js";
import type { ProviderName, WireRequest } from "../../providers/types.js";
import type { HttpResponseLike, SessionPort } from "../../session/types.js";
import { dispatcherBelowDoor } from "../dispatcher/slot.js";
import { fetchRequest } from "../wire.js";
import { toResponse } from "./response.js";
import { abortableBody } from "./upstreamBody.js";

type FetchInit = RequestInit & { duplex?: string };

/**
 * `bb.fetch`: the door for the SDKs' `fetch` option. Every call goes to the session (only
 * the SDKs send through it, whatever their baseURL: the provider is the origin's, else the
 * Anthropic SDK's version header says which); in mode off every call goes to the global fetch.
 */
export function createFetch(session: Pick<SessionPort, "route" | "handle" | "mode">): typeof globalThis.fetch {
  const passThrough = (input: RequestInfo | URL, init?: FetchInit) => globalThis.fetch(input, init);
  return async function blackboxFetch(input: RequestInfo | URL, init?: FetchInit): Promise<Response> {
    if (session.mode === "off") return passThrough(input, init);
    return fetchThroughSession(session, input, init);
  };
}

/**
 * One fetch answered by the session: bb.fetch's, and the register hook's for a provider
 * URL in replay (src/interception/fetchGuard.ts), where nothing goes upstream and Node's fetch and
 * the dispatcher have nothing to add. `provider`: routed already.
 */
export async function fetchThroughSession(
  session: Pick<SessionPort, "route" | "handle" | "mode">,
  input: RequestInfo | URL,
  init: FetchInit | undefined,
  provider?: ProviderName,
): Promise<Response> {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const made = fetchRequest(input, init);
  const request = made instanceof Promise ? await made : made; // the SDKs' JSON: no extra tick
  const callerSignal =
    init?.signal ?? (typeof input === "object" && "signal" in input ? input.signal : undefined) ?? undefined;
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
  // the SDK's fetchOptions: { dispatcher } (a proxy)
  const own = (init as { dispatcher?: unknown } | undefined)?.dispatcher;
  const forward = async (req: WireRequest, sig?: AbortSignal): Promise<HttpResponseLike> => {
    // Under the register hook, go upstream through the caller's dispatcher or the one below
    // the door, marked: the session already handled this call, and the door (or the hook's
    // fetch guard) would hand it to the session again.
    const upstreamInit: FetchInit & { dispatcher?: unknown; [FORWARDED]: true } = {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: sig,
      [FORWARDED]: true,
    };
    const through = own ?? dispatcherBelowDoor();
    if (through) upstreamInit.dispatcher = through;
    const res = await globalThis.fetch(req.url, upstreamInit);
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    const body: AsyncIterable<Uint8Array> = res.body ? abortableBody(res.body, sig) : (async function* () {})();
    return { status: res.status, statusText: res.statusText, headers, body };
  };
  // Only the SDKs send through bb.fetch, whatever their baseURL: the origin names the
  // provider when it is a known one, else the Anthropic SDK's version header says which
  // service, and the path which of its APIs (chat completions, Responses).
  provider ??=
    session.route(url) ??
    apiFor(providerByHeaders(request.headers), request.method, request.parsedUrl ?? new URL(request.url));
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
