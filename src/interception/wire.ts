/**
 * The one request normalizer of both doors: what a fetch is given (bb.fetch, the hook's
 * fetch guard) and what a dispatcher receives (undici dispatch options) become the same
 * WireRequest; and a session response body becomes bytes.
 */
import type { WireRequest } from "../providers/types.js";

export interface DispatchOptions {
  origin?: string | URL;
  path: string;
  method: string;
  headers?: unknown;
  body?: unknown;
  [key: string | symbol]: unknown;
}

export function requestUrl(opts: DispatchOptions): URL {
  return new URL(opts.path, String(opts.origin ?? ""));
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("latin1");
  return String(value);
}

/** Header names lower-cased; accepts a plain object, a flat [k, v, ...] array, pairs or a Headers-like iterable. */
export function normalizeHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (name: unknown, value: unknown) => {
    if (value === undefined || value === null) return;
    const key = text(name).toLowerCase();
    const val = Array.isArray(value) ? value.map(text).join(", ") : text(value);
    out[key] = key in out ? `${out[key]}, ${val}` : val;
  };
  if (headers === null || headers === undefined) return out;
  if (Object.prototype.toString.call(headers) === "[object Headers]") {
    // names already lower case and joined; forEach is cheaper than entries(). (Not `instanceof
    // Headers`: on Node 20 the global is a getter that loads the fetch stack, which a process
    // that never fetches does not load.)
    (headers as Headers).forEach((v, k) => (out[k] = v));
    return out;
  }
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) for (const [k, v] of headers as unknown[][]) add(k, v);
    else for (let i = 0; i + 1 < headers.length; i += 2) add(headers[i], headers[i + 1]);
    return out;
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === "function") {
    for (const [k, v] of headers as Iterable<[unknown, unknown]>) add(k, v);
    return out;
  }
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) add(k, v);
  return out;
}

function toBytes(chunk: unknown): Uint8Array {
  if (typeof chunk === "string") return Buffer.from(chunk, "utf8");
  if (chunk instanceof Uint8Array) return chunk;
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError(`blackbox: cannot read a request body chunk of type ${typeof chunk}`);
}

export function isFormData(body: unknown): boolean {
  return typeof body === "object" && body !== null && Object.prototype.toString.call(body) === "[object FormData]";
}

/**
 * A request body as text: string, bytes, a Blob, a form (URLSearchParams, FormData), or an (async) iterable
 * of chunks (a ReadableStream).
 */
export async function readBody(body: unknown): Promise<string | undefined> {
  if (body === null || body === undefined) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array || body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
    return Buffer.from(toBytes(body)).toString("utf8");
  }
  // as fetch encodes them
  if (body instanceof URLSearchParams || isFormData(body)) return new Response(body as BodyInit).text();
  const b = body as { text?: () => Promise<string> } & Partial<AsyncIterable<unknown>> & Partial<Iterable<unknown>>;
  if (typeof b.text === "function") return b.text();
  const chunks: Uint8Array[] = [];
  if (typeof b[Symbol.asyncIterator] === "function") {
    for await (const chunk of b as AsyncIterable<unknown>) chunks.push(toBytes(chunk));
  } else if (typeof b[Symbol.iterator] === "function") {
    for (const chunk of b as Iterable<unknown>) chunks.push(toBytes(chunk));
  } else {
    throw new TypeError(`blackbox: cannot read a request body of type ${Object.prototype.toString.call(body)}`);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The WireRequest of dispatch options (`url`: requestUrl(opts), when the caller has it); no
 * await for a string body. Its headers are normalized when first read: a replay never
 * reads them (only record and a live fork do, for the upstream call and the secret scan),
 * and normalizing the SDK's ~15 headers is a real share of a replayed call
 * (bench/dispatcher-per-call.mjs).
 */
export function wireRequest(opts: DispatchOptions, parsedUrl = requestUrl(opts)): WireRequest | Promise<WireRequest> {
  const method = String(opts.method).toUpperCase();
  const raw = opts.headers;
  const url = parsedUrl.href;
  const request = (body: string | undefined): WireRequest => {
    let headers: Record<string, string> | undefined;
    return {
      method,
      url,
      parsedUrl,
      get headers() {
        return (headers ??= normalizeHeaders(raw));
      },
      body,
    };
  };
  if (typeof opts.body === "string") return request(opts.body);
  return readBody(opts.body).then(request);
}

type FetchInit = RequestInit & { duplex?: string };

/**
 * The WireRequest of a fetch's arguments; no await for a string body (the SDKs' JSON). Its
 * headers, as the dispatch road's, are normalized when first read (a replay reads none).
 */
export function fetchRequest(
  input: RequestInfo | URL,
  init: FetchInit | undefined,
): WireRequest | Promise<WireRequest> {
  if (typeof input !== "string" && !(input instanceof URL)) {
    // a Request alone (the AWS SDK's FetchHttpHandler sends one) is read as it is: no copy
    const r = init === undefined ? input : new Request(input, init);
    return (r.body ? r.text() : Promise.resolve(undefined)).then((body) => ({
      method: r.method,
      url: r.url,
      headers: normalizeHeaders(r.headers),
      body,
    }));
  }
  const method = (init?.method ?? "GET").toUpperCase();
  const url = typeof input === "string" ? input : input.href;
  const raw = init?.headers;
  const request = (body: string | undefined): WireRequest => {
    let headers: Record<string, string> | undefined;
    return {
      method,
      url,
      get headers() {
        return (headers ??= normalizeHeaders(raw));
      },
      body,
    };
  };
  const body = init?.body;
  if (typeof body === "string") return request(body);
  return readBody(body).then(request);
}

/** Each chunk of a response body, whatever form the session gave it in. */
export async function* bodyChunks(body: string | Uint8Array | AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (typeof body === "string") {
    if (body.length > 0) yield Buffer.from(body, "utf8");
    return;
  }
  if (body instanceof Uint8Array) {
    if (body.byteLength > 0) yield body;
    return;
  }
  for await (const chunk of body) yield toBytes(chunk);
}
