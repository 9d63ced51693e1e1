/**
 * Incremental replay of a tool loop's requests: each request is the previous one plus
 * messages at the end, so only those are parsed, converted and compared. Every shortcut
 * gives exactly what the full path gives (parseRequest + compareModelInput: same
 * ModelInput, same call-N ids, same divergence), and anything unexpected falls back to it.
 *
 * Parsing. After a full parse, the body text is checked to be the JSON.stringify form the
 * SDKs send with `messages` (the Responses API's `input`: the definition's `member`) as its
 * last member: it starts with the other members exactly as JSON.stringify writes them, then
 * the messages array as JSON.stringify writes it, then `}`. The array's closing `]` is then a known offset `cut`. A next body that starts
 * with the same `cut` characters and goes on with `,` + elements + `]` + `}` is this
 * request plus those elements (every other field is in the shared prefix, byte for byte),
 * so only `[elements]` is JSON.parse'd and converted (RequestState, the adapters'
 * *MoreMessages). By induction the new closing `]` is the messages array's again.
 *
 * Comparing. When the previous request matched recorded model_input k and this one is
 * it plus new messages, comparing with model_input k+1 only needs its new messages,
 * once model_input k+1 is checked to extend k: the same model, system prompt, tools and
 * params, and k's messages as its first ones (plain JSON equality; O(1) where the load's
 * share pass already found it, src/trace/share.ts extendsShared).
 */
import { BlackboxUnsupportedError } from "../errors.js";
import { compareMessages, compareModelInput, sameJson, type InputDifference } from "../providers/shared/compare.js";
import { isObj, type Obj } from "../providers/shared/wire.js";
import type { ToolCallIds } from "../providers/shared/ids.js";
import { providers } from "../providers/index.js";
import type { ParsedModelRequest, ProviderName, RequestState } from "../providers/types.js";
import { extendsShared } from "../trace/share.js";
import type { ModelInput } from "../trace/types.js";

/** The request body as JSON, or the refusal every door gives for a body that is not. */
export function parseRequestBody(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? "");
  } catch {
    throw new BlackboxUnsupportedError(
      "the model request body is not JSON; Blackbox records JSON requests from the official SDKs",
    );
  }
}

interface Last {
  provider: ProviderName;
  state: RequestState;
  /** The body text up to (not including) the `]` closing its messages array; undefined: not extendable. */
  prefix: string | undefined;
  /** ids.remaps when it was parsed: a remapped wire id would change an earlier message's call-N. */
  remaps: number;
  /** The request it stood for, when `expand` made one (a thread's turn): what the next such request may extend. */
  expanded?: Obj;
  /** The body itself, when the chain store sees every request (expandsEvery): a text-extended next body is it plus more. */
  raw?: Obj;
}

const isWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Offset of the `]` before the final `}` (JSON whitespace allowed around both), or -1. */
export function closingBracket(text: string): number {
  let end = text.length - 1;
  while (end >= 0 && isWs(text.charCodeAt(end))) end--;
  if (text.charCodeAt(end) !== 0x7d) return -1;
  end--;
  while (end >= 0 && isWs(text.charCodeAt(end))) end--;
  return text.charCodeAt(end) === 0x5d ? end : -1;
}

/** The prefix of a fully parsed body that later bodies may extend (see the header), or undefined. */
export function extendablePrefix(text: string, body: unknown, member: string): string | undefined {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  const messages = (body as Obj)[member];
  if (!Array.isArray(messages) || messages.length === 0) return undefined;
  const keys = Object.keys(body);
  if (keys[keys.length - 1] !== member) return undefined;
  const cut = closingBracket(text);
  if (cut < 0) return undefined;
  const head = JSON.stringify({ ...body, [member]: [] }); // `{...,"messages":[]}`
  const open = head.length - 3; // its `[`
  if (text.slice(0, open) !== head.slice(0, open)) return undefined;
  if (text.slice(open, cut + 1) !== JSON.stringify(messages)) return undefined;
  return text.slice(0, cut);
}

export class IncrementalRequests {
  private last: Last | undefined;
  /** Set by parse(): this request is `base` plus messages from index `from` on. */
  private delta: { base: ModelInput; from: number } | undefined;
  /** The last request that matched its recording, and that recorded input. */
  private matched: { actual: ModelInput; recorded: ModelInput } | undefined;
  /** How often each path ran (for tests and benchmarks). */
  readonly stats = { incrementalParses: 0, fullParses: 0, incrementalCompares: 0, fullCompares: 0 };

  /**
   * What adapter.parseRequest(expand(JSON.parse(text)), ids) gives, parsing only new messages
   * when it can. `expand` sees every body the full path parses; a body the incremental path
   * takes is the previous one plus messages, so it has no member `expand` could act on, but
   * for items it may replace (the Responses API's item references: then the full path takes
   * it): a chain store that remembers every reply (expandsEvery) sees it all the same.
   */
  parse(
    provider: ProviderName,
    text: string | undefined,
    ids: ToolCallIds,
    expand?: (provider: ProviderName, body: unknown) => unknown,
  ): ParsedModelRequest {
    const last = this.last;
    this.last = undefined;
    this.delta = undefined;
    const parser = providers[provider].incremental;
    const member = parser.member ?? "messages";
    const everyBody = parser.expandsEvery ? expand : undefined;
    if (
      last &&
      last.provider === provider &&
      last.prefix !== undefined &&
      last.remaps === ids.remaps &&
      text !== undefined
    ) {
      const next = this.extend(last, last.prefix, text, ids, member, everyBody);
      if (next) return next;
    }
    const raw = parseRequestBody(text);
    // a request that stands for another (an Anthropic message thread's turn) is extended as objects, not as text
    const body = expand ? expand(provider, raw) : raw;
    if (body !== raw && last && isObj(body)) {
      const next = this.extendExpanded(provider, last, body, ids, member);
      if (next) return next;
    }
    const state = parser.full(body, ids);
    this.stats.fullParses++;
    this.last =
      body === raw
        ? {
            provider,
            state,
            prefix: extendablePrefix(text!, raw, member),
            remaps: ids.remaps,
            raw: everyBody && isObj(raw) ? raw : undefined,
          }
        : { provider, state, prefix: undefined, remaps: ids.remaps, expanded: isObj(body) ? body : undefined };
    return state.parsed;
  }

  /**
   * A request that stands for another, made by `expand` (src/providers/anthropic/threads.ts),
   * whose messages are the last one's, the very objects, then more, with every other member
   * equal: only the new messages are converted. A thread's turn is made of the replies it
   * continues, so its history is the last request's wire messages as they were parsed.
   */
  private extendExpanded(
    provider: ProviderName,
    last: Last,
    body: Obj,
    ids: ToolCallIds,
    member: string,
  ): ParsedModelRequest | undefined {
    const prev = last.expanded;
    if (!prev || last.provider !== provider || last.remaps !== ids.remaps) return undefined;
    const messages = body[member];
    const had = last.state.wire;
    if (!Array.isArray(messages) || messages.length < had.length) return undefined;
    for (let i = 0; i < had.length; i++) if (messages[i] !== had[i]) return undefined;
    for (const key of new Set([...Object.keys(prev), ...Object.keys(body)])) {
      if (key !== member && !sameJson(prev[key], body[key])) return undefined;
    }
    let state: RequestState | undefined;
    try {
      state = providers[provider].incremental.more(last.state, messages.slice(had.length), ids);
    } catch {
      return undefined; // the full parse says what is wrong (and throws the same refusal)
    }
    if (!state) return undefined;
    this.stats.incrementalParses++;
    this.last = { provider, state, prefix: undefined, remaps: ids.remaps, expanded: body };
    this.delta = { base: last.state.parsed.input, from: last.state.parsed.input.messages.length };
    return state.parsed;
  }

  /**
   * `text` as the last body plus elements of its `member`, converting only those; `expand`: the chain store
   * sees the body (built from the last one), and a body it replaces items of goes the full way.
   */
  private extend(
    last: Last,
    prefix: string,
    text: string,
    ids: ToolCallIds,
    member: string,
    expand: ((provider: ProviderName, body: unknown) => unknown) | undefined,
  ): ParsedModelRequest | undefined {
    const cut = prefix.length;
    if (text.length <= cut || text.slice(0, cut) !== prefix) return undefined;
    const end = closingBracket(text);
    if (end < cut || (end > cut && text.charCodeAt(cut) !== 0x2c)) return undefined;
    let more: unknown[];
    try {
      more = end === cut ? [] : (JSON.parse(`[${text.slice(cut + 1, end)}]`) as unknown[]);
    } catch {
      return undefined; // the full parse says what is wrong
    }
    // `,]` is not JSON: the full parse refuses it
    if (end > cut && more.length === 0) return undefined;
    let raw: Obj | undefined;
    if (expand) {
      const had = last.raw?.[member];
      if (!Array.isArray(had)) return undefined;
      // what JSON.parse(text) would give: the shared prefix is the last body's, byte for byte
      raw = { ...last.raw, [member]: had.concat(more) };
      if (expand(last.provider, raw) !== raw) return undefined; // it stands for another request: the full path
    }
    let state: RequestState | undefined;
    try {
      state = providers[last.provider].incremental.more(last.state, more, ids);
    } catch {
      return undefined; // the full parse says what is wrong (and throws the same refusal)
    }
    if (!state) return undefined;
    this.stats.incrementalParses++;
    this.last = { provider: last.provider, state, prefix: text.slice(0, end), remaps: ids.remaps, raw };
    this.delta = { base: last.state.parsed.input, from: last.state.parsed.input.messages.length };
    return state.parsed;
  }

  /**
   * compareModelInput(recorded, actual) for the request parse() just returned, comparing only its new
   * messages when it can.
   */
  compare(recorded: ModelInput, actual: ModelInput): InputDifference | undefined {
    const from = this.comparableFrom(recorded, actual);
    let d: InputDifference | undefined;
    if (from === undefined) {
      this.stats.fullCompares++;
      d = compareModelInput(recorded, actual);
    } else {
      this.stats.incrementalCompares++;
      d = compareMessages(recorded.messages, actual.messages, from);
    }
    this.matched = d ? undefined : { actual, recorded };
    return d;
  }

  private comparableFrom(recorded: ModelInput, actual: ModelInput): number | undefined {
    const { delta, matched } = this;
    if (!delta || !matched || matched.actual !== delta.base || this.last?.state.parsed.input !== actual)
      return undefined;
    return extendsInput(matched.recorded, recorded) ? delta.from : undefined;
  }
}

/** `next` has the same model, system prompt, tools and params as `prev`, and prev's messages first. */
function extendsInput(prev: ModelInput, next: ModelInput): boolean {
  if (prev.model !== next.model || prev.systemPrompt !== next.systemPrompt) return false;
  if (extendsShared(prev, next)) return true; // the load's share pass found the rest (the same objects)
  if (!sameJson(prev.tools, next.tools) || !sameJson(prev.params, next.params)) return false;
  const a = prev.messages;
  const b = next.messages;
  if (!Array.isArray(a) || !Array.isArray(b) || b.length < a.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
  return true;
}
