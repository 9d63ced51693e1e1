/**
 * A model call of an official SDK to a base URL Blackbox was not told of: a client made
 * with `baseURL: "https://openrouter.ai/api/v1"` (OpenRouter, LiteLLM, Ollama, a gateway)
 * or an `AzureOpenAI` client's endpoint, in code, with no ANTHROPIC_BASE_URL /
 * OPENAI_BASE_URL and no config `providers`. The global dispatcher hands other requests
 * on, so this one would go unrecorded, and in a replay to the network. The SDKs name
 * themselves in every request (user-agent `OpenAI/JS 6.49.0`, `AzureOpenAI/JS 6.49.0`,
 * `Anthropic/JS 1.14.0`), which tells such a call apart from the app's own HTTP traffic:
 * it is stopped, and the run fails naming the base URL to add. A call the adapter refuses
 * wherever it goes (the Responses API, managed agent sessions) is stopped with that refusal.
 */
import { BlackboxUnsupportedError } from "../errors.js";
import { adapters } from "../providers/index.js";
import type { ProviderName } from "../providers/types.js";
import { normalizeHeaders } from "./wire.js";

export interface StrayCall {
  provider: ProviderName;
  /** "openai 6.49.0", "openai 6.49.0 (AzureOpenAI)" */
  sdk: string;
  /** The base URL the client was given, as the SDK's baseURL option would be written. */
  base: string;
  /** An AzureOpenAI client: OPENAI_BASE_URL is no way to name its base URL (the client reads it too, and refuses it with an endpoint). */
  azure?: boolean;
  /** The adapter's refusal of this call wherever it goes (classify's unsupported). */
  unsupported?: string;
}

/** What ends each provider's model endpoint path (the base URL is what comes before). */
const ENDPOINT: Record<ProviderName, string> = { anthropic: "/v1/messages", openai: "/chat/completions" };

/**
 * The SDK client classes that write each user-agent: the openai package's put their class
 * name first; the Anthropic SDK's is `Anthropic/JS`, and the cloud clients built on it
 * (AnthropicBedrock, AnthropicVertex, AnthropicAws, AnthropicFoundry) name themselves.
 */
const AGENT = /^(OpenAI|AzureOpenAI|Anthropic[A-Za-z]*)\/JS (\S+)/;

const AI_SDK = /(^|\s)ai-sdk\//;

/** The request headers sdkOf reads (lower case): what a door that does not read all of them (the http guard) hands over. */
export const SDK_HEADERS = ["user-agent", "x-stainless-package-version", "anthropic-version"] as const;

/**
 * Which SDK sent `h`: by its user-agent (AGENT), else by the headers that SDKs generated
 * like these two send (`x-stainless-package-version`; `anthropic-version` from an
 * Anthropic one): a subclass (`class MyOpenAI extends OpenAI` sends `MyOpenAI/JS`), a
 * bundle that renamed the class (`t/JS 6.49.0`), an SDK made the same way for an API like
 * these (Groq's); and the Vercel AI SDK by its user-agent. Named then by what it says of
 * itself, not as one of the two.
 */
function sdkOf(h: Record<string, string>): { provider: ProviderName; sdk: string; azure: boolean; generic?: boolean } | undefined {
  const ua = h["user-agent"] ?? "";
  const agent = AGENT.exec(ua);
  if (agent) {
    const client = agent[1]!;
    const provider: ProviderName = client.startsWith("Anthropic") ? "anthropic" : "openai";
    // "openai 6.49.0", "openai 6.49.0 (AzureOpenAI)", "@anthropic-ai/sdk 1.15.0 (AnthropicBedrock)": the core SDK's version
    const named = client === "OpenAI" || client === "Anthropic" ? "" : ` (${client})`;
    return { provider, sdk: `${provider === "openai" ? "openai" : "@anthropic-ai/sdk"} ${agent[2]}${named}`, azure: client === "AzureOpenAI" };
  }
  const version = h["x-stainless-package-version"];
  // the Vercel AI SDK's providers (@ai-sdk/anthropic, @ai-sdk/openai) send the wire formats themselves: `ai/6.0.326 ai-sdk/provider-utils/4.0.65 ...`
  const aiSdk = AI_SDK.test(ua);
  if (version === undefined && !aiSdk) return undefined;
  const provider: ProviderName = h["anthropic-version"] !== undefined ? "anthropic" : "openai";
  const pkg = version === undefined ? "" : `, package version ${JSON.stringify(version.slice(0, 20))}`;
  return { provider, sdk: `an SDK client (user-agent ${JSON.stringify(ua.slice(0, 60))}${pkg})`, azure: false, generic: !aiSdk };
}

/** The stray model call `method url headers` is, or undefined for any other request (checked by path first: no header is read for most). */
export function strayModelCall(method: string, url: URL, headers: unknown): StrayCall | undefined {
  const kinds = (Object.keys(ENDPOINT) as ProviderName[]).map((p) => [p, adapters[p].classify(String(method), url)] as const);
  if (kinds.every(([, kind]) => kind === "other")) return undefined;
  const from = sdkOf(normalizeHeaders(headers));
  if (!from) return undefined;
  const { provider, sdk, azure, generic } = from;
  const kind = kinds.find(([p]) => p === provider)![1];
  if (kind === "other") return undefined;
  const path = url.pathname.replace(/\/+$/, "");
  // a client known by the Stainless header alone may be any service's (a forms API's POST /v1/forms/<id>/responses is no Responses API call): only /v1/responses is
  if (kind !== "model" && generic && provider === "openai" && !path.endsWith("/v1/responses")) return undefined;
  if (kind !== "model") return { provider, sdk, base: url.origin, azure, unsupported: kind.unsupported };
  let base = path.slice(0, path.length - ENDPOINT[provider].length);
  // AzureOpenAI sends to <endpoint>/openai/deployments/<model>/...: its base URL is <endpoint>/openai, for every deployment
  if (azure) base = base.replace(/\/deployments\/[^/]+$/, "");
  return { provider, sdk, base: url.origin + base, azure };
}

export function strayRefusal(call: StrayCall, mode: string | undefined): BlackboxUnsupportedError {
  if (call.unsupported !== undefined) {
    return new BlackboxUnsupportedError(`${call.unsupported} (a call of ${call.sdk} to ${call.base}; it was stopped before it left the process.)`);
  }
  const env = call.provider === "openai" ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL";
  const where = mode === "replay" ? "to the network, which a replay never does" : "around the recording";
  const config = `providers: { ${call.provider}: [${JSON.stringify(call.base)}] }`;
  const name = call.azure
    ? `add ${config} to blackbox.config.ts (not OPENAI_BASE_URL: the AzureOpenAI client reads it too, and refuses it next to an endpoint).`
    : `run with ${env}=${call.base}, or add ${config} to blackbox.config.ts.`;
  return new BlackboxUnsupportedError(
    `a model call of ${call.sdk} went to ${call.base}, which is not a provider base URL Blackbox knows (the SDK's default, ${env}, or the config's providers), so it would have gone ${where}; it was stopped before it left the process. ` +
      `Name that base URL: ${name}`,
  );
}
