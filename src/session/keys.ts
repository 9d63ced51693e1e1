/**
 * The API keys a written cassette must not hold (src/store/write.ts): those the agent sends in
 * its requests' key headers, and those in the environment's key variables.
 */
import { KEY_ENVS, PROVIDER_NAMES, providers } from "../providers/index.js";
import type { WireRequest } from "../providers/types.js";

export class KeysSeen {
  private readonly keys = new Set<string>();

  /** The keys a request carries (x-api-key, Authorization: Bearer ..., x-goog-api-key, Gemini's ?key=). */
  add(request: WireRequest): void {
    const h = request.headers;
    for (const p of PROVIDER_NAMES) {
      for (const header of providers[p].keyHeaders) {
        const value = h[header];
        if (!value) continue;
        this.keys.add(value.replace(/^Bearer\s+/i, ""));
        // SigV4 (Bedrock): the access key id and the signature, each on its own
        const sig = /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)[^]*?Signature=([0-9a-f]+)/i.exec(value);
        if (sig) this.keys.add(sig[1]!).add(sig[2]!);
      }
      const query = providers[p].keyQuery;
      if (query && request.url.includes(`${query}=`)) {
        const value = (request.parsedUrl ?? new URL(request.url)).searchParams.get(query);
        if (value) this.keys.add(value);
      }
    }
  }

  /** Every key seen, and the environment's; short values (a placeholder) are not keys. */
  list(env: Readonly<Record<string, string | undefined>>): string[] {
    for (const name of KEY_ENVS) {
      const v = env[name];
      if (v) this.keys.add(v);
    }
    return [...this.keys].filter((s) => s.length >= 8);
  }
}
