/**
 * One face over undici's two handler APIs. Node 20's fetch (and undici's own fetch)
 * hand a dispatcher the legacy handler (onConnect/onHeaders/onData/onComplete/onError);
 * undici 7 interceptors and newer callers hand the new one (onRequestStart,
 * onResponseStart, onResponseData, onResponseEnd, onResponseError). The session's
 * answer is delivered through a ResponseSink whatever the caller spoke.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyHandler = Record<string, any>;

export interface ResponseSink {
  /** Fires when the caller aborts the request. */
  readonly signal: AbortSignal;
  /** Tell the caller the request started (hands it the abort function / controller). */
  start(): void;
  headers(status: number, headers: Record<string, string>, statusText: string): void;
  data(chunk: Uint8Array): void;
  end(): void;
  error(err: unknown): void;
  /** True once the response ended, failed or was aborted: nothing more is delivered. */
  readonly done: boolean;
}

function rawHeaders(headers: Record<string, string>): Buffer[] {
  const raw: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) raw.push(Buffer.from(name, "latin1"), Buffer.from(value, "latin1"));
  return raw;
}

export function sinkFor(handler: AnyHandler): ResponseSink {
  // Made when first asked for (only a request sent upstream needs it): an AbortController
  // costs several microseconds, a real share of a replayed call (bench/dispatcher-per-call.mjs).
  let aborter: AbortController | undefined;
  const modern = typeof handler.onRequestStart === "function" || typeof handler.onResponseStart === "function";
  let done = false;
  const controller = {
    abort(reason?: unknown) {
      if (done) return;
      aborter ??= new AbortController();
      aborter.abort(reason);
      sink.error(reason ?? new DOMException("The operation was aborted.", "AbortError"));
    },
    pause() {},
    resume() {},
    get paused() {
      return false;
    },
    get aborted() {
      return aborter?.signal.aborted ?? false;
    },
    get reason() {
      return aborter?.signal.reason;
    },
  };
  const sink: ResponseSink = {
    get signal() {
      aborter ??= new AbortController();
      return aborter.signal;
    },
    get done() {
      return done;
    },
    start() {
      if (modern) handler.onRequestStart?.(controller, {});
      else handler.onConnect?.((reason?: unknown) => controller.abort(reason));
    },
    headers(status, headers, statusText) {
      if (done) return;
      if (modern) handler.onResponseStart?.(controller, status, headers, statusText);
      else {
        handler.onResponseStarted?.();
        handler.onHeaders?.(status, rawHeaders(headers), () => {}, statusText);
      }
    },
    data(chunk) {
      if (done) return;
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (modern) handler.onResponseData?.(controller, buf);
      else handler.onData?.(buf);
    },
    end() {
      if (done) return;
      done = true;
      if (modern) handler.onResponseEnd?.(controller, {});
      else handler.onComplete?.([]);
    },
    error(err) {
      if (done) return;
      done = true;
      if (modern) handler.onResponseError?.(controller, err);
      else handler.onError?.(err);
    },
  };
  return sink;
}
