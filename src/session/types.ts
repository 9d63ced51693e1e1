import type { ProviderName, WireRequest } from "../providers/types.js";
import type { JsonValue, ModelOutput } from "../trace/types.js";
import type { BlackboxError } from "../errors.js";

export type Mode = "off" | "record" | "replay" | "fork";
export type MatchMode = "strict" | "sequence";

export interface SessionOptions {
  /** "off" (default), "record", "replay" or "fork". */
  mode?: Mode;
  /** Where record and fork write the cassette. */
  out?: string;
  /** The cassette replay and fork read. */
  cassette?: string;
  /** Fork step index (must be a tool_result step). */
  forkAt?: number;
  /** Replacement result at the fork point. */
  forkSet?: JsonValue;
  /** After the fork point: call the provider ("live") or answer from `script` (default: "script" when a script is given, else "live"). */
  continueWith?: "live" | "script";
  /** Scripted model outputs for continueWith "script" (or a path to a JSON list of them). */
  script?: ModelOutput[] | string;
  /** "strict" (default) compares each request with the recording; "sequence" serves in order. */
  match?: MatchMode;
  /** Id stored in the cassette (default: the out file's name without .json). */
  traceId?: string;
  /** Extra provider origins (base URLs) routed through the session, from the config. */
  providers?: { anthropic?: string[]; openai?: string[] };
  /**
   * Finish automatically at process end (the register hook sets this): record/fork write,
   * replay checks and reports to stderr, setting a non-zero exit code on divergence.
   * Without it, record and fork still write their cassette at process end.
   */
  autoFinish?: boolean;
  /**
   * Claim the cassette at the first model or tool call (the register hook sets this), so
   * two processes of one process tree never write one cassette.
   */
  claim?: boolean;
  /** Clock for timestamps (tests). */
  now?: () => number;
}

/** A response as the session hands it back to a door. */
export interface HttpResponseLike {
  status: number;
  statusText?: string;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: string | Uint8Array | AsyncIterable<Uint8Array>;
}

/** How a door sends a request upstream (live calls, pass-through calls). */
export type Forward = (request: WireRequest, signal?: AbortSignal) => Promise<HttpResponseLike>;

export interface FinishOptions {
  /** The run's answer, stored as JSON (default: the last model reply's text). */
  result?: unknown;
  /** A failed run: stored as run_failed agent_error with its message. null and undefined are no error. */
  error?: unknown;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFn = (...args: any[]) => any;
export type WrappedTool<F extends AnyFn> = (...args: Parameters<F>) => Promise<Awaited<ReturnType<F>>>;
export type WrappedTools<T extends Record<string, AnyFn>> = { [K in keyof T]: WrappedTool<T[K]> };

export interface Session {
  readonly mode: Mode;
  /** A fetch for the SDKs' `fetch` option. */
  readonly fetch: typeof globalThis.fetch;
  tools<T extends Record<string, AnyFn>>(tools: T): WrappedTools<T>;
  tool<F extends AnyFn>(name: string, fn: F): WrappedTool<F>;
  finish(options?: FinishOptions): Promise<void>;

  // --- the doors ------------------------------------------------------------
  /** The provider whose endpoint this URL is (default origins, *_BASE_URL, config), if any. */
  route(url: string): ProviderName | undefined;
  /**
   * Handle a request to a provider: record, replay, fork or pass through. `provider`
   * names it when the door knows (bb.fetch only ever carries SDK requests); else
   * the URL's origin decides, and a request to no provider origin is forwarded.
   */
  handle(request: WireRequest, forward: Forward, signal?: AbortSignal, provider?: ProviderName): Promise<HttpResponseLike>;
  /** A provider call refused wherever it goes (a model call to a base URL no route names, one the adapter refuses): the run fails with it; the reply the SDK gets. */
  refuse(provider: ProviderName, err: BlackboxError): HttpResponseLike;
  /** True once the session has seen a model or tool call. */
  readonly active: boolean;
  /** Undo every patch and exit hook this session installed. Harmless twice. */
  dispose(): void;
}
