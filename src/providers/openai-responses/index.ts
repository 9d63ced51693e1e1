/**
 * The OpenAI Responses API (`client.responses.create(...)`, with `{ stream: true }`, and
 * `client.responses.stream(...)`) as Blackbox's provider definition. Its wire format shares
 * nothing with chat completions but the provider: origin, environment variables, key
 * header, request-id header, error body and SDK, which it takes from the chat completions
 * definition, and whose base URLs it shares: the routes tell the two apart by path (classify).
 * Pure. See docs/responses-api.md.
 */
import { openaiProvider } from "../openai/index.js";
import { cleanPath } from "../shared/wire.js";
import type { ProviderDefinition, RequestKind } from "../types.js";
import { ResponseChains } from "./chains.js";
import { parseResponsesRequest, responsesMoreItems, responsesRequestState } from "./request.js";
import { buildResponsesResponse, parseResponsesResponse, responsesErrorBody } from "./response.js";
import { responsesStreamAdapter } from "./stream.js";

export { ResponseChains, forHistory, wholeHistory, type ResponsesChainedRequest } from "./chains.js";
export {
  chainRefusal,
  inputItems,
  parseResponsesRequest,
  responsesMoreItems,
  responsesRequestState,
} from "./request.js";
export { buildResponsesResponse, parseResponsesResponse, responsesErrorBody } from "./response.js";
export { ResponsesEventFolder, createAssembler, responseToSse, responsesStreamAdapter, synthesize } from "./stream.js";

/**
 * POST …/responses is a model call; everything else under it (retrieve, delete, cancel,
 * input_items, input_tokens, compact) and any other path is another call: recorded runs
 * pass it through, replay refuses it, as for any SDK call that is not a model call.
 */
function classify(method: string, url: URL): RequestKind {
  return method.toUpperCase() === "POST" && cleanPath(url).endsWith("/responses") ? "model" : "other";
}

export const openaiResponsesProvider: ProviderDefinition = {
  name: "openai-responses",
  classify,
  parseRequest: parseResponsesRequest,
  parseResponse: parseResponsesResponse,
  buildResponse: buildResponsesResponse,
  errorBody: responsesErrorBody,
  stream: responsesStreamAdapter,
  incremental: { full: responsesRequestState, more: responsesMoreItems, member: "input", expandsEvery: true },
  chains: () => new ResponseChains(),
  baseUrlsOf: "openai",
  defaultOrigin: openaiProvider.defaultOrigin,
  baseUrlEnv: openaiProvider.baseUrlEnv,
  apiKeyEnv: openaiProvider.apiKeyEnv,
  keyHeaders: openaiProvider.keyHeaders,
  modelPath: "/responses",
  requestIdHeader: openaiProvider.requestIdHeader,
  sdkPackage: openaiProvider.sdkPackage,
  sdkAgent: openaiProvider.sdkAgent,
  sdkClient: openaiProvider.sdkClient,
};

/** The adapter part of the definition (the definition extends ProviderAdapter). */
export const openaiResponsesAdapter = openaiResponsesProvider;
