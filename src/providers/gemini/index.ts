/**
 * Google's Gemini API (`models.generateContent` / `generateContentStream` of @google/genai,
 * the AI SDK's @ai-sdk/google: `POST …/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`) as Blackbox's provider definition. The model and the
 * streaming are in the URL, which url.ts puts in front of the body the session parses.
 * The key travels in `x-goog-api-key` (both SDKs) or a `?key=` query parameter (REST
 * callers); neither is written. Pure. See docs/gemini.md.
 */
import type { ProviderDefinition, RequestKind, WireRequest } from "../types.js";
import { cleanPath } from "../shared/wire.js";
import { geminiMoreContents, geminiRequestState, parseGeminiRequest } from "./request.js";
import { buildGeminiResponse, geminiErrorBody, parseGeminiResponse } from "./response.js";
import { geminiStreamAdapter } from "./stream.js";
import { basePathOf, modelCallOf, withUrl } from "./url.js";

export { parseGeminiRequest, geminiMoreContents, geminiRequestState } from "./request.js";
export { buildGeminiResponse, geminiErrorBody, parseGeminiResponse } from "./response.js";
export { GeminiChunkFolder, responseToSse, geminiStreamAdapter } from "./stream.js";
export { withUrl, modelCallOf, URL_MEMBER } from "./url.js";

const INTERACTIONS =
  "The Gemini Interactions API (client.interactions, `/interactions`) keeps the conversation and runs its tools on Google's side, " +
  "which Blackbox cannot record or replay (it records generateContent calls); not supported. Call models.generateContent in your own loop instead.";

/**
 * POST …/models/{model}:generateContent and :streamGenerateContent are model calls; the
 * Interactions API is refused; anything else (countTokens, embedContent, models.get, files,
 * cachedContents) is another call: passed through when recording, refused in replay.
 */
function classify(method: string, url: URL): RequestKind {
  const post = method.toUpperCase() === "POST";
  if (post && modelCallOf(url)) return "model";
  if (/\/interactions(\/|$)/.test(cleanPath(url))) return { unsupported: INTERACTIONS };
  return "other";
}

export const geminiProvider: ProviderDefinition = {
  name: "gemini",
  classify,
  parseRequest: parseGeminiRequest,
  parseResponse: parseGeminiResponse,
  buildResponse: buildGeminiResponse,
  errorBody: geminiErrorBody,
  stream: geminiStreamAdapter,
  // url.ts moves `contents` last in the text parsed, so a tool loop's next request extends the last one's text
  incremental: { full: geminiRequestState, more: geminiMoreContents, member: "contents" },
  requestText: (request: WireRequest, url: URL) => withUrl(request.body, url),
  defaultOrigin: "https://generativelanguage.googleapis.com",
  baseUrlEnv: "GOOGLE_GEMINI_BASE_URL",
  apiKeyEnv: "GEMINI_API_KEY",
  otherKeyEnvs: [
    { name: "GOOGLE_API_KEY", placeholder: false }, // @google/genai prefers it (and warns when both are set)
    { name: "GOOGLE_GENERATIVE_AI_API_KEY", placeholder: true }, // @ai-sdk/google's
  ],
  keyHeaders: ["x-goog-api-key"],
  keyQuery: "key",
  modelPath: "/v1beta/models/{model}:generateContent",
  basePathOf,
  requestIdHeader: "x-request-id",
  sdkPackage: "@google/genai",
  sdkAgent: /^(google-genai-sdk)\/(\S+)/,
  sdkClient: "google-genai-sdk",
  sdkHeader: "x-goog-api-client",
};
