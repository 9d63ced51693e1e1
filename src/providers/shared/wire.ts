/**
 * Small pure helpers shared by the provider adapters: reading untyped wire JSON
 * safely and refusing what Blackbox cannot record.
 */
import { BlackboxUnsupportedError } from "../../errors.js";
import type { JsonValue, Message, ModelInput, ModelParams, TextPart } from "../../trace/types.js";
import type { RequestState } from "../types.js";

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Throw the one refusal error; `message` names the thing and what to use instead. */
export function refuse(message: string): never {
  throw new BlackboxUnsupportedError(message);
}

/** The body as an object, or a refusal naming the provider call. */
export function bodyObject(body: unknown, what: string): Obj {
  if (!isObj(body)) refuse(`${what} body is not a JSON object; send the request through the provider SDK.`);
  return body;
}

/** The request's array field `key`, or [] when absent. */
export function arrayField(o: Obj, key: string, what: string): unknown[] {
  const v = o[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) refuse(`${what}: "${key}" is not an array; pass a list as the provider SDK documents.`);
  return v;
}

/** Copies the wire field `wire` into params under `neutral` when present (null counts as absent). */
export function copyParam(params: ModelParams, body: Obj, wire: string, neutral: string): void {
  const v = body[wire];
  if (v !== undefined && v !== null) params[neutral] = v as JsonValue;
}

/** Text of a list of text blocks/parts, joined with no separator (the text is kept exactly). */
export function joinText(parts: readonly { text: string }[]): string {
  let s = "";
  for (const p of parts) s += p.text;
  return s;
}

/** Strips a text block/part to the neutral `{type:"text", text}` (drops cache_control, citations ...). */
export function textPart(block: Obj, where: string): TextPart {
  if (typeof block.text !== "string") refuse(`${where}: a text block without a string "text"; send text as a string.`);
  return { type: "text", text: block.text };
}

/** `stop` / `stop_sequences`: a string becomes [string]. */
export function stopList(v: unknown): JsonValue | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === "string" ? [v] : (v as JsonValue);
}

/** The path without a trailing slash. */
export function cleanPath(url: URL): string {
  return url.pathname.replace(/\/+$/, "");
}

// --- the incremental parse's two steps (src/session/incremental.ts), shared by both adapters ---

/** `state.wire` with `more` pushed onto its end, in place: the next request takes the state over. */
export function appendWire(state: RequestState, more: readonly unknown[]): unknown[] {
  const wire = state.wire;
  for (const m of more) wire.push(m);
  return wire;
}

/**
 * `state` with its input's messages replaced: the input's other members as they are, in
 * the order both adapters write them (messages, tools, systemPrompt, model, params).
 * Written out, not spread: a replayed call is short enough that object spreads show.
 */
export function withMessages(state: RequestState, wire: unknown[], messages: Message[]): RequestState {
  const was = state.parsed.input;
  const input: ModelInput = { messages, tools: was.tools };
  if (was.systemPrompt !== undefined) input.systemPrompt = was.systemPrompt;
  if (was.model !== undefined) input.model = was.model;
  if (was.params !== undefined) input.params = was.params;
  const parsed: RequestState["parsed"] = { input, stream: state.parsed.stream, thinking: state.parsed.thinking };
  if (state.parsed.streamUsage) parsed.streamUsage = true;
  if (state.parsed.functionCall) parsed.functionCall = true;
  return { parsed, wire, names: state.names };
}
