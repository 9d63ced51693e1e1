/**
 * Responses API chains (`previous_response_id`): with `store: true` (the API's default) the
 * provider keeps each response with the input it answered, so the next call may send
 * only its new input items and name the response it continues. The OpenAI Agents SDK
 * and the Vercel AI SDK chain this way when asked to, and OpenAI's docs start there.
 *
 * A cassette holds each model call's whole conversation, however the wire carried it: a
 * chained request is expanded into the request it stands for (the conversation up to
 * and including the response it continues, then its own input), and that is what is
 * parsed, compared and recorded. Only `input` is inherited: as the API does, every other
 * field (`instructions`, `tools`, the controls) is the chained request's own. A chained
 * run and the same run sent as whole history give the same model_input, and each
 * replays the other. Pure apart from the responses it remembers.
 *
 * Item references (`{ type: "item_reference", id }`) are resolved the same way, from the
 * items of the responses remembered: the Vercel AI SDK's `openai(model)` sends the text of
 * an earlier step as a reference to its message while `store` is on (its default).
 *
 * A ChainStore (src/providers/types.ts): the session expands every Responses request
 * (`expand` answers every one, a plain request standing for itself, so that every reply is
 * remembered: the first call of a chain names no response) and remembers every reply the
 * agent gets, the provider's, a cassette's or a fork script's. In replay the ids are
 * Blackbox's own (`bbx-resp-N`, `bbx-msg-N-k`) and still resolve; an id no response of the
 * run carried is refused by name. A request that continues, refers to or holds what the
 * provider does not have (a reply Blackbox served, or one Blackbox had it not store) is
 * `continuesLocal`: it goes upstream as stateless whole history (`asNew`).
 */
import type { ChainStore, ChainedRequest } from "../types.js";
import { isObj, type Obj } from "../shared/wire.js";
import { chainRefusal, inputItems, itemReferenceRefusal } from "./items.js";

/**
 * A response a later request may continue: the input items of the conversation up to and including it, the
 * request's then the response's (joined when a request continues it: a loop sending whole history never does,
 * and a copy per reply would cost each call the length of the history).
 */
interface Link {
  request: readonly unknown[];
  output: readonly unknown[];
  /** The provider holds this response (and its items): it sent it, and Blackbox did not have it unstored. */
  held: boolean;
}

/** An output item of a response remembered, which a later request may refer to or send back. */
interface KnownItem {
  item: unknown;
  held: boolean;
}

/** A Responses request, expanded. */
export interface ResponsesChainedRequest extends ChainedRequest {
  /**
   * The request it stands for: the whole conversation in `input`, items referred to in their place, no
   * `previous_response_id`; the body itself when there was nothing to expand.
   */
  full: Obj;
  /** The response id it continues; undefined when it does not chain. */
  previous: string | undefined;
  /**
   * It continues, refers to or holds what the provider does not have: upstream must get the whole history
   * (`asNew`).
   */
  continuesLocal: boolean;
  /** How many of `full.input` the chain held (up to the response continued); 0 when it does not chain. */
  answered: number;
}

export class ResponseChains implements ChainStore<ResponsesChainedRequest> {
  /** Response id -> the conversation it ends. */
  private readonly links = new Map<string, Link>();
  /** Item id -> an output item of a response remembered. */
  private readonly items = new Map<string, KnownItem>();
  /**
   * The last input scanned for item ids and what it held: a request that is the last one plus items at the end
   * (a tool loop's, as the incremental parse builds it, the very objects) is scanned from there on.
   */
  private scanned: { input: readonly unknown[]; local: boolean } | undefined;

  /**
   * The request `body` stands for: with `previous_response_id`, the conversation it
   * continues then its own input; item references replaced by the items they name. A
   * request with neither stands for itself (`full` is `body`). Refuses an id no response of
   * the run carried.
   */
  holds(body: Obj): boolean {
    return typeof body.previous_response_id === "string" && this.links.has(body.previous_response_id);
  }

  expand(body: Obj): ResponsesChainedRequest {
    const id = body.previous_response_id;
    const chained = id !== undefined && id !== null;
    let link: Link | undefined;
    if (chained) {
      link = typeof id === "string" ? this.links.get(id) : undefined;
      if (!link) chainRefusal(id);
    }
    let local = link !== undefined && !link.held;
    const own = inputItems(body);
    let input = own;
    // the items an earlier scan went through (no reference among them), and whether one was an item Blackbox served
    const last = this.scanned;
    let from = 0;
    if (last && last.input.length <= own.length) {
      while (from < last.input.length && own[from] === last.input[from]) from++;
      if (from === last.input.length) local ||= last.local;
      else from = 0;
    }
    let scanLocal = from > 0 && last!.local;
    for (let i = from; i < own.length; i++) {
      const item = own[i];
      if (!isObj(item) || typeof item.id !== "string") continue;
      const known = this.items.get(item.id);
      if (item.type === "item_reference") {
        if (!known) itemReferenceRefusal(item.id, i);
        if (input === own) input = own.slice();
        input[i] = known.item;
      }
      if (known && !known.held) local = scanLocal = true; // an item Blackbox served: its id is not one the provider takes
    }
    // only a scan with no reference in it can be the start of the next one (a reference makes `input` a copy)
    this.scanned = input === own ? { input: own, local: scanLocal } : undefined;
    if (!chained && input === own) return { full: body, previous: undefined, continuesLocal: local, answered: 0 };
    const { previous_response_id: _previous, ...rest } = body;
    const history = link ? [...link.request, ...link.output] : [];
    return {
      full: { ...rest, input: history.length > 0 ? [...history, ...input] : input },
      previous: chained ? (id as string) : undefined,
      continuesLocal: local,
      answered: history.length,
    };
  }

  /**
   * A reply to `request` came (a Response body: the provider's, the folded body of a
   * stream, or the adapter's built one): a later request may continue from it or refer to
   * its items. `upstream`: the provider sent it. The provider holds it unless Blackbox sent
   * the request as whole history and had it not stored (`asNew`'s `store: false`); a reply
   * to an agent's own `store: false` counts as held, so that a recording sends what the
   * agent sent and the provider answers as it would.
   */
  remember(request: ResponsesChainedRequest, reply: unknown, upstream: boolean): void {
    if (!isObj(reply) || typeof reply.id !== "string") return; // nothing can name it
    const unstored = request.continuesLocal && (request.full.store === undefined || request.full.store === null);
    const output = Array.isArray(reply.output) ? reply.output : [];
    this.rememberResponse(reply.id, inputItems(request.full), output, upstream && !unstored);
  }

  /**
   * remember() by parts: response `responseId` answered the whole-history input
   * `requestItems` with the items `outputItems`; `held`: the provider holds it.
   */
  rememberResponse(
    responseId: string,
    requestItems: readonly unknown[],
    outputItems: readonly unknown[],
    held = true,
  ): void {
    this.links.set(responseId, { request: requestItems, output: outputItems, held });
    for (const item of outputItems)
      if (isObj(item) && typeof item.id === "string") this.items.set(item.id, { item, held });
  }

  /** Whether a response id is known (a request continuing it resolves). */
  has(responseId: string): boolean {
    return this.links.has(responseId);
  }

  /** Whether an item id is known (a reference to it resolves). */
  hasItem(itemId: string): boolean {
    return this.items.has(itemId);
  }

  /** The body sent upstream for a `continuesLocal` request (a live fork): wholeHistory(), as JSON. */
  asNew(request: ResponsesChainedRequest): string {
    return JSON.stringify(wholeHistory(request));
  }
}

/**
 * A request as a provider that holds none of its conversation takes it: the whole
 * history, stateless (`store: false` unless the agent set `store`), each item as
 * forHistory() writes it, no `previous_response_id`.
 */
export function wholeHistory(request: ResponsesChainedRequest): Obj {
  const full = request.full;
  const { previous_response_id: _previous, ...rest } = full;
  const body: Obj = { ...rest, input: forHistory(inputItems(full)) };
  if (full.store === undefined || full.store === null) body.store = false;
  return body;
}

/**
 * Input items as they may go to a provider that does not hold them: without their item
 * ids (a Blackbox id, `bbx-msg-...`, is not one the API takes, and an id the API gave ties
 * the item to a stored response), and without reasoning items that carry no
 * `encrypted_content` (the API could only look them up by id). Items with nothing to
 * change are the same objects; the list is the same array when nothing changed.
 */
export function forHistory(items: unknown[]): unknown[] {
  let changed = false;
  const out: unknown[] = [];
  for (const item of items) {
    if (!isObj(item)) {
      out.push(item);
      continue;
    }
    if (item.type === "reasoning") {
      if (typeof item.encrypted_content === "string") out.push(item);
      else changed = true;
      continue;
    }
    if (item.id === undefined) {
      out.push(item);
      continue;
    }
    const { id: _id, ...rest } = item;
    out.push(rest);
    changed = true;
  }
  return changed ? out : items;
}
