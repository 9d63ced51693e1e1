import { anthropicAdapter } from "./anthropic.js";
import { openaiAdapter } from "./openai.js";
import type { ProviderAdapter, ProviderName } from "./types.js";

export { anthropicAdapter } from "./anthropic.js";
export { openaiAdapter } from "./openai.js";

/** One adapter per provider, keyed by name. */
export const adapters: Record<ProviderName, ProviderAdapter> = {
  anthropic: anthropicAdapter,
  openai: openaiAdapter,
};

/** The origins each provider's SDK talks to by default. */
export const DEFAULT_ORIGINS: Record<ProviderName, string> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com",
};
export { compareModelInput, type InputDifference } from "./compare.js";
