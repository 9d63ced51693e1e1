/** A session's answer as the Response a fetch gives: its url, the caller's signal, a cancelled body. */
import type { HttpResponseLike } from "../../session/types.js";

/**
 * `onCancel`: the caller cancelled the body (a `break` out of the SDK's stream): called at
 * once, so the request upstream can be aborted, as fetch aborts its own. The body's
 * generator may be waiting for the provider's next chunk: the abort ends that wait
 * (src/interception/fetch/upstreamBody.ts).
 */
export function toResponse(
  r: HttpResponseLike,
  onCancel?: (reason: unknown) => void,
  url?: string,
  signal?: AbortSignal,
): Response {
  const body = r.body;
  const init = { status: r.status, statusText: r.statusText, headers: r.headers };
  // a 204 (an answered telemetry upload) has no body: the Response constructor refuses one, even ""
  if (r.status === 204) return withUrl(new Response(null, init), url);
  if (typeof body === "string" || body instanceof Uint8Array)
    return withUrl(new Response((signal ? abortableBody(body, signal) : body) as BodyInit, init), url);
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
      // The body's end after an abort fails (with the AbortError onCancel caused): the
      // caller asked for no more, so that is no error of its. Thrown here it would be the
      // SDK's: both SDKs cancel the body of a failed attempt before they retry, and the
      // retry would fail with "This operation was aborted".
      await iterator.return?.(reason).catch(() => undefined);
    },
  });
  return withUrl(new Response(stream, init), url);
}

/**
 * `response.url` as fetch sets it (a constructed Response has ""): the SDKs log it, and an agent may read it;
 * a clone keeps it, as a fetched one's does.
 */
function withUrl(response: Response, url: string | undefined): Response {
  if (!url) return response;
  Object.defineProperty(response, "url", { value: url, enumerable: false, configurable: true });
  const clone = response.clone;
  Object.defineProperty(response, "clone", {
    value: () => withUrl(clone.call(response), url),
    enumerable: false,
    configurable: true,
    writable: true,
  });
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
