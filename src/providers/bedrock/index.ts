/**
 * Amazon Bedrock's Converse API (`ConverseCommand`, `ConverseStreamCommand` of
 * @aws-sdk/client-bedrock-runtime; the AI SDK's @ai-sdk/amazon-bedrock) as Blackbox's
 * provider definition. The model is named in the path (`POST /model/{modelId}/converse`,
 * `/converse-stream`), which `requestText` puts into the body that is parsed; the stream
 * is AWS event-stream frames, not SSE (eventstream.ts). The request is signed with SigV4:
 * the Authorization header and X-Amz-Security-Token are key headers, whose values (and the
 * access key id and signature in them) never reach a cassette. Pure. See docs/bedrock.md.
 */
import { cleanPath, isObj } from "../shared/wire.js";
import type { ProviderDefinition, RequestKind } from "../types.js";
import { converseMoreMessages, converseRequestState, parseConverseRequest } from "./request.js";
import { buildConverseResponse, converseErrorBody, parseConverseResponse } from "./response.js";
import { converseStreamAdapter } from "./stream.js";

export { EventStreamDecoder, crc32, encodeEvent, encodeMessage } from "./eventstream.js";
export { parseConverseRequest } from "./request.js";
export { buildConverseResponse, parseConverseResponse } from "./response.js";
export { ConverseEventFolder, converseStreamAdapter } from "./stream.js";

const MODEL_CALL = /\/model\/([^/]+)\/(converse|converse-stream)$/;
const INVOKE = /\/model\/[^/]+\/(invoke|invoke-with-response-stream)$/;

const INVOKE_REFUSAL =
  "Bedrock's InvokeModel API (InvokeModelCommand and InvokeModelWithResponseStreamCommand of @aws-sdk/client-bedrock-runtime, or Claude through the AnthropicBedrock client of @anthropic-ai/bedrock-sdk) sends the model's own request body, whose form differs for every model family, " +
  "so Blackbox cannot record it in the neutral form a replay and a fork need; not supported. Call the model with Bedrock's Converse API (ConverseCommand / ConverseStreamCommand: one format for every model), " +
  "or, for Claude, with a client that speaks the Messages API (new Anthropic(), or AnthropicAws / AnthropicFoundry, named to Blackbox by their base URL).";

function classify(method: string, url: URL): RequestKind {
  const path = cleanPath(url);
  if (method.toUpperCase() !== "POST") return "other";
  if (MODEL_CALL.test(path)) return "model";
  if (INVOKE.test(path)) return { unsupported: INVOKE_REFUSAL };
  if (path.endsWith("/guardrail") || /\/guardrail\/[^/]+\/version\/[^/]+\/apply$/.test(path)) {
    return {
      unsupported:
        "Bedrock's ApplyGuardrail evaluates content with a guardrail on AWS's side, whose assessment a replay could not give back; not supported yet. Leave the guardrail out of the recorded run.",
    };
  }
  return "other";
}

/**
 * The members after `messages` in the last body the SDKs' form was checked for (`,"system":...}`), or undefined.
 * A memo only: a body that does not end with it is checked again.
 */
let checkedTail: string | undefined;
const MESSAGES_FIRST = '{"messages":';

/**
 * The members of `body` (less its `{`) with `messages` moved last, when it is the AWS SDK's JSON.stringify form
 * with `messages` first; else undefined. The incremental parse (src/session/incremental.ts) extends a body whose
 * conversation is its last member: the next request is then the last one plus messages at its end. The members
 * after `messages` are found by the last body's (checked once by a full parse). The text is only cut and joined
 * at member boundaries of that checked form, so the reordered body, which is then parsed, holds the same members
 * as the body; a body ending with fewer of them than it has (another agent's) keeps those next to its messages.
 */
function messagesLast(body: string): string | undefined {
  if (!body.startsWith(MESSAGES_FIRST + "[")) return undefined;
  let tail = checkedTail;
  if (tail === undefined || body.length < MESSAGES_FIRST.length + tail.length || !body.endsWith(tail)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined; // the parse says what is wrong
    }
    if (!isObj(parsed) || !Array.isArray(parsed.messages)) return undefined;
    const { messages, ...rest } = parsed;
    const others = JSON.stringify(rest);
    if (others === "{}") return undefined; // messages is the last member already
    tail = `,${others.slice(1)}`;
    if (body !== MESSAGES_FIRST + JSON.stringify(messages) + tail) return undefined;
    checkedTail = tail;
  }
  const conversation = body.slice(MESSAGES_FIRST.length, body.length - tail.length);
  return `${tail.slice(1, -1)},"messages":${conversation}}`;
}

/** The body that is parsed: the path's model id (and, for ConverseStream, `stream: true`) first, then the body's members. */
function requestBody(url: URL, body: string | undefined): string | undefined {
  const m = MODEL_CALL.exec(cleanPath(url));
  if (!m || body === undefined) return body;
  let model: string;
  try {
    model = decodeURIComponent(m[1]!);
  } catch {
    model = m[1]!;
  }
  const head = `{"modelId":${JSON.stringify(model)}${m[2] === "converse-stream" ? ',"stream":true' : ""}`;
  const text = body.trimStart();
  if (!text.startsWith("{")) return body; // the parse refuses it
  const rest = messagesLast(text) ?? text.slice(1).trimStart();
  return rest.startsWith("}") ? head + rest : `${head},${rest}`;
}

export const bedrockProvider: ProviderDefinition = {
  name: "bedrock",
  classify,
  requestText: (request, url) => requestBody(url, request.body),
  parseRequest: parseConverseRequest,
  parseResponse: parseConverseResponse,
  buildResponse: buildConverseResponse,
  errorBody: converseErrorBody,
  stream: converseStreamAdapter,
  incremental: { full: converseRequestState, more: converseMoreMessages },
  defaultOrigin: "https://bedrock-runtime.us-east-1.amazonaws.com",
  // bedrock-runtime.{region}.{the partition's DNS suffix}, as the SDKs build it
  defaultHosts:
    /^bedrock-runtime(?:-fips)?\.[a-z0-9-]+\.(?:amazonaws\.com(?:\.cn)?|amazonaws\.eu|c2s\.ic\.gov|sc2s\.sgov\.gov|cloud\.adc-e\.uk|csp\.hci\.ic\.gov)$/,
  baseUrlEnv: "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
  moreBaseUrlEnvs: ["AWS_ENDPOINT_URL"],
  apiKeyEnv: "AWS_ACCESS_KEY_ID",
  otherKeyEnvs: [
    { name: "AWS_SECRET_ACCESS_KEY", placeholder: true },
    // secrets never written, and never replaced by a placeholder
    { name: "AWS_SESSION_TOKEN", placeholder: false },
    { name: "AWS_BEARER_TOKEN_BEDROCK", placeholder: false },
  ],
  keyHeaders: ["authorization", "x-amz-security-token"],
  modelPath: "/converse",
  basePathOf: (path) => path.replace(MODEL_CALL, ""),
  requestIdHeader: "x-amzn-requestid",
  sdkPackage: "@aws-sdk/client-bedrock-runtime",
  sdkAgent: /\bapi\/(bedrock-runtime)#(\S+)/,
  sdkClient: "bedrock-runtime",
  // every SigV4-signed request carries it (the AWS SDK's, and aws4fetch's under @ai-sdk/amazon-bedrock)
  sdkHeader: "x-amz-date",
};
