/**
 * Which SDK sent a request, from the headers SDKs send with every call: their user-agent
 * (`OpenAI/JS 6.49.0`, `AzureOpenAI/JS 6.49.0`, `Anthropic/JS 1.14.0`), and the headers
 * that SDKs generated like these send (`x-stainless-package-version`; a provider's own,
 * such as `anthropic-version`). This tells a provider SDK's call apart from the app's own
 * HTTP traffic (src/interception/unrouted.ts). Pure.
 */
import { PROVIDER_NAMES, providers } from "./index.js";
import type { ProviderName } from "./types.js";

const AI_SDK = /(^|\s)ai-sdk\//;

/**
 * The request headers sdkOf reads (lower case): what a door that does not read all of them (the http guard)
 * hands over.
 */
export const SDK_HEADERS = [
  "user-agent",
  "x-stainless-package-version",
  ...new Set(PROVIDER_NAMES.flatMap((p) => (providers[p].sdkHeader ? [providers[p].sdkHeader] : []))),
] as const;

export interface SdkOfRequest {
  provider: ProviderName;
  /** "openai 6.49.0", "openai 6.49.0 (AzureOpenAI)", or what an SDK client says of itself. */
  sdk: string;
  azure: boolean;
  /** Known by the Stainless header alone: it may be any service's SDK, not an LLM's. */
  generic?: boolean;
}

/**
 * The provider whose requests carry its own header (`anthropic-version`, `x-goog-api-client`), or its own key
 * header (`x-goog-api-key`: the AI SDK's Google provider sends no x-goog-api-client), else the one without
 * such a header.
 */
export function providerByHeaders(h: Record<string, string>): ProviderName {
  return (
    PROVIDER_NAMES.find((p) => providers[p].sdkHeader !== undefined && h[providers[p].sdkHeader!] !== undefined) ??
    PROVIDER_NAMES.find((p) => providers[p].keyHeaders.some((k) => k !== "authorization" && h[k] !== undefined)) ??
    PROVIDER_NAMES.find((p) => providers[p].sdkHeader === undefined)!
  );
}

/**
 * Which SDK sent `h`: by its user-agent (each provider's sdkAgent), else by the headers that
 * SDKs generated like these send: a subclass (`class MyOpenAI extends OpenAI` sends
 * `MyOpenAI/JS`), a bundle that renamed the class (`t/JS 6.49.0`), an SDK made the same way
 * for an API like these (Groq's); and the Vercel AI SDK by its user-agent. Named then by
 * what it says of itself, not as one of the official SDKs.
 */
export function sdkOf(h: Record<string, string>): SdkOfRequest | undefined {
  const ua = h["user-agent"] ?? "";
  for (const provider of PROVIDER_NAMES) {
    const def = providers[provider];
    const agent = def.sdkAgent.exec(ua);
    if (!agent) continue;
    const client = agent[1]!;
    // "openai 6.49.0", "openai 6.49.0 (AzureOpenAI)", "@anthropic-ai/sdk 1.15.0 (AnthropicBedrock)": the core
    // SDK's version
    const named = client === def.sdkClient ? "" : ` (${client})`;
    return { provider, sdk: `${def.sdkPackage} ${agent[2]}${named}`, azure: client === "AzureOpenAI" };
  }
  const version = h["x-stainless-package-version"];
  // the Vercel AI SDK's providers (@ai-sdk/anthropic, @ai-sdk/openai) send the wire formats themselves:
  // `ai/6.0.326 ai-sdk/provider-utils/4.0.65 ...`
  const aiSdk = AI_SDK.test(ua);
  if (version === undefined && !aiSdk) return undefined;
  const pkg = version === undefined ? "" : `, package version ${JSON.stringify(version.slice(0, 20))}`;
  return {
    provider: providerByHeaders(h),
    sdk: `an SDK client (user-agent ${JSON.stringify(ua.slice(0, 60))}${pkg})`,
    azure: false,
    generic: !aiSdk,
  };
}
