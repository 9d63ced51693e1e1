/**
 * How the global dispatcher sends a provider request upstream: through the dispatcher
 * that was installed before Blackbox's (so proxies and custom agents keep working).
 * The response is read whole and decoded (gzip/deflate/br), so the session sees JSON.
 */
import type { WireRequest } from "../providers/types.js";
import type { Forward, HttpResponseLike } from "../session/types.js";
import { normalizeHeaders } from "./wire.js";

export interface DispatcherLike {
  dispatch(opts: Record<string, unknown>, handler: Record<string, unknown>): boolean;
}

/** Hop-by-hop and length headers undici computes (or refuses) itself. */
const DROPPED_REQUEST_HEADERS = new Set(["content-length", "connection", "keep-alive", "transfer-encoding", "upgrade", "host"]);

async function decode(body: Buffer, encoding: string | undefined): Promise<Buffer> {
  const codings = (encoding ?? "").toLowerCase().split(",").map((c) => c.trim()).filter((c) => c && c !== "identity");
  if (codings.length === 0) return body;
  const zlib = await import("node:zlib");
  let out = body;
  for (const coding of codings.reverse()) {
    if (coding === "gzip" || coding === "x-gzip") out = zlib.gunzipSync(out);
    else if (coding === "deflate") out = zlib.inflateSync(out);
    else if (coding === "br") out = zlib.brotliDecompressSync(out);
    else throw new Error(`blackbox: the provider answered with content-encoding "${coding}", which cannot be decoded; remove accept-encoding "${coding}" from the request`);
  }
  return out;
}

export function forwardThrough(previous: DispatcherLike): Forward {
  return (request: WireRequest, signal?: AbortSignal) =>
    new Promise<HttpResponseLike>((resolve, reject) => {
      const url = new URL(request.url);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(request.headers)) if (!DROPPED_REQUEST_HEADERS.has(k)) headers[k] = v;
      let status = 0;
      let statusText = "";
      let responseHeaders: Record<string, string> = {};
      const chunks: Buffer[] = [];
      const handler = {
        onConnect(abort: (reason?: unknown) => void) {
          if (!signal) return;
          if (signal.aborted) abort(signal.reason);
          else signal.addEventListener("abort", () => abort(signal.reason), { once: true });
        },
        onHeaders(code: number, raw: unknown, _resume: () => void, text?: string) {
          if (code < 200) return true;
          status = code;
          statusText = text ?? "";
          responseHeaders = normalizeHeaders(raw);
          return true;
        },
        onData(chunk: Uint8Array) {
          chunks.push(Buffer.from(chunk));
          return true;
        },
        onComplete() {
          const encoding = responseHeaders["content-encoding"];
          decode(Buffer.concat(chunks), encoding).then((body) => {
            const { "content-encoding": _e, "content-length": _l, ...rest } = responseHeaders;
            resolve({ status, statusText, headers: rest, body: new Uint8Array(body) });
          }, reject);
        },
        onError(err: unknown) {
          reject(err);
        },
      };
      previous.dispatch(
        { origin: url.origin, path: url.pathname + url.search, method: request.method, headers, body: request.body ?? null },
        handler,
      );
    });
}
