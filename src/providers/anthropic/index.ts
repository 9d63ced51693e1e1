/**
 * The Anthropic Messages API (`messages.create`, streamed or not; message threads), as
 * Blackbox's provider definition. Pure.
 */
import { BLACKBOX_ERROR_TYPE } from "../../errors.js";
import type { JsonValue } from "../../trace/types.js";
import { cleanPath } from "../shared/wire.js";
import type { ProviderDefinition, RequestKind } from "../types.js";
import { anthropicMoreMessages, anthropicRequestState, parseAnthropicRequest } from "./request.js";
import { buildResponse, parseResponse } from "./response.js";
import { createAssembler, synthesize } from "./stream.js";
import { MessageThreads } from "./threads.js";
const MANAGED_SESSIONS =
  "Anthropic managed agent sessions (client.beta.sessions, its events, SessionToolRunner) run the agent's model on Anthropic's side, " +
  "which Blackbox cannot record or replay (it records messages.create calls); not supported yet. Drive the model with messages.create " +
  "or client.beta.messages.toolRunner() in your own process to record the run.";

/**
 * Claude on a cloud's own API: AnthropicBedrock sends messages.create to Bedrock's
 * InvokeModel (`/model/<id>/invoke`, `/invoke-with-response-stream`: the model in the path,
 * the reply streamed as AWS event-stream frames), AnthropicVertex to Vertex AI's
 * `.../publishers/anthropic/models/<model>:rawPredict` / `:streamRawPredict`. Neither is
 * the Messages API this adapter records; passed through, the call would go unrecorded
 * (and in a replay, to the cloud).
 */
const CLOUD_APIS: ReadonlyArray<{ path: RegExp; what: string }> = [
  {
    path: /\/model\/[^/]+\/(invoke|invoke-with-response-stream)$/,
    what: "Claude on Amazon Bedrock (the AnthropicBedrock client of @anthropic-ai/bedrock-sdk) calls Bedrock's InvokeModel API",
  },
  {
    path: /\/publishers\/anthropic\/models\/[^/]+:(rawPredict|streamRawPredict)$/,
    what: "Claude on Vertex AI (the AnthropicVertex client of @anthropic-ai/vertex-sdk) calls Vertex AI's rawPredict API",
  },
];

const cloudRefusal = (what: string): string =>
  `${what}, not the Anthropic Messages API, which is what Blackbox records and replays; not supported yet. ` +
  "Record the agent with a client that speaks the Messages API (new Anthropic(), or AnthropicAws / AnthropicFoundry, named to Blackbox by their base URL).";

function classify(method: string, url: URL): RequestKind {
  const path = cleanPath(url);
  if (method.toUpperCase() === "POST" && path.endsWith("/v1/messages")) return "model";
  // passed through as another call, a session's model turns would leave a cassette of its tool steps alone,
  // which no replay can serve
  if (/\/v1\/sessions(\/|$)/.test(path)) return { unsupported: MANAGED_SESSIONS };
  const cloud = CLOUD_APIS.find((c) => c.path.test(path));
  if (cloud) return { unsupported: cloudRefusal(cloud.what) };
  return "other";
}

/** The SDK puts the whole body on APIError.error, so isBlackboxError reads `.error.error.type`. */
function errorBody(message: string): JsonValue {
  // The top-level `message` is what the SDK's APIError puts in its own message
  // ("400 [blackbox] ..."); the API's usual shape is kept under `error`.
  return { type: "error", message, error: { type: BLACKBOX_ERROR_TYPE, message } };
}

export const anthropicProvider: ProviderDefinition = {
  name: "anthropic",
  classify,
  parseRequest: parseAnthropicRequest,
  parseResponse,
  buildResponse,
  errorBody,
  stream: { createAssembler, synthesize },
  incremental: { full: anthropicRequestState, more: anthropicMoreMessages },
  chains: () => new MessageThreads(),
  defaultOrigin: "https://api.anthropic.com",
  baseUrlEnv: "ANTHROPIC_BASE_URL",
  apiKeyEnv: "ANTHROPIC_API_KEY",
  keyHeaders: ["x-api-key"],
  modelPath: "/v1/messages",
  requestIdHeader: "request-id",
  sdkPackage: "@anthropic-ai/sdk",
  sdkAgent: /^(Anthropic[A-Za-z]*)\/JS (\S+)/,
  sdkClient: "Anthropic",
  sdkHeader: "anthropic-version",
};
