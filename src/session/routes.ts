import { PROVIDER_NAMES, providers, serviceOf } from "../providers/index.js";
import type { ProviderName, ServiceName } from "../providers/types.js";

/** A host name as compared: lower case, an IPv6 address without its brackets. */
const bare = (hostname: string): string => hostname.replace(/^\[|\]$/g, "").toLowerCase();

/** A base URL as `new URL` writes it, without its trailing slashes; undefined when it is not one. */
function normalized(base: string): string | undefined {
  try {
    return new URL(base).href.replace(/\/+$/, "");
  } catch {
    return undefined;
  }
}

/**
 * Which provider a URL belongs to: the default origins, ANTHROPIC_BASE_URL /
 * OPENAI_BASE_URL, and the config's `providers`. OpenAI's chat completions and Responses
 * API share every base URL (baseUrlsOf): the path says which it is.
 */
export class ProviderRoutes {
  private readonly origins: Array<{ prefix: string; provider: ProviderName }> = [];
  /** The providers whose SDKs send to a host of a pattern by default (Bedrock's, one a region), on https. */
  private readonly hostPatterns = PROVIDER_NAMES.flatMap((p) =>
    providers[p].defaultHosts ? [{ provider: p, hosts: providers[p].defaultHosts! }] : [],
  );

  /** The provider whose default hosts `url`'s (https, no port) is, if any. */
  private byHost(url: string): ProviderName | undefined {
    if (this.hostPatterns.length === 0 || !url.startsWith("https://")) return undefined;
    const end = url.indexOf("/", 8);
    const host = url.slice(8, end < 0 ? undefined : end);
    return this.hostPatterns.find((h) => h.hosts.test(host))?.provider;
  }

  constructor(
    extra: Partial<Record<ServiceName, string[]>> | undefined,
    env: Readonly<Record<string, string | undefined>>,
  ) {
    const add = (provider: ProviderName, base: string | undefined): void => {
      if (!base) return;
      const prefix = base.replace(/\/+$/, "");
      this.origins.push({ provider, prefix });
      // as a request's URL is written once parsed (the door's): host in lower case, no
      // default port (ANTHROPIC_BASE_URL=http://LOCALHOST:8080 was refused as a stray call)
      const written = normalized(prefix);
      if (written !== undefined && written !== prefix) this.origins.push({ provider, prefix: written });
    };
    for (const p of PROVIDER_NAMES) {
      add(p, providers[p].defaultOrigin);
      add(p, env[providers[p].baseUrlEnv]);
      for (const name of providers[p].moreBaseUrlEnvs ?? []) add(p, env[name]);
      for (const o of extra?.[serviceOf(p)] ?? []) add(p, o);
    }
    this.origins.sort((a, b) => b.prefix.length - a.prefix.length);
  }

  /** Each base URL's origin and bare host name, parsed once when first asked (only the http guard asks). */
  private hosts: Array<{ origin: string; hostname: string }> | undefined;

  private parsedHosts(): Array<{ origin: string; hostname: string }> {
    this.hosts ??= this.origins.flatMap((o) => {
      try {
        const u = new URL(o.prefix);
        return [{ origin: u.origin, hostname: bare(u.hostname) }];
      } catch {
        return []; // not a URL: never routed either
      }
    });
    return this.hosts;
  }

  /** Whether `url` is on the host (scheme, host, port) of a provider's base URL, whatever its path. */
  onProviderHost(url: string): boolean {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return false;
    }
    return this.parsedHosts().some((h) => h.origin === origin) || this.byHost(origin) !== undefined;
  }

  /** Whether `hostname` is the host name of a provider's base URL (any port, any scheme). */
  onProviderHostname(hostname: string): boolean {
    return (
      this.parsedHosts().some((h) => h.hostname === bare(hostname)) ||
      this.hostPatterns.some((h) => h.hosts.test(bare(hostname)))
    );
  }

  /** The origins of the provider base URLs on `hostname` (for a request that names no port: no Host header). */
  originsOn(hostname: string): string[] {
    const origins = new Set(
      this.parsedHosts()
        .filter((h) => h.hostname === bare(hostname))
        .map((h) => h.origin),
    );
    if (this.hostPatterns.some((h) => h.hosts.test(bare(hostname)))) origins.add(`https://${bare(hostname)}`);
    return [...origins];
  }

  /** URLs routed by path (several base URLs matched), as routed: an SDK sends to the same few URLs every call. */
  private readonly byPath = new Map<string, ProviderName>();

  route(url: string): ProviderName | undefined {
    const known = this.byPath.get(url);
    if (known !== undefined) return known;
    const under = (prefix: string) => url === prefix || url.startsWith(prefix + "/") || url.startsWith(prefix + "?");
    const matching = this.origins.filter((o) => under(o.prefix));
    // the loop below would give the same, after parsing the URL
    if (matching.length <= 1) return matching[0]?.provider ?? this.byHost(url);
    // Two providers may share one origin (ANTHROPIC_BASE_URL=http://h and
    // OPENAI_BASE_URL=http://h/v1), or every base URL (chat completions and the Responses
    // API): the one whose model endpoint this is wins, else the longest base URL.
    const parsed = new URL(url);
    const provider =
      matching.find((o) => providers[o.provider].classify("POST", parsed) !== "other")?.provider ??
      matching[0]!.provider;
    if (this.byPath.size >= 64) this.byPath.clear(); // a few model URLs; anything else (ids in paths) may churn
    this.byPath.set(url, provider);
    return provider;
  }
}
