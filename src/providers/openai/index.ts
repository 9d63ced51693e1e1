/**
 * OpenAI Chat Completions (`chat.completions.create`, streamed or not), as Blackbox's
 * provider definition. The Responses API on the same base URLs is a definition of its own
 * (src/providers/openai-responses/): `…/responses` is "other" here. Pure.
 */
import { BLACKBOX_ERROR_TYPE } from "../../errors.js";
import type { JsonValue } from "../../trace/types.js";
import { cleanPath } from "../shared/wire.js";
import type { ProviderDefinition, RequestKind } from "../types.js";
import { openAIMoreMessages, openAIRequestState, parseOpenAIRequest } from "./request.js";
import { buildResponse, parseResponse } from "./response.js";
import { createAssembler, synthesize } from "./stream.js";
function classify(method: string, url: URL): RequestKind {
  const path = cleanPath(url);
  const post = method.toUpperCase() === "POST";
  return post && path.endsWith("/chat/completions") ? "model" : "other";
}

/** The SDK puts `body.error` on APIError.error, so isBlackboxError reads `.error.type`. */
function errorBody(message: string): JsonValue {
  return { error: { type: BLACKBOX_ERROR_TYPE, message, code: BLACKBOX_ERROR_TYPE, param: null } };
}

export const openaiProvider: ProviderDefinition = {
  name: "openai",
  classify,
  parseRequest: parseOpenAIRequest,
  parseResponse,
  buildResponse,
  errorBody,
  stream: { createAssembler, synthesize },
  incremental: { full: openAIRequestState, more: openAIMoreMessages },
  defaultOrigin: "https://api.openai.com",
  baseUrlEnv: "OPENAI_BASE_URL",
  apiKeyEnv: "OPENAI_API_KEY",
  keyHeaders: ["authorization"],
  modelPath: "/chat/completions",
  requestIdHeader: "x-request-id",
  sdkPackage: "openai",
  sdkAgent: /^(OpenAI|AzureOpenAI)\/JS (\S+)/,
  sdkClient: "OpenAI",
  telemetry: [
    { method: "POST", path: "/traces/ingest", status: 204, sender: "the OpenAI Agents SDK's trace exporter" },
  ],
};
