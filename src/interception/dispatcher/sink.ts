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
  /** `skip`: header names not to pass on (lower-case). */
  headers(status: number, headers: Record<string, string>, statusText: string, skip?: ReadonlySet<string>): void;
  data(chunk: Uint8Array): void;
  end(): void;
  error(err: unknown): void;
  /** True once the response ended, failed or was aborted: nothing more is delivered. */
  readonly done: boolean;
}

/** The raw [name, value, ...] header list the legacy API takes, without the names `skip` lists. */
function rawHeaders(headers: Record<string, string>, skip: ReadonlySet<string> | undefined): Buffer[] {
  const raw: Buffer[] = [];
  for (const name in headers) {
    if (skip?.has(name) || !Object.hasOwn(headers, name)) continue;
    raw.push(Buffer.from(name, "latin1"), Buffer.from(headers[name]!, "latin1"));
  }
  return raw;
}

function withoutNames(headers: Record<string, string>, skip: ReadonlySet<string> | undefined): Record<string, string> {
  if (!skip) return headers;
  const out: Record<string, string> = {};
  for (const name in headers) if (!skip.has(name) && Object.hasOwn(headers, name)) out[name] = headers[name]!;
  return out;
}

/**
 * The controller the new handler API is given: abort, and pause/resume that do nothing
 * (a whole reply is delivered at once). One class, not closures made per call: a replayed
 * call is short enough that a few microseconds show (bench/dispatcher-per-call.mjs).
 */
class Controller {
  constructor(private readonly sink: Sink) {}
  abort(reason?: unknown): void {
    this.sink.abort(reason);
  }
  pause(): void {}
  resume(): void {}
  get paused(): boolean {
    return false;
  }
  get aborted(): boolean {
    return this.sink.aborter?.signal.aborted ?? false;
  }
  get reason(): unknown {
    return this.sink.aborter?.signal.reason;
  }
}

class Sink implements ResponseSink {
  // Made when first asked for (only a request sent upstream needs it): an AbortController
  // costs several microseconds, a real share of a replayed call.
  aborter: AbortController | undefined;
  done = false;
  private readonly modern: boolean;
  private readonly controller = new Controller(this);

  constructor(private readonly handler: AnyHandler) {
    this.modern = typeof handler.onRequestStart === "function" || typeof handler.onResponseStart === "function";
  }

  get signal(): AbortSignal {
    this.aborter ??= new AbortController();
    return this.aborter.signal;
  }

  abort(reason?: unknown): void {
    if (this.done) return;
    this.aborter ??= new AbortController();
    this.aborter.abort(reason);
    this.error(reason ?? new DOMException("The operation was aborted.", "AbortError"));
  }

  start(): void {
    if (this.modern) this.handler.onRequestStart?.(this.controller, {});
    else this.handler.onConnect?.((reason?: unknown) => this.abort(reason));
  }

  headers(status: number, headers: Record<string, string>, statusText: string, skip?: ReadonlySet<string>): void {
    if (this.done) return;
    if (this.modern) this.handler.onResponseStart?.(this.controller, status, withoutNames(headers, skip), statusText);
    else {
      this.handler.onResponseStarted?.();
      this.handler.onHeaders?.(status, rawHeaders(headers, skip), () => {}, statusText);
    }
  }

  data(chunk: Uint8Array): void {
    if (this.done) return;
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.modern) this.handler.onResponseData?.(this.controller, buf);
    else this.handler.onData?.(buf);
  }

  end(): void {
    if (this.done) return;
    this.done = true;
    if (this.modern) this.handler.onResponseEnd?.(this.controller, {});
    else this.handler.onComplete?.([]);
  }

  error(err: unknown): void {
    if (this.done) return;
    this.done = true;
    if (this.modern) this.handler.onResponseError?.(this.controller, err);
    else this.handler.onError?.(err);
  }
}

export function sinkFor(handler: AnyHandler): ResponseSink {
  return new Sink(handler);
}
