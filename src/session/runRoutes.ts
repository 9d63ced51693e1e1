/**
 * Which conversation of a run a call belongs to (src/session/run.ts), by content, never by
 * timing (docs/conversations.md):
 *
 * - A model request belongs to the conversation whose last request it extends: its body
 *   is that request's body up to the end of its history (the SDKs' JSON.stringify form, as
 *   the incremental parse reads it: src/session/incremental.ts), then more messages, among
 *   them that conversation's last reply (the reply's tool-call ids, the provider's or the
 *   ones a replay served, which are each conversation's own; a reply without tool calls by
 *   its text). A body in another form is compared as JSON: the same fields but the history,
 *   and the last request's history as its first messages. A request that continues a reply
 *   the provider holds (a Responses API `previous_response_id`, an Anthropic message thread)
 *   belongs to the conversation that reply was given in. The same request again, after a call
 *   that got no reply, is a retry in the same conversation.
 * - Anything else starts a conversation: in record a new one; in replay the recorded one, not
 *   started yet, whose first request it is (the first in the order they started, where two
 *   began alike). A request that is neither is given to the closest conversation, whose
 *   strict compare reports the difference.
 * - A wrapped tool call belongs to the conversation whose last reply asked for that tool with
 *   those arguments (else the only one that asked for it by name).
 *
 * Conversations alike so far (the same history, the same replies) are interchangeable: a
 * request goes to the first of them that is free, and whichever it is, the reply it gets
 * was recorded for exactly that history, so no conversation is ever answered from another's.
 */
import { SessionError } from "../errors.js";
import { providers } from "../providers/index.js";
import { compareModelInput } from "../providers/shared/compare.js";
import { isObj, type Obj } from "../providers/shared/wire.js";
import type { ProviderName } from "../providers/types.js";
import type { RedactRules } from "../redact/index.js";
import { toolCallsOf } from "../trace/payloads.js";
import type { JsonValue } from "../trace/types.js";
import { closingBracket, extendablePrefix } from "./incremental.js";
import { jsonEqual } from "./json.js";
import {
  carries,
  commonPrefix,
  continuesHeld,
  extendsText,
  holdsReply,
  inputKey,
  neutralOf,
  toolKey,
  viewOf,
  type Conversation,
  type View,
} from "./runContent.js";
import type { Mode } from "./types.js";

export type { Conversation } from "./runContent.js";

/** The conversation a request goes to, and what it adds to that conversation's last request (its text). */
export interface Routed {
  conversation: Conversation;
  added: string | undefined;
}

/** How much of a request's end is searched for the tool-call ids of the reply it answers. */
const ID_WINDOW = 4096;
/** A JSON string member that may hold a tool-call id (tool_use_id, tool_call_id, call_id, id). */
const ID_PATTERN = /"(?:tool_use_id|tool_call_id|call_id|id)":"([^"\\]{1,200})"/g;

export class RunRoutes {
  /** Conversations in the order they started. */
  readonly started: Conversation[] = [];
  /** Replay: the recorded conversations not started yet, in the order they were recorded starting. */
  readonly waiting: Conversation[] = [];
  /** A first request's body -> the first conversation that started with it. */
  private readonly firsts = new Map<string, number>();
  /** Conversations another began like. */
  private readonly twinned = new Set<number>();
  /** Replay: the key of a recording's next request -> the conversations at it. */
  private readonly byNext = new Map<string, Set<Conversation>>();
  /** Record: conversations that asked for a tool alike in their current round (reconcile). */
  private readonly alike = new Set<Conversation>();
  /** A tool call a reply asked for (toolKey) -> the conversations whose last reply asked for it. */
  private readonly byTool = new Map<string, Set<Conversation>>();
  /** A reply's tool-call wire id -> the conversation it was given in (a next request names it near its end). */
  private readonly byWire = new Map<string, Conversation>();

  constructor(
    private readonly mode: Mode,
    private readonly redact: RedactRules | false | undefined,
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {}

  /** Replay: a recorded conversation, not started yet. */
  wait(c: Conversation): void {
    this.waiting.push(c);
    const first = /the same first request as conversation (\d+)/.exec(c.toldApart)?.[1];
    if (first !== undefined) this.twinned.add(Number(first));
    this.indexNext(c);
  }

  /** Replay: files `c` under the key of its recording's next request (what a request that extends none is looked up by). */
  private indexNext(c: Conversation): void {
    if (this.mode !== "replay") return;
    if (c.nextKey !== undefined) this.byNext.get(c.nextKey)?.delete(c);
    const next = c.engine.nextRecordedInput();
    c.nextKey = next && inputKey(next);
    if (c.nextKey === undefined) return;
    let set = this.byNext.get(c.nextKey);
    if (!set) this.byNext.set(c.nextKey, (set = new Set()));
    set.add(c);
  }

  start(c: Conversation): Conversation {
    const w = this.waiting.indexOf(c);
    if (w >= 0) this.waiting.splice(w, 1);
    this.started.push(c);
    return c;
  }

  /** The conversation a model request to `name` belongs to (started now if it is a new one). */
  modelCall(
    name: ProviderName,
    text: string | undefined,
    make: (n: number, toldApart: string) => Conversation,
  ): Routed {
    const member = providers[name].incremental.member ?? "messages";
    const retry = this.started.find((c) => c.failed && c.last !== undefined && c.last.text === text);
    if (retry) return { conversation: retry, added: undefined };
    if (text !== undefined) {
      const c = this.byText(name, text);
      if (c) return this.take(c, text, undefined, member);
    }
    let body: unknown;
    try {
      body = JSON.parse(text ?? "");
    } catch {
      body = undefined;
    }
    if (!isObj(body)) return { conversation: this.any(make), added: undefined }; // its engine refuses the body
    if (continuesHeld(body)) {
      const held = this.started.find((c) => c.engine.holdsChain(name, body));
      return this.take(held ?? this.any(make), text, body, member);
    }
    const view = viewOf(body, member);
    const c = view && this.byView(name, body, view);
    if (c) return this.take(c, text, body, member);
    if (this.mode === "replay") return this.take(this.recorded(name, body, text), text, body, member);
    // while the run holds one conversation, a request that does not extend it is its next call, as in a session
    const only = this.started.length === 1 ? this.started[0]! : undefined;
    if (only && !only.engine.busy) return this.take(only, text, body, member);
    const alike = text !== undefined ? this.firsts.get(text) : undefined;
    const toldApart = alike === undefined ? "new history" : `the same first request as conversation ${alike}`;
    if (alike !== undefined) this.twinned.add(alike);
    const made = this.start(make(this.started.length + 1, toldApart));
    if (text !== undefined && alike === undefined) this.firsts.set(text, made.n);
    return this.take(made, text, body, member);
  }

  /**
   * Record, before `c`'s next call writes its tool round: where conversations asked for a tool alike (the same
   * name and arguments), each call went to the first of them; the request that carries the results back says
   * whose each one was. An outcome `c`'s request does not carry, whose alike twin's does, is swapped with it.
   */
  reconcile(c: Conversation, added: string | undefined): void {
    if (!this.alike.delete(c) || added === undefined) return;
    for (const e of c.engine.roundEntries() ?? []) {
      if (!e.outcome || e.running || carries(added, e)) continue;
      for (const d of this.alike) {
        const f = (d.engine.roundEntries() ?? []).find(
          (x) =>
            x.outcome &&
            !x.running &&
            x.call.toolName === e.call.toolName &&
            jsonEqual(x.call.toolInput, e.call.toolInput) &&
            carries(added, x),
        );
        if (!f) continue;
        [e.outcome, f.outcome] = [f.outcome, e.outcome];
        [e.startedAt, f.startedAt] = [f.startedAt, e.startedAt];
        [e.endedAt, f.endedAt] = [f.endedAt, e.endedAt];
        break;
      }
    }
  }

  /** The call to `c` ended: with a reply, or without (a refusal, an error, given up). */
  answered(c: Conversation, ok: boolean): void {
    c.failed = !ok;
    this.indexNext(c);
    // its reply's ids (known now unless it is a live stream still being read, found by the scan then)
    const out = ok ? c.engine.lastOutput : undefined;
    if (out && out !== c.indexed) {
      c.indexed = out;
      for (const key of c.toolKeys ?? []) this.byTool.get(key)?.delete(c);
      c.toolKeys = [];
      for (const call of toolCallsOf(out)) {
        const wire = c.engine.ids.wireOf(call.toolCallId);
        if (wire !== undefined) this.byWire.set(wire, c);
        const key = toolKey(call.toolName, call.toolInput);
        let set = this.byTool.get(key);
        if (!set) this.byTool.set(key, (set = new Set()));
        set.add(c);
        c.toolKeys.push(key);
      }
    }
  }

  /** The conversation a wrapped tool call belongs to. */
  toolCall(name: string, input: JsonValue, make: (n: number, toldApart: string) => Conversation): Conversation {
    // the conversations whose last reply asked for it with these arguments, found by them (O(1)); else a scan
    const keyed = this.byTool.get(toolKey(name, input));
    if (keyed && keyed.size > 0) {
      const alike = [...keyed].filter((c) => c.engine.expectsTool(name, input) === "args").sort((a, b) => a.n - b.n);
      if (alike.length > 0) return this.takeTool(alike);
    }
    let byName: Conversation | undefined;
    let named = 0;
    const alike: Conversation[] = [];
    for (const c of this.started) {
      const e = c.engine.expectsTool(name, input);
      if (e === "args") alike.push(c);
      if (e === "name") {
        byName ??= c;
        named++;
      }
    }
    if (alike.length > 0) return this.takeTool(alike);
    if (named === 1) return byName!;
    if (this.started.length === 1 && named === 0) return this.started[0]!; // as in a run of one: a tool no reply asked for
    if (this.started.length === 0) return this.any(make); // a tool before any model call

    throw new SessionError(
      `the wrapped tool "${name}" was called while ${this.started.length} conversations ran, and ${
        named > 0
          ? `${named} of them asked for it, none with these arguments`
          : "no conversation's last reply asked for it"
      }: Blackbox cannot tell which conversation it belongs to. Call a tool the model asked for with the model's input as its argument (bb.tools(), a framework's tool), or give each conversation a session of its own (docs/conversations.md).`,
    );
  }

  /**
   * Of the conversations that asked for a tool call alike, the first takes it; in record, whose result it was shows
   * in the request that carries it back (reconcile).
   */
  private takeTool(alike: Conversation[]): Conversation {
    if (alike.length > 1) for (const c of alike) this.alike.add(c);
    return alike[0]!;
  }

  private take(c: Conversation, text: string | undefined, body: Obj | undefined, member: string): Routed {
    const before = c.last?.prefix;
    const added =
      text !== undefined && before !== undefined && text.startsWith(before) ? text.slice(before.length) : text;
    let prefix: string | undefined;
    if (text !== undefined) {
      if (body) prefix = extendablePrefix(text, body, member);
      else {
        // a body that extends another's text is its form again: its history ends at the last `]`
        const cut = closingBracket(text);
        prefix = cut > 0 ? text.slice(0, cut) : undefined;
      }
    }
    c.last = { text, prefix, view: body ? viewOf(body, member) : undefined };
    return { conversation: c, added };
  }

  /** A conversation for a body no route can read (its engine refuses it). */
  private any(make: (n: number, toldApart: string) => Conversation): Conversation {
    return this.started[0] ?? (this.waiting[0] ? this.start(this.waiting[0]) : this.start(make(1, "new history")));
  }

  /** The started conversation whose last request's body `text` extends, its last reply among what follows. */
  private byText(name: ProviderName, text: string): Conversation | undefined {
    // the ids near its end (its tool results') name the conversation whose reply they answer: O(1) where they do
    const hinted = this.hinted(text);
    const replay = this.mode === "replay";
    if (hinted && extendsText(hinted, text, replay) && !this.hasTwin(hinted)) return hinted;
    const found = this.started.filter((c) => extendsText(c, text, replay));
    if (found.length < 2 || !replay) return found[0];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return found[0];
    }
    return isObj(body) ? this.pick(found, name, body) : found[0];
  }

  /** `c` began like another conversation (so in replay they serve the same ids). */
  private hasTwin(c: Conversation): boolean {
    return c.toldApart !== "new history" || this.twinned.has(c.n);
  }

  /** The conversation a tool-call id in the last part of `text` was given in, if one is. */
  private hinted(text: string): Conversation | undefined {
    if (this.byWire.size === 0) return undefined;
    const end = text.slice(-ID_WINDOW);
    ID_PATTERN.lastIndex = 0;
    let found: Conversation | undefined;
    for (let m = ID_PATTERN.exec(end); m; m = ID_PATTERN.exec(end)) found = this.byWire.get(m[1]!) ?? found;
    return found;
  }

  /** The started conversation whose last request `view` extends, as JSON. */
  private byView(name: ProviderName, body: Obj, view: View): Conversation | undefined {
    const found = this.started.filter((c) => {
      const last = c.last?.view;
      if (!last || c.engine.busy || last.fields !== view.fields || view.history.length <= last.history.length)
        return false;
      if (!last.history.every((m, i) => jsonEqual(m as JsonValue, view.history[i] as JsonValue))) return false;
      return holdsReply(c, JSON.stringify(view.history.slice(last.history.length)), this.mode === "replay");
    });
    return this.pick(found, name, body);
  }

  /**
   * Of the conversations a request extends, the one it belongs to: the only one; in replay, of several (alike so
   * far: they began alike and were served the same ids), the one whose recording's next request it is (the
   * results its tools were served tell them apart); else the first.
   */
  private pick(found: Conversation[], name: ProviderName, body: Obj): Conversation | undefined {
    if (found.length < 2 || this.mode !== "replay") return found[0];
    const input = neutralOf(name, body, this.redact, this.env);
    const next =
      input &&
      found.find((c) => {
        const recorded = c.engine.nextRecordedInput();
        return recorded !== undefined && compareModelInput(recorded, input) === undefined;
      });
    return next ?? found[0];
  }

  /**
   * Replay, a request that extends no conversation's last: the conversation whose recording's next request it
   * is (a started one, free, at a model call; else one not started yet, the first in the order they started);
   * else the closest, whose strict compare says where it differs.
   */
  private recorded(name: ProviderName, body: Obj, text: string | undefined): Conversation {
    const input = neutralOf(name, body, this.redact, this.env);
    if (input) {
      // the conversations whose next recorded request has this one's last message at its place; the first in
      // the order they started (a started one before one not started yet) that it is whole
      let match: Conversation | undefined;
      for (const c of this.byNext.get(inputKey(input)) ?? []) {
        if (c.engine.busy || (match && match.n < c.n)) continue;
        const recorded = c.engine.nextRecordedInput();
        if (recorded !== undefined && compareModelInput(recorded, input) === undefined) match = c;
      }
      if (match) return this.waiting.includes(match) ? this.start(match) : match;
    }
    // a request like no recorded one: a conversation not started yet, the most alike (else the first), says how
    // it differs from its first request; with none left, the started one it shares the most text with
    if (this.waiting.length > 0) {
      const actual = input ? JSON.stringify(input) : "";
      let best = this.waiting[0]!;
      let bestLength = -1;
      for (const w of this.waiting) {
        const n = commonPrefix(JSON.stringify(w.engine.nextRecordedInput() ?? ""), actual);
        if (n > bestLength) [best, bestLength] = [w, n];
      }
      return this.start(best);
    }
    let best = this.started[0]!;
    let bestLength = -1;
    for (const c of this.started) {
      const n = commonPrefix(c.last?.text ?? "", text ?? "");
      if (n > bestLength) [best, bestLength] = [c, n];
    }
    return best;
  }
}
