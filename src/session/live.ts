/**
 * A model call sent to the provider (record, a live fork): the reply goes to the agent as
 * the provider sends it, and is recorded when it is whole. A provider error (a status of
 * 400 or more) is the SDK's to handle (retried or thrown): nothing of it is recorded, and
 * only the attempt that succeeds is a step. A reply that breaks or is not JSON after a 2xx
 * reaches the SDK as it came (it fails on it as without Blackbox, and does not retry it);
 * the call is not recorded and the run is refused.
 */
import { BlackboxUnsupportedError } from "../errors.js";
import type { EngineContext, ModelCall } from "./modes/mode.js";
import type { Recorder } from "./recorder.js";
import { errorMessageOf } from "./json.js";
import { providerLabel, readBody, streamLive } from "./streaming.js";
import type { HttpResponseLike } from "./types.js";

export async function liveModelCall(
  engine: EngineContext,
  recorder: Recorder,
  call: ModelCall,
  startedAt: number,
): Promise<HttpResponseLike> {
  const { provider, parsed, request, forward, signal } = call;
  const chained = engine.chained;
  // a turn continuing a replayed or scripted reply: the provider holds no such conversation, so it gets the
  // whole one as new
  const sent = chained?.request.continuesLocal ? { ...request, body: chained.store.asNew(chained.request) } : request;
  const upstream = await forward(sent, signal);
  // the caller gave up while it came (the call ended then, its retry may be in flight): nothing of it is kept
  if (signal?.aborted) throw signal.reason;
  // a provider error: the SDK handles it; nothing recorded
  if (upstream.status < 200 || upstream.status >= 300) return upstream;
  if (parsed.stream) {
    // The steps are appended when the stream ends; until then the call is in flight.
    engine.streamOpen = true;
    const live = streamLive(
      provider.name,
      upstream,
      engine.ids,
      (output, reply) => {
        engine.streamOpen = false;
        engine.settleOpenStream = undefined;
        recorder.model(parsed, output, startedAt);
        if (chained) chained.store.remember(chained.request, reply, true);
      },
      (error) => {
        engine.streamOpen = false;
        engine.settleOpenStream = undefined;
        engine.firstError ??= error;
      },
      signal,
    );
    engine.settleOpenStream = live.settleIfWhole;
    return live.response;
  }
  const headers = { ...upstream.headers };
  delete headers["content-encoding"];
  delete headers["content-length"];
  delete headers["transfer-encoding"];
  const label = providerLabel(provider.name);
  const read = await readWhole(upstream.body, signal);
  if (signal?.aborted) throw signal.reason;
  if ("error" in read) {
    // The reply broke after its headers (a reset): the SDK fails reading it, as it does
    // without Blackbox (and does not retry it); the call cannot be recorded.
    engine.firstError ??= new BlackboxUnsupportedError(
      `the provider's reply broke before it ended (${label}: ${errorMessageOf(read.error)}, after byte ${read.bytes} of the reply); a partial reply cannot be replayed, so this model call was not recorded. Record the run again.`,
    );
    return {
      status: upstream.status,
      statusText: upstream.statusText,
      headers,
      body: failing(read.chunks, read.error),
    };
  }
  const text = read.text;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    // the SDK gets it as it came, and fails on it as it does without Blackbox
    engine.firstError ??= new BlackboxUnsupportedError(
      `the provider's response is not JSON (${label}: ${errorMessageOf(err)}, a reply of ${read.bytes} bytes), so this model call was not recorded; Blackbox records JSON responses of messages.create, chat.completions.create, responses.create and Gemini generateContent. Record the run again.`,
    );
    return { status: upstream.status, statusText: upstream.statusText, headers, body: text };
  }
  const output = provider.parseResponse(json, engine.ids);
  recorder.model(parsed, output, startedAt);
  if (chained) chained.store.remember(chained.request, json, true);
  return { status: upstream.status, statusText: upstream.statusText, headers, body: text };
}

/**
 * A whole reply's body, or the chunks read before it failed. The caller's abort (the SDK's
 * timeout) is thrown: fetch rejects with it, and the SDK retries or stops as it would.
 */
async function readWhole(
  body: HttpResponseLike["body"],
  signal: AbortSignal | undefined,
): Promise<{ text: string; bytes: number } | { error: unknown; chunks: Uint8Array[]; bytes: number }> {
  if (typeof body === "string") return { text: body, bytes: Buffer.byteLength(body) };
  if (body instanceof Uint8Array) return { text: await readBody(body), bytes: body.byteLength };
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      bytes += chunk.byteLength;
    }
  } catch (error) {
    if (signal?.aborted) throw error;
    return { error, chunks, bytes };
  }
  return { text: Buffer.concat(chunks).toString("utf8"), bytes };
}

/** The bytes that came, then the failure they ended with. */
async function* failing(chunks: Uint8Array[], error: unknown): AsyncGenerator<Uint8Array> {
  yield* chunks;
  throw error;
}
