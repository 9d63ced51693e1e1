/**
 * How the global dispatcher sends a provider request upstream: through the dispatcher
 * that was installed before Blackbox's (so proxies and custom agents keep working).
 * The response body is handed on as it arrives, decoded on the fly (gzip/deflate/br),
 * so the session sees plain JSON or a plain event stream.
 */
import type { WireRequest } from "../../providers/types.js";
import type { Forward, HttpResponseLike } from "../../session/types.js";
import { ChunkQueue } from "./chunkQueue.js";
import { FORWARDED } from "../../globals.js";
import { normalizeHeaders } from "../wire.js";

export interface DispatcherLike {
  dispatch(opts: Record<string, unknown>, handler: Record<string, unknown>): boolean;
}

/** Hop-by-hop and length headers undici computes (or refuses) itself. */
const DROPPED_REQUEST_HEADERS = new Set([
  "content-length",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "host",
]);

type Transform = import("node:stream").Transform;
/** A decoding pipeline: bytes are written to `input`, decoded bytes come out of `output`. */
interface Decoder {
  input: Transform;
  output: Transform;
}

/** A streaming decoder for the response's content-encoding (none for identity). */
async function decoderFor(encoding: string | undefined): Promise<Decoder | undefined> {
  const codings = (encoding ?? "")
    .toLowerCase()
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c && c !== "identity");
  if (codings.length === 0) return undefined;
  const zlib = await import("node:zlib");
  const make = (coding: string): Transform => {
    if (coding === "gzip" || coding === "x-gzip") return zlib.createGunzip();
    if (coding === "deflate") return zlib.createInflate();
    if (coding === "br") return zlib.createBrotliDecompress();
    throw new Error(
      `blackbox: the provider answered with content-encoding "${coding}", which cannot be decoded; remove accept-encoding "${coding}" from the request`,
    );
  };
  const chain = codings.reverse().map(make);
  for (let i = 0; i + 1 < chain.length; i++) chain[i]!.pipe(chain[i + 1]!);
  return { input: chain[0]!, output: chain[chain.length - 1]! };
}

/** How many upstream dispatches are running now (synchronously: see `forwardingNow`). */
let forwarding = 0;

/**
 * True while a session's upstream call is being dispatched: a door reached from inside
 * that dispatch (under an app's dispatcher that wraps the door and builds new dispatch
 * options, which drop the FORWARDED mark) is on the way of the session's own call.
 */
export function forwardingNow(): boolean {
  return forwarding > 0;
}

export function forwardThrough(previous: DispatcherLike): Forward {
  return (request: WireRequest, signal?: AbortSignal) =>
    new Promise<HttpResponseLike>((resolve, reject) => {
      const url = new URL(request.url);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(request.headers)) if (!DROPPED_REQUEST_HEADERS.has(k)) headers[k] = v;
      let abortUpstream: ((reason?: unknown) => void) | undefined;
      let answered = false;
      let decoder: Decoder | undefined;
      let pending: Promise<void> = Promise.resolve();
      // The body is handed on chunk by chunk as it arrives (a live stream reaches the
      // agent as the provider sends it), decoded on the fly when it is compressed.
      const queue = new ChunkQueue(() => abortUpstream?.(new Error("the response was not read to the end")));
      const handler = {
        onConnect(abort: (reason?: unknown) => void) {
          abortUpstream = abort;
          if (!signal) return;
          if (signal.aborted) abort(signal.reason);
          else signal.addEventListener("abort", () => abort(signal.reason), { once: true });
        },
        onHeaders(code: number, raw: unknown, _resume: () => void, text?: string) {
          if (code < 200) return true;
          answered = true;
          const responseHeaders = normalizeHeaders(raw);
          const { "content-encoding": encoding, "content-length": _length, ...rest } = responseHeaders;
          pending = decoderFor(encoding).then(
            (d) => {
              decoder = d;
              if (d) {
                d.output.on("data", (c: Buffer) => queue.push(new Uint8Array(c)));
                d.output.on("end", () => queue.end());
                d.output.on("error", (e) => queue.fail(e));
              }
              resolve({ status: code, statusText: text ?? "", headers: rest, body: queue });
            },
            (err) => {
              reject(err);
              abortUpstream?.(err);
            },
          );
          return true;
        },
        onData(chunk: Uint8Array) {
          const copy = Buffer.from(chunk);
          pending = pending.then(() => {
            if (decoder) decoder.input.write(copy);
            else queue.push(new Uint8Array(copy));
          });
          return true;
        },
        onComplete() {
          pending = pending.then(() => {
            if (decoder) decoder.input.end();
            else queue.end();
          });
        },
        onError(err: unknown) {
          // After the headers the reply is resolved (once its decoder is ready: `pending`), and
          // the error ends its body, as fetch's does: a reset mid-reply is no failed request,
          // which the SDK would retry
          if (!answered) reject(err);
          pending = pending.then(() => queue.fail(err));
        },
      };
      forwarding++;
      try {
        previous.dispatch(
          {
            origin: url.origin,
            path: url.pathname + url.search,
            method: request.method,
            headers,
            body: request.body ?? null,
            [FORWARDED]: true,
          },
          handler,
        );
      } finally {
        forwarding--;
      }
    });
}
