/**
 * The providers Blackbox records, each one definition (src/providers/<name>/index.ts).
 * Everything that depends on the provider reads it from here.
 */
import { anthropicProvider } from "./anthropic/index.js";
import { geminiProvider } from "./gemini/index.js";
import { bedrockProvider } from "./bedrock/index.js";
import { openaiResponsesProvider } from "./openai-responses/index.js";
import { openaiProvider } from "./openai/index.js";
import type { ProviderDefinition, ProviderName, ServiceName } from "./types.js";

export const providers: Readonly<Record<ProviderName, ProviderDefinition>> = {
  anthropic: anthropicProvider,
  openai: openaiProvider,
  "openai-responses": openaiResponsesProvider,
  gemini: geminiProvider,
  bedrock: bedrockProvider,
};

/** The providers' names, in the order routes and messages list them. */
export const PROVIDER_NAMES = Object.keys(providers) as ProviderName[];

/** The services a config's `providers` names base URLs for (a provider sharing another's base URLs is not one). */
export const SERVICE_NAMES = PROVIDER_NAMES.filter((p) => providers[p].baseUrlsOf === undefined) as ServiceName[];

/** The service whose base URLs `provider` is under (itself, or the one it shares them with). */
export const serviceOf = (provider: ProviderName): ServiceName =>
  providers[provider].baseUrlsOf ?? (provider as ServiceName);

/**
 * Of the providers under `provider`'s service (OpenAI's chat completions and Responses API), the one whose
 * model call `method url` is, or that refuses it; else `provider`. What an SDK's headers name is the service,
 * the path the API.
 */
export function apiFor(provider: ProviderName, method: string, url: URL): ProviderName {
  const service = serviceOf(provider);
  return (
    PROVIDER_NAMES.find((p) => serviceOf(p) === service && providers[p].classify(method, url) !== "other") ?? provider
  );
}

/** Every environment variable an SDK reads a provider's API key from (their values never reach a cassette). */
export const KEY_ENVS: readonly string[] = [
  ...new Set(
    PROVIDER_NAMES.flatMap((p) => [providers[p].apiKeyEnv, ...(providers[p].otherKeyEnvs ?? []).map((e) => e.name)]),
  ),
];

/** The key variables a replay sets to a placeholder when they are missing (the SDKs refuse to send without one). */
export const PLACEHOLDER_KEY_ENVS: readonly string[] = [
  ...new Set(
    PROVIDER_NAMES.flatMap((p) => [
      providers[p].apiKeyEnv,
      ...(providers[p].otherKeyEnvs ?? []).filter((e) => e.placeholder).map((e) => e.name),
    ]),
  ),
];

/** The content-type a synthesized stream is served with. */
export const STREAM_CONTENT_TYPE = "text/event-stream; charset=utf-8";

export { anthropicProvider } from "./anthropic/index.js";
export { geminiProvider } from "./gemini/index.js";
export { bedrockProvider } from "./bedrock/index.js";
export { openaiProvider } from "./openai/index.js";
export { openaiResponsesProvider } from "./openai-responses/index.js";
export { compareModelInput, type InputDifference } from "./shared/compare.js";
