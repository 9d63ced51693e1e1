import { BlackboxUnsupportedError } from "../errors.js";
import type { ToolCallIds } from "../providers/shared/ids.js";
import { providers, serviceOf, STREAM_CONTENT_TYPE } from "../providers/index.js";
import type { ParsedModelRequest, ProviderName } from "../providers/types.js";
import type { ModelOutput } from "../trace/types.js";
import type { HttpResponseLike } from "./types.js";

/** The whole body of a response as text. */
export async function readBody(body: HttpResponseLike["body"]): Promise<string> {
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

function chunksOf(body: HttpResponseLike["body"]): AsyncIterable<Uint8Array> {
  if (typeof body === "string")
    return (async function* () {
      yield new TextEncoder().encode(body);
    })();
  if (body instanceof Uint8Array)
    return (async function* () {
      yield body;
    })();
  return body;
}

/** A live stream handed to the agent, and how to record it early. */
export interface LiveStream {
  response: HttpResponseLike;
  /**
   * Records the reply now if its final event has come (a process that exits, or a
   * finish(), before the body's end): true when it is settled, recorded or refused.
   */
  settleIfWhole(): boolean;
}

/**
 * A live streamed reply: every chunk goes to the agent as it arrives, untouched,
 * and into an assembler; when the stream ends, `record` gets the same neutral
 * output a non-streamed call would have given (and the reply body the events fold
 * into). A stream the agent abandons, or that
 * breaks, is not recorded: `fail` gets a refusal that says so. Each stream is settled
 * once: `record` or `fail`, never both.
 */
export function streamLive(
  provider: ProviderName,
  upstream: HttpResponseLike,
  ids: ToolCallIds,
  record: (output: ModelOutput, reply: unknown) => void,
  refuse: (error: BlackboxUnsupportedError) => void,
  signal?: AbortSignal,
): LiveStream {
  const assembler = providers[provider].stream.createAssembler(ids);
  const source = chunksOf(upstream.body);
  let settled = false;
  /** Bytes of the reply read so far, and where the assembler first found it wrong: named in a refusal. */
  let read = 0;
  let wrongAt: string | undefined;
  function fail(error: BlackboxUnsupportedError): void {
    if (settled) return;
    settled = true;
    refuse(error);
  }
  /** The reply is whole: record it (or refuse what the assembler cannot make sense of). */
  function settle(stoppedAfterFinalEvent: boolean): void {
    if (settled) return;
    settled = true;
    let output: ModelOutput;
    try {
      output = assembler.finish(stoppedAfterFinalEvent);
    } catch (err) {
      const message = (err as Error).message + (wrongAt ? ` It went wrong in ${wrongAt} of the reply.` : "");
      refuse(new BlackboxUnsupportedError(message));
      return;
    }
    record(output, assembler.reply());
  }
  async function* passThrough(): AsyncGenerator<Uint8Array> {
    let completed = false;
    let broke = false;
    try {
      for await (const chunk of source) {
        assembler.push(chunk);
        read += chunk.byteLength;
        if (wrongAt === undefined && assembler.failed()) wrongAt = `bytes ${read - chunk.byteLength}-${read}`;
        yield chunk;
      }
      completed = true;
    } catch (err) {
      // The agent aborting its request (stream.controller.abort(), a timeout signal) surfaces here
      // as an AbortError or TimeoutError (or the reason it gave): leave it to the "stopped
      // reading" check below rather than blaming the provider.
      const name = (err as Error)?.name;
      if (name === "AbortError" || name === "TimeoutError" || signal?.aborted) throw err;
      broke = true;
      fail(
        new BlackboxUnsupportedError(
          `the provider's stream broke before it ended (${providerLabel(provider)}: ${(err as Error).message}, after byte ${read} of the reply); a partial reply cannot be replayed, so this model call was not recorded. Record the run again.`,
        ),
      );
      throw err;
    } finally {
      // The agent stopped reading (a break, an abort). Once the reply's final event has come
      // (a loop that breaks on message_stop or finish_reason), it has the whole reply; after
      // an error event (the SDK throws on it and lets go of the body), that is what to name.
      if (!completed && !broke) {
        if (assembler.complete()) {
          settle(true);
        } else if (assembler.failed()) {
          settle(false);
        } else {
          fail(
            new BlackboxUnsupportedError(
              "the agent stopped reading a streamed reply before it ended; a partial reply cannot be replayed, so this model call was not recorded. Read streams to the end while recording (or record without streaming).",
            ),
          );
        }
      }
    }
    settle(false);
  }
  const headers = { ...upstream.headers };
  delete headers["content-length"];
  delete headers["content-encoding"];
  return {
    response: { status: upstream.status, statusText: upstream.statusText, headers, body: passThrough() },
    settleIfWhole() {
      if (!settled && assembler.complete()) settle(true);
      return settled;
    },
  };
}

/** The provider as its messages name it. */
export function providerLabel(provider: ProviderName): string {
  const service = serviceOf(provider); // the Responses API is OpenAI's
  return service === "openai"
    ? "OpenAI"
    : service === "anthropic"
      ? "Anthropic"
      : service === "bedrock"
        ? "Amazon Bedrock"
        : service;
}

/**
 * A served reply's headers: its content type, and the request id under the one header its
 * provider answers with, which its SDK reads (Anthropic's `_request_id` from `request-id`,
 * OpenAI's from `x-request-id`): Blackbox's `bbx_req-<seq>`.
 */
export function servedHeaders(provider: ProviderName, contentType: string, seq: number): Record<string, string> {
  const headers: Record<string, string> = { "content-type": contentType };
  headers[providers[provider].requestIdHeader] = `bbx_req-${seq}`;
  return headers;
}

/** A replayed (or scripted) reply as the event stream the agent asked for. */
export function synthesizeStream(
  provider: ProviderName,
  output: ModelOutput,
  request: ParsedModelRequest,
  ids: ToolCallIds,
  seq: number,
): HttpResponseLike {
  return {
    status: 200,
    statusText: "OK",
    headers: servedHeaders(provider, providers[provider].stream.contentType ?? STREAM_CONTENT_TYPE, seq),
    body: providers[provider].stream.synthesize(output, request, ids, seq),
  };
}
