/**
 * A model call of an official SDK to a base URL Blackbox was not told of: a client made
 * with `baseURL: "https://openrouter.ai/api/v1"` (OpenRouter, LiteLLM, Ollama, a gateway)
 * in code, with no ANTHROPIC_BASE_URL / OPENAI_BASE_URL and no config `providers`. The
 * global dispatcher hands other requests on, so this one would go unrecorded, and in a
 * replay to the network. The SDKs name themselves in every request (user-agent
 * `OpenAI/JS 6.49.0`, `Anthropic/JS 1.14.0`), which tells such a call apart from the
 * app's own HTTP traffic: it is stopped, and the run fails naming the base URL to add.
 */
import { BlackboxUnsupportedError } from "../errors.js";
import { adapters } from "../providers/index.js";
import type { ProviderName } from "../providers/types.js";
import { normalizeHeaders } from "./wire.js";

export interface StrayCall {
  provider: ProviderName;
  /** "openai 6.49.0" */
  sdk: string;
  /** The base URL the client was given, as the SDK's baseURL option would be written. */
  base: string;
}

/** What ends each provider's model endpoint path (the base URL is what comes before). */
const ENDPOINT: Record<ProviderName, string> = { anthropic: "/v1/messages", openai: "/chat/completions" };

/** The stray model call `method url headers` is, or undefined for any other request (checked by path first: no header is read for most). */
export function strayModelCall(method: string, url: URL, headers: unknown): StrayCall | undefined {
  if (String(method).toUpperCase() !== "POST") return undefined;
  const path = url.pathname.replace(/\/+$/, "");
  const provider = (Object.keys(ENDPOINT) as ProviderName[]).find((p) => path.endsWith(ENDPOINT[p]));
  if (!provider || adapters[provider].classify("POST", url) !== "model") return undefined;
  const agent = /^(OpenAI|Anthropic)\/JS (\S+)/.exec(normalizeHeaders(headers)["user-agent"] ?? "");
  if (!agent || (agent[1] === "OpenAI") !== (provider === "openai")) return undefined;
  const sdk = `${provider === "openai" ? "openai" : "@anthropic-ai/sdk"} ${agent[2]}`;
  return { provider, sdk, base: url.origin + path.slice(0, path.length - ENDPOINT[provider].length) };
}

export function strayRefusal(call: StrayCall, mode: string | undefined): BlackboxUnsupportedError {
  const env = call.provider === "openai" ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL";
  const where = mode === "replay" ? "to the network, which a replay never does" : "around the recording";
  return new BlackboxUnsupportedError(
    `a model call of ${call.sdk} went to ${call.base}, which is not a provider base URL Blackbox knows (the SDK's default, ${env}, or the config's providers), so it would have gone ${where}; it was stopped before it left the process. ` +
      `Name that base URL: run with ${env}=${call.base}, or add providers: { ${call.provider}: [${JSON.stringify(call.base)}] } to blackbox.config.ts.`,
  );
}
