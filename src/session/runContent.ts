/**
 * What a request carries of a conversation of a run (src/session/runRoutes.ts decides with these): the
 * conversation's state the routes keep, whether a request's body extends its last request and holds its last
 * reply, whether it carries a tool call's outcome, and the keys calls and requests are looked up by. Pure but
 * for the engines' state it reads.
 */
import { providers } from "../providers/index.js";
import { ToolCallIds } from "../providers/shared/ids.js";
import { isObj, type Obj } from "../providers/shared/wire.js";
import type { ProviderName } from "../providers/types.js";
import { createRedactor, type RedactRules } from "../redact/index.js";
import { toolCallsOf } from "../trace/payloads.js";
import type { JsonValue, ModelInput, ModelOutput, Trace } from "../trace/types.js";
import type { SessionEngine } from "./engine.js";
import type { RoundEntry } from "./rounds.js";

export interface Conversation {
  readonly n: number;
  /** Its cassette's name in the run's folder. */
  readonly file: string;
  readonly engine: SessionEngine;
  /** How its first request was told apart from the conversations before it. */
  readonly toldApart: string;
  /** Its last request. */
  last: LastRequest | undefined;
  /** Its last call got no reply (refused, failed, given up): the same request again is a retry. */
  failed: boolean;
  /** The cassette it wrote (record). */
  written: Trace | undefined;
  /** Replay: the key its recording's next request is filed under (inputKey). */
  nextKey?: string;
  /** The keys its last reply's tool calls are filed under (toolKey). */
  toolKeys?: string[];
  /** The reply whose ids the routes indexed last. */
  indexed?: ModelOutput;
  /** Record, a run of several: its cassette and the keys it must not hold, written when the whole run is. */
  pending?: { trace: Trace; secrets: string[] };
}

export interface LastRequest {
  text: string | undefined;
  /** The body text up to its history's closing `]`, which a next request's body starts with; undefined: another form. */
  prefix: string | undefined;
  /** The body as JSON, when it was parsed: its fields but the history, and the history. */
  view: View | undefined;
}

export interface View {
  fields: string;
  history: unknown[];
}

/** How much of a conversation's last request a candidate's body is checked against before the whole (its end). */
const TAIL_CHECK = 64;

/** What a tool call is looked up by: its name and arguments, as JSON. */
export function toolKey(name: string, input: unknown): string {
  return `${name}\u0000${JSON.stringify(input ?? null)}`;
}

/** What a request is looked up by among the recordings' next requests: its last message, and how many it holds. */
export function inputKey(input: ModelInput): string {
  return `${input.messages.length}:${JSON.stringify(input.messages[input.messages.length - 1] ?? null)}`;
}

/** `text` extends the body text of `c`'s last request, and what it adds holds `c`'s last reply. */
export function extendsText(c: Conversation, text: string, replay: boolean): boolean {
  const p = c.last?.prefix;
  if (p === undefined || c.engine.busy || text.length <= p.length + 1) return false;
  if (text.charCodeAt(p.length) !== 0x2c) return false; // `,`: more history after the last request's
  const from = Math.max(0, p.length - TAIL_CHECK);
  if (text.slice(from, p.length) !== p.slice(from)) return false;
  return text.startsWith(p) && holdsReply(c, text.slice(p.length), replay);
}

/** The fields of a body but its history, as text, and its history; undefined: it holds none. */
export function viewOf(body: Obj, member: string): View | undefined {
  const history = body[member];
  if (!Array.isArray(history)) return undefined;
  const { [member]: _history, ...fields } = body;
  return { fields: JSON.stringify(fields), history };
}

/** A body that continues a reply the provider holds (the Responses API's previous_response_id, a message thread). */
export function continuesHeld(body: Obj): boolean {
  if (typeof body.previous_response_id === "string") return true;
  const thread = body.thread;
  return isObj(thread) && thread.type === "continue";
}

/**
 * `tail` (what a request adds to a conversation's last one) holds that conversation's last reply: each of its
 * tool calls' wire ids (a replay serves each conversation ids of its own), or, for a reply without tool calls,
 * the start of its text.
 */
export function holdsReply(c: Conversation, tail: string, replay: boolean): boolean {
  const out = c.engine.lastOutput;
  if (!out) return false;
  const calls = toolCallsOf(out);
  if (calls.length > 0) {
    return calls.every((call) => {
      const wire = c.engine.ids.wireOf(call.toolCallId);
      // a replay's alike conversations serve the same ids: the call's arguments, as served, tell them apart
      if (replay && !carriesJson(tail, call.toolInput)) return false;
      // a call known by its place (Gemini's `gemini#i.k`, OpenAI's deprecated `fn#i`) carries no id: its name
      if (wire?.includes("#")) return tail.includes(JSON.stringify(call.toolName));
      return wire === undefined || tail.includes(wire);
    });
  }
  const text = "text" in out && typeof out.text === "string" ? out.text.trim().slice(0, 200) : "";
  return text === "" || tail.includes(JSON.stringify(text).slice(1, -1));
}

/** `text` holds `value` as JSON, as itself or inside a JSON string (a tool result an agent stringified). */
function carriesJson(text: string, value: unknown): boolean {
  const json = JSON.stringify(value ?? null);
  return text.includes(json) || text.includes(JSON.stringify(json).slice(1, -1));
}

/** What a request adds carries the outcome of a tool call (its result or its error). */
export function carries(added: string, e: RoundEntry): boolean {
  const o = e.outcome!;
  return carriesJson(added, "result" in o ? o.result : o.error);
}

/** A first request as the recording holds it (neutral, through the redaction rules), or undefined when it cannot be read. */
export function neutralOf(
  name: ProviderName,
  body: Obj,
  redact: RedactRules | false | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ModelInput | undefined {
  try {
    const parsed = providers[name].parseRequest(body, new ToolCallIds());
    const redactor = createRedactor(redact, env, true);
    return redactor.payload("model_input", parsed.input as unknown as JsonValue) as unknown as ModelInput;
  } catch {
    return undefined; // a refusal: the conversation it goes to says it
  }
}

export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
