/**
 * The wire responses the session itself gives (no provider behind them): a reply served from a recording or a
 * script, and a refused call as the provider's own 400, which the SDK surfaces without retrying.
 */
import type { BlackboxError } from "../errors.js";
import type { ToolCallIds } from "../providers/shared/ids.js";
import type { ParsedModelRequest, ProviderDefinition } from "../providers/types.js";
import type { ModelOutput } from "../trace/types.js";
import type { Chained } from "./conversations.js";
import { servedHeaders, synthesizeStream } from "./streaming.js";
import type { HttpResponseLike } from "./types.js";

/**
 * `output` as the response the agent asked for (streamed or not), numbered `seq`; `chained`: the conversation
 * the call continues, which remembers the reply (the provider never saw it, its next turn may refer to it).
 */
export function servedReply(
  provider: ProviderDefinition,
  output: ModelOutput,
  parsed: ParsedModelRequest,
  ids: ToolCallIds,
  seq: number,
  chained: Chained,
): HttpResponseLike {
  const built = chained || !parsed.stream ? provider.buildResponse(output, parsed, ids, seq) : undefined;
  if (chained) chained.store.remember(chained.request, built, false);
  if (parsed.stream) return synthesizeStream(provider.name, output, parsed, ids, seq);
  return {
    status: 200,
    statusText: "OK",
    headers: servedHeaders(provider.name, "application/json", seq),
    body: JSON.stringify(built),
  };
}

/** A refused call, as the provider's error body with `x-should-retry: false`. */
export function refusedReply(provider: ProviderDefinition, err: BlackboxError): HttpResponseLike {
  return {
    status: 400,
    statusText: "Bad Request",
    headers: { "content-type": "application/json", "x-should-retry": "false" },
    body: JSON.stringify(provider.errorBody(`[blackbox] ${err.message}`)),
  };
}
