/**
 * Anthropic message threads (the `message-threads-2026-08-12` beta): the server holds a
 * conversation between turns, so a turn that continues a thread sends only its new
 * messages, and neither `system` nor `tools` (the server keeps those of the thread's
 * first turn). The SDK's `beta.messages.toolRunner()` threads by default, and
 * `beta.messages.thread()` always does.
 *
 * A cassette holds each model call's whole conversation, however the wire carried it: a
 * threaded request is expanded into the request it stands for (the thread's system
 * prompt, tools and history up to the reply it continues from, then its own messages),
 * and that is what is parsed, compared and recorded. A threaded run and the same run
 * unthreaded give the same cassette, and each replays the other. Pure apart from the
 * replies it remembers.
 */
import { isObj, refuse, type Obj } from "../shared/wire.js";
import type { ChainedRequest, ChainStore } from "../types.js";

const WHAT = "Anthropic messages.create";
/** Request fields the server takes from the thread on a `continue` (the SDK leaves them out). */
const CREATE_ONLY = ["system", "tools"] as const;

/** A reply a thread may continue from: the conversation up to and including it. */
interface Turn {
  fields: Obj;
  messages: unknown[];
  /** The provider sent this reply (so it holds the thread); false: served from a cassette or a fork script. */
  upstream: boolean;
}

/** A request's thread, expanded. */
export interface ThreadedRequest extends ChainedRequest {
  /** The request the threaded one stands for: whole history, create-only fields, no `thread`. */
  full: Obj;
  /** It continues a reply the provider never saw (replayed or scripted): upstream must get `full` as a new thread. */
  continuesLocal: boolean;
  /** How many of `full.messages` the thread held (up to the reply continued); 0 for a `create`. */
  answered: number;
}

export class MessageThreads implements ChainStore<ThreadedRequest> {
  /** Reply id -> the conversation it ends. */
  private readonly turns = new Map<string, Turn>();

  /** The expansion of `body` when it is a threaded request (it has a `thread`), else undefined. */
  holds(body: Obj): boolean {
    const thread = body.thread;
    return (
      isObj(thread) && typeof thread.previous_message_id === "string" && this.turns.has(thread.previous_message_id)
    );
  }

  expand(body: Obj): ThreadedRequest | undefined {
    const thread = body.thread;
    if (thread === undefined || thread === null) return undefined;
    const { thread: _thread, ...rest } = body;
    if (!isObj(thread) || (thread.type !== "create" && thread.type !== "continue")) {
      refuse(
        `${WHAT}: "thread" is ${JSON.stringify(thread)}; Blackbox knows message threads of type "create" and "continue" only. Pass thread: false to toolRunner() to send the whole history each turn.`,
      );
    }
    if (thread.type === "create") return { full: rest, continuesLocal: false, answered: 0 };
    const id = thread.previous_message_id;
    const turn = typeof id === "string" ? this.turns.get(id) : undefined;
    if (!turn) {
      refuse(
        `${WHAT}: the request continues message thread reply ${JSON.stringify(id)} (thread.previous_message_id), which no reply of this run started: the provider holds that conversation, so Blackbox cannot see what the call sends. ` +
          "Start the thread within the recorded run (a new toolRunner() or messages.thread()), or pass thread: false to toolRunner() to send the whole history each turn.",
      );
    }
    const messages = Array.isArray(rest.messages) ? rest.messages : [];
    return {
      full: { ...turn.fields, ...rest, messages: [...turn.messages, ...messages] },
      continuesLocal: !turn.upstream,
      answered: turn.messages.length,
    };
  }

  /**
   * A reply to `request` came (its wire body: an `id`, `content` as the API gives it):
   * a later turn may continue the thread from it.
   */
  remember(request: ThreadedRequest, reply: unknown, upstream: boolean): void {
    if (!isObj(reply) || typeof reply.id !== "string") return; // nothing can name it
    const fields: Obj = {};
    for (const key of CREATE_ONLY) if (request.full[key] !== undefined) fields[key] = request.full[key];
    const messages = Array.isArray(request.full.messages) ? request.full.messages : [];
    this.turns.set(reply.id, {
      fields,
      messages: [...messages, { role: "assistant", content: reply.content }],
      upstream,
    });
  }

  /**
   * The body sent upstream for `request` when it continues a local reply: the whole
   * conversation, as a new thread. The messages the thread held go without their
   * `cache_control`, as the SDK sends a history again (ThreadState's withoutCacheControl):
   * each turn's markers were for the request that first sent it, and all of them in one
   * request can be more than the API takes (4).
   */
  asNew(request: ThreadedRequest): string {
    const messages = Array.isArray(request.full.messages) ? request.full.messages : [];
    const sent = messages.map((m, i) => (i < request.answered ? withoutCacheControl(m) : m));
    return JSON.stringify({ ...request.full, messages: sent, thread: { type: "create" } });
  }
}

/** Where the SDK's withoutCacheControl looks for markers below a message: blocks, and what blocks hold. */
const NESTED = ["content", "source", "tool", "definition", "tool_references"] as const;

/** A copy of a message or block without its `cache_control` and that of the blocks in it. */
function withoutCacheControl(value: unknown): unknown {
  if (!isObj(value)) return value;
  const { cache_control: _marker, ...copy } = value;
  for (const key of NESTED) {
    const nested = copy[key];
    if (Array.isArray(nested)) copy[key] = nested.map(withoutCacheControl);
    else if (isObj(nested)) copy[key] = withoutCacheControl(nested);
  }
  return copy;
}
