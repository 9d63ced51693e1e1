/**
 * Known telemetry uploads (the provider definition's `telemetry`, src/providers/types.ts) in
 * a replay or a fork's scripted part: answered with an empty success, so an agent whose SDK
 * exports traces over its recorded client replays offline. Any other call that is not a
 * model call is still refused.
 */
import { cleanPath } from "../providers/shared/wire.js";
import type { ProviderDefinition } from "../providers/types.js";
import type { HttpResponseLike } from "./types.js";

export function telemetryAnswer(provider: ProviderDefinition, method: string, url: URL): HttpResponseLike | undefined {
  const path = cleanPath(url);
  const m = method.toUpperCase();
  const hit = provider.telemetry?.find((t) => t.method === m && path.endsWith(t.path));
  return hit && { status: hit.status, statusText: "No Content", headers: {}, body: "" };
}
