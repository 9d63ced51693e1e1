/**
 * A model call of an official SDK to a base URL Blackbox was not told of: a client made
 * with `baseURL: "https://openrouter.ai/api/v1"` (OpenRouter, LiteLLM, Ollama, a gateway)
 * or an `AzureOpenAI` client's endpoint, in code, with no ANTHROPIC_BASE_URL /
 * OPENAI_BASE_URL and no config `providers`. The global dispatcher hands other requests
 * on, so this one would go unrecorded, and in a replay to the network. The SDKs name
 * themselves in every request (user-agent `OpenAI/JS 6.49.0`, `AzureOpenAI/JS 6.49.0`,
 * `Anthropic/JS 1.14.0`), which tells such a call apart from the app's own HTTP traffic:
 * it is stopped, and the run fails naming the base URL to add. A call the adapter refuses
 * wherever it goes (managed agent sessions, Bedrock's API) is stopped with that refusal.
 */
import { BlackboxUnsupportedError } from "../errors.js";
import { PROVIDER_NAMES, apiFor, providers, serviceOf } from "../providers/index.js";
import type { ProviderName } from "../providers/types.js";
import { sdkOf } from "../providers/sdkIdentity.js";
import { normalizeHeaders } from "./wire.js";

export interface StrayCall {
  provider: ProviderName;
  /** "openai 6.49.0", "openai 6.49.0 (AzureOpenAI)" */
  sdk: string;
  /** The base URL the client was given, as the SDK's baseURL option would be written. */
  base: string;
  /**
   * An AzureOpenAI client: OPENAI_BASE_URL is no way to name its base URL (the client reads it too, and
   * refuses it with an endpoint).
   */
  azure?: boolean;
  /** The adapter's refusal of this call wherever it goes (classify's unsupported). */
  unsupported?: string;
}

/**
 * The stray model call `method url headers` is, or undefined for any other request (checked by path first: no
 * header is read for most).
 */
export function strayModelCall(method: string, url: URL, headers: unknown): StrayCall | undefined {
  const kinds = PROVIDER_NAMES.map((p) => [p, providers[p].classify(String(method), url)] as const);
  if (kinds.every(([, kind]) => kind === "other")) return undefined;
  const from = sdkOf(normalizeHeaders(headers));
  if (!from) return undefined;
  const { sdk, azure, generic } = from;
  // the SDK's headers name the service; its path, which of the service's APIs (chat completions, Responses)
  const provider = apiFor(from.provider, String(method), url);
  const kind = kinds.find(([p]) => p === provider)![1];
  if (kind === "other") return undefined;
  const path = url.pathname.replace(/\/+$/, "");
  // a client known by the Stainless header alone may be any service's (a forms API's POST
  // /v1/forms/<id>/responses is no Responses API call): only /v1/responses is
  if (generic && provider === "openai-responses" && !path.endsWith("/v1/responses")) return undefined;
  if (kind !== "model") return { provider, sdk, base: url.origin, azure, unsupported: kind.unsupported };
  const def = providers[provider];
  let base = def.basePath ? def.basePath(path) : path.slice(0, path.length - def.modelPath.length);
  // AzureOpenAI sends to <endpoint>/openai/deployments/<model>/...: its base URL is <endpoint>/openai, for
  // every deployment
  if (azure) base = base.replace(/\/deployments\/[^/]+$/, "");
  return { provider, sdk, base: url.origin + base, azure };
}

export function strayRefusal(call: StrayCall, mode: string | undefined): BlackboxUnsupportedError {
  if (call.unsupported !== undefined) {
    return new BlackboxUnsupportedError(
      `${call.unsupported} (a call of ${call.sdk} to ${call.base}; it was stopped before it left the process.)`,
    );
  }
  const env = providers[call.provider].baseUrlEnv;
  const where = mode === "replay" ? "to the network, which a replay never does" : "around the recording";
  const config = `providers: { ${serviceOf(call.provider)}: [${JSON.stringify(call.base)}] }`;
  const name = call.azure
    ? `add ${config} to blackbox.config.ts (not OPENAI_BASE_URL: the AzureOpenAI client reads it too, and refuses it next to an endpoint).`
    : `run with ${env}=${call.base}, or add ${config} to blackbox.config.ts.`;
  return new BlackboxUnsupportedError(
    `a model call of ${call.sdk} went to ${call.base}, which is not a provider base URL Blackbox knows (the SDK's default, ${env}, or the config's providers), so it would have gone ${where}; it was stopped before it left the process. ` +
      `Name that base URL: ${name}`,
  );
}
