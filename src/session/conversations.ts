/**
 * Conversations a provider holds (src/providers/types.ts ChainStore: the Responses API's
 * previous_response_id): a request that continues one, as the whole request it stands for.
 */
import { providers } from "../providers/index.js";
import { isObj } from "../providers/shared/wire.js";
import type { ChainedRequest, ChainStore, ProviderName } from "../providers/types.js";

export type Chained = { store: ChainStore; request: ChainedRequest } | undefined;

export class Conversations {
  private readonly stores = new Map<ProviderName, ChainStore>();

  /** The whole request `body` stands for, and the conversation it continues; any other body as it is. */
  expand(name: ProviderName, body: unknown): { body: unknown; chained: Chained } {
    const make = providers[name].chains;
    if (!make || !isObj(body)) return { body, chained: undefined };
    let store = this.stores.get(name);
    if (!store) this.stores.set(name, (store = make()));
    const request = store.expand(body);
    return { body: request?.full ?? body, chained: request && { store, request } };
  }

  /** `body` continues a reply this session's store of `name` remembers. */
  holds(name: ProviderName, body: Record<string, unknown>): boolean {
    return this.stores.get(name)?.holds(body) ?? false;
  }
}
