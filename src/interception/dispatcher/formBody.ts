/**
 * The door claims `isMockActive`, so Node's fetch hands it the body the caller gave
 * (string, bytes, Blob, ReadableStream, FormData) instead of an async generator over
 * its encoded bytes, as it does for undici's MockAgent (reading that generator is a share
 * of each call: bench/dispatcher-per-call.mjs). Only FormData needs care: the Content-Type
 * fetch set names the boundary fetch would have used, and whoever encodes the FormData
 * now picks another. So it is encoded here, once, with headers that match.
 */
import { normalizeHeaders, type DispatchOptions } from "../wire.js";

/** `opts` with a FormData body encoded as multipart bytes, and Content-Type/-Length to match. */
export async function withEncodedForm(opts: DispatchOptions): Promise<DispatchOptions> {
  const encoded = new Response(opts.body as FormData);
  const body = new Uint8Array(await encoded.arrayBuffer());
  const headers: Record<string, string> = {
    ...normalizeHeaders(opts.headers),
    "content-type": encoded.headers.get("content-type") ?? "multipart/form-data",
    "content-length": String(body.byteLength),
  };
  return { ...opts, body, headers };
}
